"""The transition engine: the only code that changes a task's state (DESIGN §4).

fire() reads the task, checks the kind's table, the caller and the guard, then writes the
new state only if the task is still at the version it read (sql.apply_move). Every refusal
is a distinct exception naming what was expected and what was found, and writes nothing.
"""
import hashlib

from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.models import OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from . import sql, trace
from .actors import Actor
# The one way to read a checkpoint back: verified (checksum, tenant) and upgraded (DESIGN §13).
from .checkpoints import checkpoint_latest, checkpoint_load  # noqa: F401
from .errors import DomainError, GuardRefused, LeaseLost, NotFound, NotPermitted, StaleVersion
from .kinds import get_kind
from .models import Checkpoint, Task
from .said import Said, event_fields
from .upgrades import task_upgrade

FULL_EVERY = sql.FULL_EVERY  # a full snapshot at least every FULL_EVERY checkpoints of a chain


def task_create(*, kind: str, initiator, tenant: str, data: dict | None = None, step: str = "",
                subject=None, reason: Said | str = Said("created"), by=None) -> Task:
    """A new task in its kind's initial state, with its first event and checkpoint. `by`: who
    created it when that is not its initiator (an admin's fork of someone's request)."""
    from .models import Checkpoint, TaskEvent

    task_kind = get_kind(kind)
    task = Task(kind=kind, initiator=initiator, tenant=tenant, state=task_kind.initial, step=step,
                data=data or {}, schema_version=task_kind.schema_version, trace_id=trace.current_or_new(),
                runnable=task_kind.initial in task_kind.runnable and bool(step))
    if subject is not None:
        task.subject = subject
    actor = Actor.of(by if by is not None else initiator)
    # The row, its first event and its first checkpoint commit together, like every later move.
    with transaction.atomic():
        task.save()
        reason, event_data = event_fields(reason)
        TaskEvent.objects.create(task=task, actor=actor.name, event="create", from_state="", to_state=task.state,
                                 version=task.version, reason=reason, trace_id=task.trace_id, data=event_data)
        cp = checkpoint_payload(task, label="create", pending=[], refs=[])
        Checkpoint.objects.create(task=task, version=task.version, **cp)
    return task


def fire(task_id, event: str, *, actor, expected_version: int | None = None, reason: Said | str = "",
         data: dict | None = None, step: str | None = None, lease_token: int | None = None,
         trace_id: str = "", pending: list | None = None, refs: list | None = None,
         event_data: dict | None = None, seen: Task | None = None) -> Task:
    """Fire `event` on the task. Returns the task as written, at its new version.

    `data` is merged into the task's JSON at the top level. `expected_version` is the
    version the caller saw (None: the version this call reads). A worker passes its
    `lease_token` so a reclaimed lease cannot write. `event_data` goes on the move's event row
    (what the caller keeps with this step of the history, e.g. the person's own words). A `reason`
    given as a Said is kept as its code (event data "said") and its English in the reason column.

    The task's JSON is read only when a guard must judge it or a full checkpoint is due;
    otherwise the merge happens in the database and the returned task loads `data` on first use.
    `seen`: the task as the caller read it through with_checkpoint(), at `expected_version`: the
    engine decides on it instead of reading the task again (the move is conditional on that
    version, so a task that moved on is still refused), and returns it moved, its JSON merged.
    """
    actor = Actor.of(actor)
    reason, event_data = event_fields(reason, event_data)
    arguments = dict(actor=actor, expected_version=expected_version, reason=reason, data=data, step=step,
                     lease_token=lease_token, trace_id=trace_id, pending=pending, refs=refs, event_data=event_data)
    known = _seen(seen, expected_version) or _recall(task_id, expected_version, lease_token)
    if known is not None:
        try:
            return _fire(known, event, **arguments)
        except DomainError:
            pass  # what the caller read or this process remembers may be out of date: decide on a fresh read
    return _fire(_read(task_id), event, **arguments)


def _fire(task: Task, event: str, *, actor: Actor, expected_version, reason, data, step, lease_token, trace_id,
          pending, refs, event_data) -> Task:
    if expected_version is not None and expected_version != task.version:
        # Checked first: "it changed under you" is the answer, whatever the table says now.
        raise StaleVersion(f"Expected version {expected_version}, found {task.version} (state {task.state!r}).",
                           current_version=task.version)
    kind = get_kind(task.kind)
    if task.schema_version != kind.schema_version:
        task = _read(task_upgrade(task).pk)  # an older shape is upgraded first; a newer one is refused
    transition = kind.transition(task.state, event)
    if not actor.may(transition.allowed, task):
        raise NotPermitted(f"{actor.name} may not fire {event!r} on this task; allowed: "
                           f"{', '.join(transition.allowed)}.")
    if lease_token is not None and lease_token != task.lease_token:
        raise LeaseLost(f"Lease token {lease_token} is no longer valid (now {task.lease_token}); "
                        "another worker holds this task.", current_version=task.version)
    changes = data or {}
    # A delta may extend the chain only when the newest checkpoint is of the version being left;
    # otherwise, and every FULL_EVERY checkpoints, the move writes a full one.
    delta_depth = (task.checkpoint_depth + 1 if task.checkpoint_version == task.version
                   and task.checkpoint_depth + 1 < FULL_EVERY else 0)
    new_data = None
    if transition.guard is not None or not sql.merges_in_database():
        current = task.__dict__["data"] if "data" in task.__dict__ else sql.read_task_data(task.pk)
        new_data = {**current, **changes}
    if transition.guard is not None:
        # The guard judges the task as it would be after this event's data is merged.
        refusal = transition.guard(_with_data(task, new_data), actor)
        if refusal:
            raise GuardRefused(refusal, current_version=task.version)

    new_step = next(s for s in (step, transition.step, task.step) if s is not None)
    now = timezone.now()
    checkpoint = None
    if transition.checkpoint:
        checkpoint = {"label": event, "cursor": new_step, "tenant": task.tenant,
                      "schema_version": task.schema_version, "pending": pending or [], "external_refs": refs or [],
                      "depth": delta_depth}
    move = sql.Move(task_id=task.id, from_version=task.version, from_state=task.state, from_step=task.step,
                    to_state=transition.target, step=new_step, changes=changes, data=new_data,
                    runnable=transition.target in kind.runnable and bool(new_step),
                    lease_token=lease_token, event=event, actor=actor.name, reason=reason,
                    trace_id=trace_id or trace.current_or_new(), now=now, checkpoint=checkpoint,
                    event_data=event_data or {},
                    supersede_approvals=transition.supersedes_approvals, durable=transition.durable)
    moved, written_depth = sql.apply_move(move)
    if not moved:
        _explain_lost_race(task, lease_token)
    task.state, task.version, task.step = transition.target, task.version + 1, new_step
    task.runnable, task.updated_at = move.runnable, now
    if new_data is not None:
        task.data = new_data
    elif "data" in task.__dict__:  # read by the caller at the version moved from: merged as the database did
        task.data = {**task.data, **changes}
    memory = _memory_of(task, checkpoint_depth=written_depth)
    transaction.on_commit(lambda: _remember(task.pk, memory), robust=True)
    return task


def task_note(task_id, event: str, *, actor, reason: str = "", data: dict | None = None,
              expected_version: int | None = None, lease_token: int | None = None):
    """An event that moves nothing (a check, a failed try): written at the task's current version,
    from and to its state, under the task's row lock. Given `expected_version` or `lease_token`,
    a task that moved on or a lease that was reclaimed is refused (StaleVersion, LeaseLost) and
    nothing is written. Returns the event."""
    from .models import TaskEvent

    actor = Actor.of(actor)
    with transaction.atomic():
        row = (Task.objects.select_for_update(no_key=True).filter(pk=task_id)
               .values("version", "state", "lease_token").first())
        if row is None:
            raise NotFound(f"No task {task_id}.")
        if expected_version is not None and expected_version != row["version"]:
            raise StaleVersion(f"Expected version {expected_version}, found {row['version']} (state "
                               f"{row['state']!r}).", current_version=row["version"])
        if lease_token is not None and lease_token != row["lease_token"]:
            raise LeaseLost(f"Lease token {lease_token} is no longer valid (now {row['lease_token']}); "
                            "another worker holds this task.", current_version=row["version"])
        return TaskEvent.objects.create(task_id=task_id, actor=actor.name, event=event, from_state=row["state"],
                                        to_state=row["state"], version=row["version"], reason=reason,
                                        data=data or {})


RETAG_EVENT = "retag"


def task_retag(task_id, tenant: str, *, actor, expected_version: int, reason: str = "") -> Task:
    """Move the task to another tenant (the key that decides who may see it) as a new version, with
    its event (the old and new tenant on its data) and a full checkpoint under the new tenant, so
    that the loader's tenant check holds for what comes next. Conditional on `expected_version`:
    a task that moved on is refused (StaleVersion) and nothing is written."""
    from .models import Checkpoint, TaskEvent

    actor = Actor.of(actor)
    with transaction.atomic():
        task = Task.objects.select_for_update(no_key=True).filter(pk=task_id).first()
        if task is None:
            raise NotFound(f"No task {task_id}.")
        if task.version != expected_version:
            raise StaleVersion(f"Expected version {expected_version}, found {task.version} (state {task.state!r}).",
                               current_version=task.version)
        before = task.tenant
        moved = Task.objects.filter(pk=task.pk, version=expected_version).update(
            tenant=tenant, version=expected_version + 1, updated_at=timezone.now())
        if moved != 1:
            _explain_lost_race(task, None)
        task.tenant, task.version = tenant, expected_version + 1
        TaskEvent.objects.create(task=task, actor=actor.name, event=RETAG_EVENT, from_state=task.state,
                                 to_state=task.state, version=task.version, reason=reason,
                                 data={"tenant": {"from": before, "to": tenant}})
        Checkpoint.objects.create(task=task, version=task.version,
                                  **checkpoint_payload(task, label=RETAG_EVENT, pending=[], refs=[]))
    _RECENT.pop(str(task.pk), None)
    return _read(task.pk)


def checkpoint_payload(task: Task, *, label: str, pending: list, refs: list) -> dict:
    """The fields of a full checkpoint of `task` as it stands."""
    snapshot = {"state": task.state, "version": task.version, "step": task.step, "data": task.data}
    return _checkpoint_fields(snapshot, label=label, cursor=task.step, pending=pending, refs=refs,
                              tenant=task.tenant, schema_version=task.schema_version)


def _checkpoint_fields(snapshot: dict, *, label, cursor, pending, refs, tenant, schema_version) -> dict:
    # Serialised once; the checksum is of exactly the text stored.
    body = sql.dumps({"snapshot": snapshot, "cursor": cursor, "pending": pending, "external_refs": refs,
                      "tenant": tenant, "schema_version": schema_version})
    return {"label": label, "cursor": cursor, "tenant": tenant, "schema_version": schema_version, "body": body,
            "checksum": hashlib.sha256(body.encode()).hexdigest()}


def checkpoint_is_intact(checkpoint) -> bool:
    """Every stored text behind `checkpoint` hashes to its checksum, and what it holds in memory
    is what that text says (a record from checkpoint_latest checks its whole chain)."""
    if isinstance(checkpoint, sql.CheckpointRecord):
        return sql.record_is_intact(checkpoint)
    stored_ok = hashlib.sha256(checkpoint.body.encode()).hexdigest() == checkpoint.checksum
    if not stored_ok or sql.loads(checkpoint.body) != checkpoint.content:
        return False
    if checkpoint.is_delta:
        record = sql.read_checkpoint(checkpoint.task_id, version=checkpoint.version)
        return record.id == checkpoint.id and sql.record_is_intact(record) and record.snapshot == checkpoint.snapshot
    return True


def checkpoints_prune(task_id) -> int:
    """Retention: delete the checkpoints before the newest full one, which with the deltas after
    it still gives the whole state. Events, receipts and approvals are never pruned."""
    from .models import Checkpoint

    newest_full = Checkpoint.objects.filter(task_id=task_id, depth=0).order_by("-version").values("version")[:1]
    deleted, _ = Checkpoint.objects.filter(task_id=task_id, version__lt=newest_full).delete()
    return deleted


def _with_data(task: Task, data: dict) -> Task:
    return Task(id=task.id, kind=task.kind, initiator_id=task.initiator_id, tenant=task.tenant, state=task.state,
                version=task.version, step=task.step, data=data, lease_token=task.lease_token)


# What this process last committed for each task it moved: every field fire() reads is fixed by
# (task, version) except the lease token, and the write is conditional on the version, state,
# step and lease, so a stale memory can only make the write miss, never land on another state.
# A miss (or any refusal) is decided again on a fresh read.
_RECENT: dict[str, tuple] = {}
_RECENT_MAX = 4096
_REMEMBERED = ("kind", "initiator_id", "tenant", "state", "version", "step", "schema_version")


def _memory_of(task: Task, *, checkpoint_depth: int | None) -> tuple:
    checkpoint = (task.version, checkpoint_depth) if checkpoint_depth is not None else (
        task.checkpoint_version, task.checkpoint_depth)
    return tuple(getattr(task, f) for f in _REMEMBERED), checkpoint


def _remember(task_id, memory: tuple):
    """Called once the move is committed: a rolled-back move is never remembered."""
    if len(_RECENT) >= _RECENT_MAX:
        _RECENT.pop(next(iter(_RECENT)), None)
    _RECENT[str(task_id)] = memory


def with_checkpoint(tasks):
    """`tasks` (a queryset) with what fire() reads of each one's newest checkpoint, so that a task
    read through it is fired without a second read (fire's `seen`)."""
    newest = Checkpoint.objects.filter(task=OuterRef("pk")).order_by("-version")
    return tasks.annotate(checkpoint_version=Subquery(newest.values("version")[:1]),
                          checkpoint_depth=Coalesce(Subquery(newest.values("depth")[:1]), 0))


def _seen(task: Task | None, expected_version: int | None) -> Task | None:
    if task is None or expected_version is None or task.version != expected_version \
            or not hasattr(task, "checkpoint_depth"):
        return None
    return task


def _recall(task_id, expected_version: int | None, lease_token: int | None) -> Task | None:
    known = _RECENT.get(str(task_id)) if expected_version is not None else None
    if known is None or known[0][4] != expected_version:
        return None
    task = Task.from_db(connection.alias, ["id", *_REMEMBERED, "lease_token"],
                        [Task._meta.pk.to_python(task_id), *known[0], lease_token or 0])
    task.checkpoint_version, task.checkpoint_depth = known[1]
    task.from_memory = True
    return task


def _read(task_id) -> Task:
    try:
        task = sql.read_task(task_id)
    except ValidationError:
        task = None
    if task is None:
        raise NotFound(f"No task {task_id}.")
    return task


def _explain_lost_race(read: Task, lease_token: int | None):
    current = Task.objects.filter(pk=read.pk).values("version", "state", "lease_token").first()
    if current is None:
        raise NotFound(f"Task {read.pk} no longer exists.")
    if lease_token is not None and current["lease_token"] != lease_token:
        raise LeaseLost(f"Lease token {lease_token} was fenced off by token {current['lease_token']}; "
                        "the late result was discarded.", current_version=current["version"])
    raise StaleVersion(f"Expected version {read.version} in state {read.state!r}, found version "
                       f"{current['version']} in state {current['state']!r}.", current_version=current["version"])


def runnable_tasks(older_than):
    """Tasks a worker should act on that nobody has touched since `older_than`."""
    return Task.objects.filter(runnable=True, updated_at__lt=older_than).filter(
        Q(lease_until__isnull=True) | Q(lease_until__lt=timezone.now()))

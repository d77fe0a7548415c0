"""The transition engine: the only code that changes a task's state (DESIGN §4).

fire() reads the task, checks the kind's table, the caller and the guard, then writes the
new state only if the task is still at the version it read (sql.apply_move). Every refusal
is a distinct exception naming what was expected and what was found, and writes nothing.
"""
import hashlib
import uuid

from django.core.exceptions import ValidationError
from django.db.models import Q
from django.utils import timezone

from . import sql
from .actors import Actor
from .errors import GuardRefused, LeaseLost, NotFound, NotPermitted, StaleVersion
from .kinds import get_kind
from .models import Task

SCHEMA_VERSION = 1


def task_create(*, kind: str, initiator, tenant: str, data: dict | None = None, step: str = "",
                subject=None, reason: str = "created") -> Task:
    """A new task in its kind's initial state, with its first event and checkpoint."""
    from .models import Checkpoint, TaskEvent

    task_kind = get_kind(kind)
    task = Task(kind=kind, initiator=initiator, tenant=tenant, state=task_kind.initial, step=step,
                data=data or {}, schema_version=SCHEMA_VERSION,
                runnable=task_kind.initial in task_kind.runnable and bool(step))
    if subject is not None:
        task.subject = subject
    task.save()
    actor = Actor.of(initiator)
    TaskEvent.objects.create(task=task, actor=actor.name, event="create", from_state="", to_state=task.state,
                             version=task.version, reason=reason)
    cp = checkpoint_payload(task, label="create", pending=[], refs=[])
    Checkpoint.objects.create(task=task, version=task.version, **cp)
    return task


def fire(task_id, event: str, *, actor, expected_version: int | None = None, reason: str = "",
         data: dict | None = None, step: str | None = None, lease_token: int | None = None,
         trace_id: str = "", pending: list | None = None, refs: list | None = None) -> Task:
    """Fire `event` on the task. Returns the task as written, at its new version.

    `data` is merged into the task's JSON at the top level. `expected_version` is the
    version the caller saw (None: the version this call reads). A worker passes its
    `lease_token` so a reclaimed lease cannot write.
    """
    actor = Actor.of(actor)
    task = _read(task_id)
    if expected_version is not None and expected_version != task.version:
        # Checked first: "it changed under you" is the answer, whatever the table says now.
        raise StaleVersion(f"Expected version {expected_version}, found {task.version} (state {task.state!r}).",
                           current_version=task.version)
    kind = get_kind(task.kind)
    transition = kind.transition(task.state, event)
    if not actor.may(transition.allowed, task):
        raise NotPermitted(f"{actor.name} may not fire {event!r} on this task; allowed: "
                           f"{', '.join(transition.allowed)}.")
    if lease_token is not None and lease_token != task.lease_token:
        raise LeaseLost(f"Lease token {lease_token} is no longer valid (now {task.lease_token}); "
                        "another worker holds this task.", current_version=task.version)
    new_data = {**task.data, **(data or {})}
    if transition.guard is not None:
        # The guard judges the task as it would be after this event's data is merged.
        refusal = transition.guard(_with_data(task, new_data), actor)
        if refusal:
            raise GuardRefused(refusal, current_version=task.version)

    new_step = next(s for s in (step, transition.step, task.step) if s is not None)
    new_version = task.version + 1
    now = timezone.now()
    checkpoint = None
    if transition.checkpoint:
        snapshot_task = Task(id=task.id, kind=task.kind, tenant=task.tenant, state=transition.target,
                             version=new_version, step=new_step, data=new_data, schema_version=task.schema_version)
        checkpoint = checkpoint_payload(snapshot_task, label=event, pending=pending or [], refs=refs or [])
    move = sql.Move(task_id=task.id, from_version=task.version, from_state=task.state, to_state=transition.target,
                    step=new_step, data=new_data, runnable=transition.target in kind.runnable and bool(new_step),
                    lease_token=lease_token, event=event, actor=actor.name, reason=reason,
                    trace_id=trace_id or uuid.uuid4().hex, now=now, checkpoint=checkpoint)
    if not sql.apply_move(move):
        _explain_lost_race(task, lease_token)
    task.state, task.version, task.step, task.data = transition.target, new_version, new_step, new_data
    task.runnable, task.updated_at = move.runnable, now
    return task


def checkpoint_payload(task: Task, *, label: str, pending: list, refs: list) -> dict:
    snapshot = {"state": task.state, "version": task.version, "step": task.step, "data": task.data}
    body = {"snapshot": snapshot, "cursor": task.step, "pending": pending, "external_refs": refs,
            "tenant": task.tenant, "schema_version": task.schema_version}
    checksum = hashlib.sha256(sql.dumps(body).encode()).hexdigest()
    return {"label": label, "checksum": checksum, **body}


def checkpoint_is_intact(checkpoint) -> bool:
    body = {"snapshot": checkpoint.snapshot, "cursor": checkpoint.cursor, "pending": checkpoint.pending,
            "external_refs": checkpoint.external_refs, "tenant": checkpoint.tenant,
            "schema_version": checkpoint.schema_version}
    return hashlib.sha256(sql.dumps(body).encode()).hexdigest() == checkpoint.checksum


def _with_data(task: Task, data: dict) -> Task:
    return Task(id=task.id, kind=task.kind, initiator_id=task.initiator_id, tenant=task.tenant, state=task.state,
                version=task.version, step=task.step, data=data, lease_token=task.lease_token)


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

"""Going back in time, with one meaning each (DESIGN §13). A checkpoint restores the agent's
understanding of a task, never the outside world.

- resume: settle the task's open receipts by key, then continue from its latest checkpoint;
- replay: run the steps after a checkpoint again as a dry run, in a transaction that is rolled
  back, with the step's external client swapped for a Recorder and every real client refusing to
  send (external.nothing_leaves); the task keeps its version;
- rewind: list the external effects after a checkpoint (what is compensated, what cannot be
  undone), and on confirmation of the version the person saw move the task back to the
  checkpoint's state as a new version, planning the compensations as receipts in the same
  transaction; they are sent only once the move has committed;
- fork: a new task from a checkpoint, with its own idempotency keys, linked both ways; the
  original is untouched.

Checkpoints are loaded only through the machine's loader and verified (checksum, tenant, schema)
before use. The app says what its effects are and how its steps run through its kind's
`time_travel` hooks (see TimeTravelHooks); nothing here names a business domain.
"""
import logging
from dataclasses import asdict, dataclass, field
from typing import Protocol

from django.db import transaction
from django.db.models import Max
from django.utils.translation import gettext as _

from . import checkpoints, machine
from .actors import Actor
from .errors import CheckpointNotFound, Conflict, DomainError, StaleVersion
from .external import Outcome, nothing_leaves
from .kinds import get_kind
from .models import Checkpoint, Receipt, Task, TaskEvent
from .receipts import OPEN, receipt_perform, receipt_reconcile
from .said import EVENT_KEY, Said, event_fields, say

log = logging.getLogger(__name__)
IRREVERSIBLE = "irreversible"
REPLAY_EVENT, FORKED_EVENT, RESUMED_NOTE = "replay", "forked", "resume.settled"
MAX_REPLAY_STEPS = 12


@dataclass(frozen=True)
class Effect:
    """Something a task did outside after a checkpoint, and how a rewind undoes it."""

    operation: str
    external_id: str
    undo: str            # the compensation's operation, or IRREVERSIBLE
    blocks: bool = False  # irreversible and so important that a rewind past it is refused
    text: str = ""        # one sentence for a person, in their language
    ref: str = ""         # the receipt (or other record) it comes from

    def as_json(self) -> dict:
        return asdict(self)


class TimeTravelHooks(Protocol):
    """What a task kind tells the engine (TaskKind.time_travel)."""

    rewind_event: str            # fired to move a task back; the table says from where
    fork_event: str              # fired on a new fork, from the kind's initial state
    rewind_to: frozenset         # states a checkpoint must be in to be rewound to

    def effects_after(self, task: Task, checkpoint) -> list[Effect]: ...
    def still_blocking(self, task: Task, effects: list[Effect]) -> list[Effect]: ...
    # Inside the move's transaction: local rows only (planned receipts, withdrawn ones); returns the
    # receipts the engine sends once the move has committed.
    def compensations_plan(self, task: Task, effects: list[Effect]) -> list[Receipt]: ...
    def restored_data(self, task: Task, checkpoint) -> dict: ...
    def resume_event(self, task: Task) -> str | None: ...
    def on_rewound(self, task: Task, effects: list[Effect]) -> None: ...
    def fork_start(self, original: Task, fork: Task, checkpoint, changes: dict) -> tuple[str, dict]: ...
    def replay_prepare(self, task: Task, checkpoint) -> None: ...
    def replay_step(self, task: Task, client) -> None: ...


def _hooks(task: Task) -> TimeTravelHooks:
    hooks = get_kind(task.kind).time_travel
    if hooks is None:
        raise Conflict(said=say("no_time_travel"))
    return hooks


# -- checkpoints ------------------------------------------------------------------------

@dataclass(frozen=True)
class CheckpointInfo:
    id: int
    version: int
    label: str
    created_at: object
    cursor: str
    state: str


def checkpoints_of(task: Task) -> list[CheckpointInfo]:
    """The task's checkpoints, oldest first, with the state each was written in (from the event of
    its version). Only what they are called and where they sit: their content is loaded, verified,
    by checkpoint_verified."""
    states = dict(TaskEvent.objects.filter(task_id=task.pk).exclude(to_state="").order_by("id")
                  .values_list("version", "to_state"))
    rows = Checkpoint.objects.filter(task_id=task.pk).order_by("version", "id").values_list(
        "id", "version", "label", "created_at", "cursor")
    return [CheckpointInfo(*row, state=states.get(row[1], "")) for row in rows]


def checkpoint_verified(task: Task, checkpoint_id, actor=None):
    """The checkpoint `checkpoint_id` of this task, whole, verified and upgraded by the one loader
    (agentstate.checkpoints): its checksum, its tenant against the task's, a schema this code reads.
    An id of another task (or none at all) is bad input; a refusal is never used."""
    try:
        wanted = int(checkpoint_id)
    except (TypeError, ValueError):
        wanted = None
    try:
        if wanted is None:
            raise CheckpointNotFound("no checkpoint id")
        return checkpoints.checkpoint_load(task, wanted, tenant=task.tenant, actor=actor)
    except CheckpointNotFound:
        raise DomainError(said=say("no_such_checkpoint", id=str(checkpoint_id)),
                          errors={"checkpoint": [_("Pick a checkpoint of this request.")]})


# -- resume -----------------------------------------------------------------------------

def task_resume(*, task: Task, actor) -> Task:
    """Settle the task's open receipts by key, then continue from its latest checkpoint. A receipt
    still in doubt refuses the resume (409), and the task stays where it is."""
    actor, hooks, kind = Actor.of(actor), _hooks(task), get_kind(task.kind)
    if hooks.resume_event(task) is None:
        raise Conflict(said=say("resume_not_stopped"))
    latest = checkpoints.checkpoint_latest(task, tenant=task.tenant, actor=actor)  # refused: 409, with its event
    for receipt in Receipt.objects.filter(task_id=task.pk, status__in=OPEN).exclude(status=Receipt.Status.PLANNED):
        if kind.client_for is not None:
            receipt_reconcile(receipt=receipt, client=kind.client_for(receipt.operation),
                              on_outcome=kind.on_receipt_resolved)
    if Receipt.objects.filter(task_id=task.pk, status__in=[Receipt.Status.SENT, Receipt.Status.UNKNOWN]).exists():
        raise Conflict(said=say("resume_in_doubt"))
    task = Task.objects.get(pk=task.pk)
    event = hooks.resume_event(task)
    if event is None:  # settling a receipt already moved it on: a worker takes it from there
        TaskEvent.objects.create(task_id=task.pk, actor=actor.name, event=RESUMED_NOTE, from_state=task.state,
                                 to_state=task.state, version=task.version,
                                 **_event(say("resumed_settled", person=actor.name)))
        _hand_back(task)
        return task
    with transaction.atomic():
        task = machine.fire(task.pk, event, actor=actor, expected_version=task.version,
                            reason=say("resumed_after_reconciling", person=actor.name, version=latest.version))
        _hand_back(task)
    return task


# -- rewind -----------------------------------------------------------------------------

@dataclass
class RewindPlan:
    task: Task
    checkpoint: object
    effects: list[Effect]

    @property
    def blocking(self) -> list[Effect]:
        return [e for e in self.effects if e.blocks]


def task_rewind_preview(*, task: Task, checkpoint_id, actor=None) -> RewindPlan:
    """What a rewind to this checkpoint would compensate and what it cannot undo. Changes nothing."""
    hooks = _hooks(task)
    _may_rewind(task, hooks)
    record = checkpoint_verified(task, checkpoint_id, actor)
    if record.snapshot.get("state") not in hooks.rewind_to:
        raise DomainError(said=say("rewind_point_not_working"), errors={"checkpoint": [_("Not a point to rewind to.")]})
    return RewindPlan(task, record, hooks.effects_after(task, record))


def task_rewind(*, task: Task, checkpoint_id, actor, expected_version: int | None = None, why: str = "") -> RewindPlan:
    """The rewind, confirmed, of the version the person saw (`expected_version`; None: the one read
    here). Effects the other system holds for good refuse it (409). Otherwise the move back to the
    checkpoint commits first, as a new version, its event recording the list that was shown and why
    (the person's own words, also on the event's data, read back by why_of); the compensations are
    planned as receipts in the move's own transaction and sent only once it has committed (recovery
    sends any a crash left planned). A move that lost to another (an approval clicked meanwhile)
    is a 409 saying what changed, and nothing outside was touched."""
    actor, hooks = Actor.of(actor), _hooks(task)
    seen = task.version if expected_version is None else expected_version
    if seen != task.version:
        raise _changed_since(task, seen)
    plan = task_rewind_preview(task=task, checkpoint_id=checkpoint_id, actor=actor)
    blocking = hooks.still_blocking(task, plan.blocking)
    if blocking:
        what = " ".join(e.text for e in blocking)
        raise Conflict(said=say("rewind_blocked", what=what), effects=[e.as_json() for e in blocking])
    record = plan.checkpoint
    shown = "; ".join(f"{e.operation} {e.external_id} → {e.undo}" for e in plan.effects) or "none"
    try:
        with transaction.atomic():
            planned = [r.pk for r in hooks.compensations_plan(task, plan.effects)]
            plan.task = machine.fire(
                task.pk, hooks.rewind_event, actor=actor, expected_version=seen,
                data=hooks.restored_data(task, record), step=record.cursor,
                refs=[{"rewound_to": record.id, "version": record.version,
                       "effects": [e.as_json() for e in plan.effects],
                       "compensations": [str(pk) for pk in planned]}],
                reason=_with_why("rewound", why, person=actor.name, version=record.version, effects=shown),
                event_data=_why_data(why) or None)
            hooks.on_rewound(plan.task, plan.effects)
            task_id = plan.task.pk
            # Registered before the hand-back: the old effects are undone before the steps run again.
            transaction.on_commit(lambda: compensations_send(task_id, planned), robust=True)
            _hand_back(plan.task)
    except StaleVersion:
        raise _changed_since(Task.objects.get(pk=task.pk), seen)
    return plan


def compensations_send(task_id, receipt_ids) -> list[Receipt]:
    """Send the compensations a committed move planned, each under its receipt (never twice: the
    key is the same on every try). One that does not confirm stays on its receipt for recovery or a
    person: an unclear answer flags the task for review, as every receipt does."""
    kind = get_kind(Task.objects.values_list("kind", flat=True).get(pk=task_id))
    sent = []
    for receipt in Receipt.objects.filter(pk__in=receipt_ids, status=Receipt.Status.PLANNED).order_by("created_at"):
        try:
            sent.append(receipt_perform(receipt=receipt, client=kind.client_for(receipt.operation),
                                        on_outcome=kind.on_receipt_resolved))
        except Exception:  # noqa: BLE001 - the move is committed; recovery sends what is still planned
            log.exception("compensation %s of task %s not sent; recovery will send it", receipt.pk, task_id)
    return sent


def _changed_since(task: Task, seen: int) -> Conflict:
    """409: the request moved on since the version the person saw, and what moved it."""
    changes = [{"version": e.version, "event": e.event, "actor": e.actor, "from_state": e.from_state,
                "to_state": e.to_state, "at": e.at.isoformat()}
               for e in TaskEvent.objects.filter(task_id=task.pk, version__gt=seen).order_by("id")]
    return Conflict(said=say("rewind_changed_since", v=task.version), current_version=task.version, changes=changes)


def _may_rewind(task: Task, hooks):
    kind = get_kind(task.kind)
    if task.state in kind.terminal:
        raise Conflict(said=say("rewind_ended"))
    if not any(t.source == task.state and t.event == hooks.rewind_event for t in kind.transitions):
        raise Conflict(said=say("rewind_between_steps"))


# -- fork -------------------------------------------------------------------------------

def task_fork(*, task: Task, checkpoint_id, actor, changes: dict | None = None, why: str = "") -> Task:
    """A new task from the checkpoint's understanding, to try another way. Its receipts get new
    idempotency keys (they are derived from its own id); the original is not written, apart from
    one event at its current version that links to the fork."""
    actor, hooks = Actor.of(actor), _hooks(task)
    record = checkpoint_verified(task, checkpoint_id, actor)
    link = {"task": str(task.pk), "checkpoint": record.id, "version": record.version}
    with transaction.atomic():
        fork = machine.task_create(kind=task.kind, initiator=task.initiator, tenant=task.tenant, by=actor,
                                   data={**record.snapshot["data"], "forked_from": link},
                                   reason=say("forked_from", person=actor.name, request=str(task.pk),
                                              version=record.version))
        step, data = hooks.fork_start(task, fork, record, changes or {})
        fork = machine.fire(fork.pk, hooks.fork_event, actor=actor, step=step, data=data,
                            reason=say("fork_started", version=record.version))
        TaskEvent.objects.create(task_id=task.pk, actor=actor.name, event=FORKED_EVENT, from_state=task.state,
                                 to_state=task.state, version=task.version,
                                 **_event(_with_why("forked_into", why, person=actor.name, version=record.version,
                                                    request=str(fork.pk)),
                                          {"fork": str(fork.pk), **link, **_why_data(why)}))
        _hand_back(fork)
    return fork


def forks_of(task: Task) -> list[str]:
    """The ids of the tasks forked from this one, oldest first."""
    return [e["fork"] for e in TaskEvent.objects.filter(task_id=task.pk, event=FORKED_EVENT)
            .order_by("id").values_list("data", flat=True) if e.get("fork")]


# -- replay -----------------------------------------------------------------------------

@dataclass
class Call:
    operation: str
    key: str
    request: dict
    answered_from: str = ""   # the receipt's external id when one answered, else ""

    def as_json(self) -> dict:
        return asdict(self)


class Recorder:
    """Stands in for an external client during a replay: it never sends. It answers from the
    receipts the task really has (by idempotency key, as they were before the replay began), or
    records "would call X with Y" and answers as the other system would have."""

    def __init__(self, receipts: dict):
        self.receipts = receipts   # key -> (status, external_id, response)
        self.calls: list[Call] = []

    def send(self, operation: str, key: str, request: dict) -> Outcome:
        real = self.receipts.get(key)
        call = Call(operation, key, request, answered_from=real[1] if real and real[1] else "")
        self.calls.append(call)
        if real and real[0] in (Receipt.Status.CONFIRMED, Receipt.Status.FAILED):
            return Outcome(ok=real[0] == Receipt.Status.CONFIRMED, external_id=real[1], response=real[2],
                           reason="" if real[0] == Receipt.Status.CONFIRMED else "refused (from the receipt)")
        return Outcome(ok=True, external_id=f"dry-run-{len(self.calls)}", response={"dry_run": True})

    def lookup(self, operation: str, key: str, request: dict) -> Outcome | None:
        return None  # nothing was sent in a dry run, so nothing is there: send() answers


@dataclass
class ReplayStep:
    step: str
    would_call: list = field(default_factory=list)
    outcome: dict | None = None
    actual: dict | None = None

    @property
    def differs(self) -> bool:
        if self.outcome is None or self.actual is None:
            return True
        return (self.outcome.get("event"), self.outcome.get("to_state")) != (
            self.actual.get("event"), self.actual.get("to_state"))

    def as_json(self) -> dict:
        return {"step": self.step, "would_call": [c.as_json() for c in self.would_call], "outcome": self.outcome,
                "actual": self.actual, "differs": self.differs}


@dataclass
class Replay:
    task: Task
    checkpoint: object
    steps: list[ReplayStep]

    @property
    def differences(self) -> int:
        return sum(1 for s in self.steps if s.differs)


def task_replay(*, task: Task, checkpoint_id, actor, why: str = "") -> Replay:
    """Run the steps after the checkpoint again as a dry run and set each beside what really
    happened. Everything the steps write is rolled back; the only lasting row is one event, at the
    task's current version, saying who looked (the audit trail of a debugging view)."""
    actor, hooks = Actor.of(actor), _hooks(task)
    record = checkpoint_verified(task, checkpoint_id, actor)
    actual = _moves_after(task, record.version)
    receipts = {key: (status, ext, resp) for key, status, ext, resp in Receipt.objects.filter(task_id=task.pk)
                .values_list("idempotency_key", "status", "external_id", "response")}
    recorder = Recorder(receipts)
    with nothing_leaves("a replay is a dry run"):
        steps = _sandbox(task, record, hooks, recorder)
    for n, step in enumerate(steps):
        step.actual = actual[n] if n < len(actual) else None
    steps += [ReplayStep(step=a["step"], actual=a) for a in actual[len(steps):]]
    replay = Replay(task, record, steps)
    TaskEvent.objects.create(task_id=task.pk, actor=actor.name, event=REPLAY_EVENT, from_state=task.state,
                             to_state=task.state, version=task.version,
                             **_event(_with_why("dry_run_viewed", why, person=actor.name, version=record.version,
                                                steps=len(steps), differences=replay.differences),
                                      {"checkpoint": record.id, **_why_data(why)}))
    return replay


def _sandbox(task: Task, record, hooks, recorder: Recorder) -> list[ReplayStep]:
    kind, steps = get_kind(task.kind), []
    with transaction.atomic():
        snapshot = record.snapshot
        state, cursor = snapshot.get("state", task.state), record.cursor
        # The engine puts the row back to the checkpoint inside this transaction only: it is rolled
        # back below, so the change guard's commit-time check never sees it.
        Task.objects.filter(pk=task.pk).update(state=state, step=cursor, data=snapshot["data"], data_overlay={},
                                               runnable=state in kind.runnable and bool(cursor))
        Receipt.objects.filter(task_id=task.pk, created_at__gt=record.created_at).delete()
        hooks.replay_prepare(task, record)
        for _n in range(MAX_REPLAY_STEPS):
            current = Task.objects.get(pk=task.pk)
            if not (current.runnable and current.step):
                break
            mark = TaskEvent.objects.filter(task_id=task.pk).aggregate(m=Max("id"))["m"] or 0
            before = len(recorder.calls)
            step = ReplayStep(step=current.step)
            try:
                with transaction.atomic():
                    hooks.replay_step(current, recorder)
            except Exception as exc:  # noqa: BLE001 - a dry run shows what stopped it, whatever it was
                step.outcome = {"event": "", "to_state": current.state, "reason": str(exc), "stopped": True,
                                "said": exc.said.as_json() if isinstance(exc, DomainError) else None}
            step.would_call = recorder.calls[before:]
            if step.outcome is None:
                moved = TaskEvent.objects.filter(task_id=task.pk, id__gt=mark).order_by("id").first()
                step.outcome = ({"event": moved.event, "to_state": moved.to_state, "reason": moved.reason,
                                 "said": (moved.data or {}).get(EVENT_KEY)}
                                if moved else {"event": "", "to_state": current.state, "reason": "", "stopped": True})
            steps.append(step)
            if step.outcome.get("stopped"):
                break
        transaction.set_rollback(True)
    return steps


def _moves_after(task: Task, version: int) -> list[dict]:
    """What really happened after `version`: the move that made each later version."""
    seen, moves = set(), []
    for e in TaskEvent.objects.filter(task_id=task.pk, version__gt=version).order_by("id"):
        if e.version in seen or e.from_state == e.to_state and e.event in (REPLAY_EVENT, FORKED_EVENT, RESUMED_NOTE):
            continue
        seen.add(e.version)
        moves.append({"step": "", "event": e.event, "to_state": e.to_state, "reason": e.reason,
                      "said": (e.data or {}).get(EVENT_KEY), "actor": e.actor,
                      "at": e.at.isoformat(), "version": e.version})
    # The step a move finished is the cursor before it: the checkpoint's, then each move's own.
    cursors = dict(Checkpoint.objects.filter(task_id=task.pk, version__gte=version).values_list("version", "cursor"))
    for move in moves:
        move["step"] = cursors.get(move["version"] - 1, "")
    return moves


def _with_why(code: str, why: str, **params) -> Said:
    """The event's reason as a code; with the person's own words, when they gave any, as `<code>_why`."""
    return say(f"{code}_why", why=why.strip(), **params) if why and why.strip() else say(code, **params)


def _event(reason: Said, data: dict | None = None) -> dict:
    """An event row's reason and data, for the notes this module writes itself."""
    text, data = event_fields(reason, data)
    return {"reason": text, "data": data}


def _why_data(why: str) -> dict:
    """What the event keeps of the person's words: nothing when they gave none."""
    return {"why": why.strip()} if why and why.strip() else {}


def why_of(event: TaskEvent) -> str:
    """The words of the person who rewound, forked or replayed, as they gave them ("" if none)."""
    return (event.data or {}).get("why", "")


def _hand_back(task: Task):
    """Once committed, a task that has work to do goes to a worker."""
    kind = get_kind(task.kind)
    if task.runnable and kind.on_runnable is not None:
        task_id = str(task.pk)
        transaction.on_commit(lambda: kind.on_runnable(task_id))

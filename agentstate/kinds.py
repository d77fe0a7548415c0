"""A task kind declares its transition table as data, plus the hooks recovery calls."""
import copy
from dataclasses import dataclass, field
from typing import Callable

from .errors import IllegalTransition, SchemaTooNew
from .said import say

RUNTIME = "runtime"      # the agent's workers and the recovery pass
INITIATOR = "initiator"  # the person who started the task
APPROVER = "approver"    # someone on the approval's frozen route, checked by approvals.approval_decide


@dataclass(frozen=True)
class Transition:
    source: str
    event: str
    target: str
    allowed: tuple[str, ...]
    # guard(task, actor) returns None to allow, or a sentence saying why not.
    guard: Callable | None = None
    checkpoint: bool = True
    # The cursor this event sets (what runs next), unless the caller names one; None keeps it.
    step: str | None = None
    # A move to a new version makes any pending approval of the old one `superseded`, in the
    # same statement as the move: the version a person approved no longer exists. Only an
    # event that decides the approval itself may leave it as it is (approval_decide sets its
    # status first, so nothing is pending by then either way).
    supersedes_approvals: bool = True
    # True: the move commits as the server is configured (synchronous_commit=on by default:
    # the commit returns once the move is on disk). False, for a runtime move that only records what an idempotent step
    # found: when the move is its own transaction it commits without waiting for the flush,
    # so a crash of the database server (not of a worker) within about 0.6 s of it may lose
    # it, and the runtime then redoes the step. A move inside a caller's transaction (a
    # receipt's outcome, a decision) is always as durable as that transaction's commit.
    durable: bool = True


@dataclass
class TaskKind:
    name: str
    initial: str
    transitions: list[Transition]
    terminal: frozenset[str] = frozenset()
    # States in which a worker acts without waiting for a person, when the task has a next step.
    runnable: frozenset[str] = frozenset()
    # Fired by the runtime when a receipt's outcome cannot be told (moves the task to review).
    unknown_outcome_event: str = ""
    # Fired by the runtime when a pending approval passes its deadline.
    approval_expired_event: str = ""
    # Fired when one step of an approval's chain is done and the next waits (the task stays where
    # it is, at a new version), and when a waiting step is offered to more people (escalation).
    approval_step_event: str = ""
    approval_offer_event: str = ""
    # Hooks the app registers for recovery; each takes ids, not objects.
    on_runnable: Callable[[str], None] | None = None
    client_for: Callable[[str], object] | None = None
    on_receipt_resolved: Callable | None = None
    # Operations that undo an earlier effect (a cancellation). A move plans them as receipts in its
    # own transaction and sends them once committed; recovery sends any a crash left planned.
    compensations: frozenset[str] = frozenset()
    # may_view(user, task) and may_decide(user, approval) read authoritative records.
    may_view: Callable | None = None
    may_decide: Callable | None = None
    # The shape of the task's JSON: new tasks are written at `schema_version`; upgrades[v] turns
    # data of version v into v + 1. Tasks and checkpoints of older versions are upgraded on load.
    schema_version: int = 1
    upgrades: dict[int, Callable[[dict], dict]] = field(default_factory=dict)
    # Fired by the runtime when recovery refuses a task's newest checkpoint (it failed
    # verification), so that a person looks before anything runs; "" leaves the task where it is.
    checkpoint_refused_event: str = ""
    # Going back in time (agentstate.timetravel): what the app knows of its own effects and steps.
    time_travel: object | None = None
    # step_decider(user, approval) -> (refusal or None, id of the person `user` stands in for or None),
    # for an approval with a chain: may `user` decide its current step, and for whom.
    step_decider: Callable | None = None
    _table: dict = field(init=False, repr=False, default_factory=dict)

    def __post_init__(self):
        for t in self.transitions:
            key = (t.source, t.event)
            if key in self._table:
                raise ValueError(f"{self.name}: ({t.source}, {t.event}) is declared twice")
            self._table[key] = t
        missing = [v for v in range(1, self.schema_version) if v not in self.upgrades]
        if missing:
            raise ValueError(f"{self.name}: no upgrade from schema version(s) {missing} to the next")

    def upgrade(self, data: dict, from_version: int, to_version: int | None = None) -> dict:
        """`data` of schema `from_version` in the shape of `to_version` (default: this kind's current
        one), as a copy, applying the upgrades oldest first."""
        self.check_schema(from_version)
        for version in range(from_version, self.schema_version if to_version is None else to_version):
            data = self.upgrades[version](copy.deepcopy(data))
        return data

    def check_schema(self, version: int):
        if version > self.schema_version:
            raise SchemaTooNew(f"This {self.name} data was written by schema version {version}; this code "
                               f"knows versions up to {self.schema_version}. Nothing was changed.",
                               found=version, known=self.schema_version,
                               said=say("schema_version_too_new", found=version, known=self.schema_version))

    @property
    def states(self) -> list[str]:
        seen = [self.initial]
        for t in self.transitions:
            for s in (t.source, t.target):
                if s not in seen:
                    seen.append(s)
        return seen

    @property
    def events(self) -> list[str]:
        return sorted({t.event for t in self.transitions})

    def transition(self, state: str, event: str) -> Transition:
        try:
            return self._table[(state, event)]
        except KeyError:
            pass
        if event not in self.events:
            raise IllegalTransition(
                f"Unknown event {event!r} for {self.name} tasks; known events: {', '.join(self.events)}.",
                state=state, event=event)
        allowed_here = sorted(e for (s, e) in self._table if s == state)
        raise IllegalTransition(
            f"Event {event!r} is not allowed in state {state!r}; allowed here: {', '.join(allowed_here) or 'none'}.",
            state=state, event=event)

    def mermaid(self) -> str:
        lines = ["stateDiagram-v2", f"    [*] --> {self.initial}"]
        for t in self.transitions:
            lines.append(f"    {t.source} --> {t.target}: {t.event}")
        for s in sorted(self.terminal):
            lines.append(f"    {s} --> [*]")
        return "\n".join(lines)


_registry: dict[str, TaskKind] = {}


def register(kind: TaskKind) -> TaskKind:
    _registry[kind.name] = kind
    return kind


def get_kind(name: str) -> TaskKind:
    try:
        return _registry[name]
    except KeyError:
        raise LookupError(f"No task kind {name!r} is registered; known: {', '.join(sorted(_registry)) or 'none'}")


def all_kinds() -> list[TaskKind]:
    return list(_registry.values())

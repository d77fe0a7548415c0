"""Retention (DESIGN §13): what the engine keeps, and for how long. `manage.py prune_state`
runs it (beat daily); with dry_run it only counts.

1. Checkpoints. A task's checkpoints are all kept while it runs and for CHECKPOINT_KEEP_DAYS_AFTER_END
   after it ended. Then only these stay: the newest CHECKPOINT_KEEP_LATEST, every one taken at a
   wait (a state that is neither runnable nor terminal) or around an external effect (it names
   pending work or external objects, or it is the last one before or the first one after a
   receipt), and the links of the delta chain each of those needs to load.
2. Sessions move by time: active → idle after SESSION_IDLE_MINUTES without a turn; active or
   idle → closed when their task ended; idle or closed → expired after SESSION_EXPIRE_DAYS.
3. A session past SESSION_COMPACT_AFTER_TURNS turns is compacted: its older turns are folded into
   a digest (how many, when, which tasks they touched, what the agent did; never their words,
   so a memory deletion or an erasure has no copy to chase), SESSION_KEEP_RECENT_TURNS stay as
   written, and the folded turns are deleted once older than TURN_RETENTION_DAYS, except a turn a
   memory entry was learned from (its provenance).
4. Artifacts (agentstate.artifacts.retention): a file's bytes go when every task that uses it has
   passed the checkpoints' period (CHECKPOINT_KEEP_DAYS_AFTER_END); who uploaded what, when, its
   name, size and SHA-256 stay.
Receipts, approvals and task events are never deleted, whatever the policy.
"""
import dataclasses
import json
from collections import Counter
from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.db.models import Count, F, Max, Q
from django.utils import timezone

from .artifacts.retention import ArtifactPrune, artifacts_prune
from .kinds import all_kinds
from .models import Checkpoint, Receipt, Session, Task, Turn

BATCH = 500  # tasks or sessions read and written together


@dataclass(frozen=True)
class Policy:
    checkpoint_keep_latest: int = 5
    checkpoint_keep_days_after_end: int = 30
    session_idle_minutes: int = 30
    session_expire_days: int = 90
    session_compact_after_turns: int = 60
    session_keep_recent_turns: int = 20
    turn_retention_days: int = 180

    @classmethod
    def from_settings(cls) -> "Policy":
        """Each field from the setting of its name in capitals (CHECKPOINT_KEEP_LATEST, ...)."""
        return cls(**{f.name: getattr(settings, f.name.upper(), f.default) for f in dataclasses.fields(cls)})


@dataclass
class PruneReport:
    dry_run: bool
    checkpoints: int = 0           # deleted (or that would be)
    checkpoint_tasks: int = 0      # ended tasks they belonged to
    turns: int = 0
    sessions_compacted: int = 0
    sessions_moved: Counter = field(default_factory=Counter)  # new status -> how many
    artifacts: ArtifactPrune = field(default_factory=ArtifactPrune)

    def lines(self) -> list[str]:
        will = "Would delete" if self.dry_run else "Deleted"
        moved = ", ".join(f"{n} {status}" for status, n in sorted(self.sessions_moved.items())) or "none"
        return [
            f"{will} {self.checkpoints} checkpoints of {self.checkpoint_tasks} tasks that ended more than the "
            f"retention period ago (the newest, those at a wait or around an external effect, and the chains "
            f"they need are kept).",
            f"{will} {self.turns} chat turns already folded into their conversation's digest and older than the "
            f"retention period.",
            f"{'Would compact' if self.dry_run else 'Compacted'} {self.sessions_compacted} long conversations.",
            f"{'Would move' if self.dry_run else 'Moved'} conversations to: {moved}.",
            f"{'Would remove' if self.dry_run else 'Removed'} the content of {self.artifacts.blobs} stored files "
            f"({self.artifacts.bytes} bytes) of {self.artifacts.artifacts} artifacts no kept task uses; their "
            f"names, sizes, checksums and uploaders are kept.",
            "Receipts, approvals and task events are never deleted.",
        ]


def state_prune(*, dry_run: bool = False, policy: Policy | None = None, now=None) -> PruneReport:
    policy = policy or Policy.from_settings()
    now = now or timezone.now()
    report = PruneReport(dry_run=dry_run)
    sessions_age(policy=policy, now=now, report=report)
    report.sessions_compacted = sessions_compact(policy=policy, dry_run=dry_run)
    turns = _prunable_turns(policy, now)
    report.turns = turns.count()
    if not dry_run and report.turns:
        turns.delete()
    ended = list(_ended_tasks(policy, now).values_list("id", "kind"))
    for start in range(0, len(ended), BATCH):
        drop = _checkpoints_to_drop_of(ended[start:start + BATCH], keep_latest=policy.checkpoint_keep_latest)
        report.checkpoints += sum(len(ids) for ids in drop.values())
        report.checkpoint_tasks += sum(1 for ids in drop.values() if ids)
        if not dry_run:
            Checkpoint.objects.filter(pk__in=[pk for ids in drop.values() for pk in ids]).delete()
    report.artifacts = artifacts_prune(keep_days=policy.checkpoint_keep_days_after_end, now=now, dry_run=dry_run)
    return report


# -- checkpoints -----------------------------------------------------------------

def _ended_tasks(policy: Policy, now):
    cutoff = now - timedelta(days=policy.checkpoint_keep_days_after_end)
    ended = Q()
    for kind in all_kinds():
        if kind.terminal:
            ended |= Q(kind=kind.name, state__in=kind.terminal)
    if not ended:
        return Task.objects.none()
    return (Task.objects.filter(ended, runnable=False, updated_at__lt=cutoff).annotate(n=Count("checkpoints"))
            .filter(n__gt=policy.checkpoint_keep_latest).only("id", "kind", "state"))


def checkpoints_to_drop(task: Task, *, keep_latest: int) -> list[int]:
    """The ids of the task's checkpoints the policy lets go (see the module's docstring)."""
    return _checkpoints_to_drop_of([(task.pk, task.kind)], keep_latest=keep_latest)[task.pk]


def _checkpoints_to_drop_of(tasks: list[tuple], *, keep_latest: int) -> dict:
    """For a batch of (task id, kind): the ids each may let go, read in two queries."""
    rows, receipts = {pk: [] for pk, _ in tasks}, {pk: [] for pk, _ in tasks}
    for task_id, *row in (Checkpoint.objects.filter(task_id__in=rows).order_by("task_id", "version")
                          .values_list("task_id", "id", "version", "depth", "created_at", "body")):
        rows[task_id].append(row)
    for task_id, created, settled in Receipt.objects.filter(task_id__in=rows).values_list(
            "task_id", "created_at", "updated_at"):
        receipts[task_id].append((created, settled))
    return {pk: _drop(rows[pk], receipts[pk], _wait_states(kind), keep_latest) for pk, kind in tasks}


def _drop(rows: list, receipts: list, waits: set, keep_latest: int) -> list[int]:
    by_version = {version: pk for pk, version, *_ in rows}
    keep = {pk for pk, *_ in rows[-keep_latest:]} if keep_latest else set()
    for pk, _, _, _, body in rows:
        content = json.loads(body)
        if content["snapshot"].get("state") in waits or content.get("pending") or content.get("external_refs"):
            keep.add(pk)
    for created, settled in receipts:
        before = [pk for pk, _, _, at, _ in rows if at <= created]
        after = [pk for pk, _, _, at, _ in rows if at >= settled]
        keep.update(before[-1:] + after[:1])
    # A kept delta needs every link back to its full snapshot.
    for pk, version, depth, _, _ in rows:
        if pk in keep and depth:
            keep.update(by_version[v] for v in range(version - depth, version) if v in by_version)
    return [pk for pk, *_ in rows if pk not in keep]


def _wait_states(kind_name: str) -> set:
    kind = next((k for k in all_kinds() if k.name == kind_name), None)
    if kind is None:
        return set()
    return set(kind.states) - set(kind.terminal) - set(kind.runnable)


# -- sessions and turns ----------------------------------------------------------

def sessions_age(*, policy: Policy, now, report: PruneReport):
    """Move sessions along by time (dry run: count only)."""
    S = Session.Status
    ended = Q()
    for kind in all_kinds():
        if kind.terminal:
            ended |= Q(task__kind=kind.name, task__state__in=kind.terminal)
    moves = [
        (S.EXPIRED, Session.objects.filter(status__in=[S.IDLE, S.CLOSED],
                                           updated_at__lt=now - timedelta(days=policy.session_expire_days))),
        (S.CLOSED, Session.objects.filter(ended, status__in=[S.ACTIVE, S.IDLE]) if ended else Session.objects.none()),
        (S.IDLE, Session.objects.filter(status=S.ACTIVE,
                                        updated_at__lt=now - timedelta(minutes=policy.session_idle_minutes))),
    ]
    for status, sessions in moves:
        if report.dry_run:
            report.sessions_moved[status] += sessions.count()
        else:
            # update() keeps updated_at: a status change is not activity in the conversation.
            report.sessions_moved[status] += sessions.update(status=status)
    report.sessions_moved = +report.sessions_moved


def _long_sessions(policy: Policy):
    return (Session.objects.annotate(last=Max("turns__seq"))
            .filter(last__gt=F("compacted_through") + policy.session_compact_after_turns))


def sessions_compact(*, policy: Policy, dry_run: bool = False) -> int:
    """Compact every long session, a batch at a time (turns are append-only, so what is folded
    cannot change under the pass). Returns how many were (or would be) compacted."""
    done = 0
    long = list(_long_sessions(policy).values_list("pk", "last", "compacted_through", "digest"))
    for start in range(0, len(long), BATCH):
        batch = long[start:start + BATCH]
        done += len(batch)
        if not dry_run:
            _compact_batch(batch, keep_recent=policy.session_keep_recent_turns)
    return done


def _compact_batch(batch: list[tuple], *, keep_recent: int):
    through = {pk: last - keep_recent for pk, last, _, _ in batch}
    folded: dict = {pk: [] for pk in through}
    span = Q()
    for pk, _, compacted, _ in batch:
        span |= Q(session_id=pk, seq__gt=compacted, seq__lte=through[pk])
    for session_id, role, data, at in (Turn.objects.filter(span).order_by("session_id", "seq")
                                       .values_list("session_id", "role", "data", "created_at")):
        folded[session_id].append((role, data, at))
    sessions = [Session(pk=pk, compacted_through=through[pk], digest=_digest(digest or {}, folded[pk]))
                for pk, _, _, digest in batch]
    Session.objects.bulk_update(sessions, ["compacted_through", "digest"])


def session_compact(session: Session, *, keep_recent: int) -> Session:
    """Fold every turn but the last `keep_recent` into the session's digest. Idempotent."""
    last = session.turns.aggregate(last=Max("seq"))["last"] or 0
    if last - keep_recent > session.compacted_through:
        _compact_batch([(session.pk, last, session.compacted_through, session.digest)], keep_recent=keep_recent)
    return Session.objects.get(pk=session.pk)


def _digest(previous: dict, turns) -> dict:
    digest = {"turns": 0, "first_at": None, "last_at": None, "tasks": [], "actions": {}, **previous}
    actions = Counter(digest["actions"])
    for role, data, at in turns:
        digest["turns"] += 1
        digest["first_at"] = digest["first_at"] or at.isoformat()
        digest["last_at"] = at.isoformat()
        data = data or {}
        if data.get("task") and data["task"] not in digest["tasks"]:
            digest["tasks"].append(data["task"])
        if role == Turn.Role.AGENT and data.get("did") and data.get("did") != "none":
            actions[data["did"]] += 1
    digest["actions"] = dict(actions)
    return digest


def _prunable_turns(policy: Policy, now):
    return Turn.objects.filter(seq__lte=F("session__compacted_through"),
                               created_at__lt=now - timedelta(days=policy.turn_retention_days),
                               memory_entries__isnull=True, memory_versions__isnull=True,
                               memory_events__isnull=True)

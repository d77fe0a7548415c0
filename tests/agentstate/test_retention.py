"""Retention (agentstate.retention, `manage.py prune_state`): checkpoints of ended tasks are pruned
to the newest, the waits, those around an external effect and the chains they need; receipts,
approvals and events are never pruned; what is left still loads. Sessions move on by time and
long ones are compacted, their folded turns going by the retention setting."""
import io
import secrets
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from agentstate import machine
from agentstate.actors import Actor
from agentstate.approvals import approval_open
from agentstate.kinds import RUNTIME, TaskKind, Transition, register
from agentstate.machine import checkpoint_latest, checkpoint_load, fire, task_create
from agentstate.memory.models import MemoryEntry
from agentstate.memory.services import memory_create
from agentstate.models import Approval, Checkpoint, Receipt, Session, Task, TaskEvent, Turn
from agentstate.receipts import receipt_plan
from agentstate.retention import Policy, state_prune

register(TaskKind(name="retention_test", initial="a", terminal=frozenset({"done"}), runnable=frozenset({"a"}),
                  transitions=[Transition("a", "step", "a", (RUNTIME,)), Transition("a", "wait", "w", (RUNTIME,)),
                               Transition("w", "resume", "a", (RUNTIME,)), Transition("a", "finish", "done", (RUNTIME,)),
                               Transition("w", "finish", "done", (RUNTIME,))]))
POLICY = Policy(checkpoint_keep_latest=3, checkpoint_keep_days_after_end=30, session_idle_minutes=30,
                session_expire_days=90, session_compact_after_turns=60, session_keep_recent_turns=20,
                turn_retention_days=180)
RUNTIME_ACTOR = Actor.runtime("test")


def _run(task, events, **data):
    for event in events:
        task = fire(task.pk, event, actor=RUNTIME_ACTOR, data=data or None)
    return task


def _versions(task) -> list[int]:
    return list(Checkpoint.objects.filter(task=task).order_by("version").values_list("version", flat=True))


def _age(task, days=40):
    Task.objects.filter(pk=task.pk).update(updated_at=timezone.now() - timedelta(days=days))


@pytest.fixture
def ended(alice, bob):
    """A task that ran 15 versions: a wait at v8, an ERP-like effect between v11 and v12, done at v15."""
    task = task_create(kind="retention_test", initiator=alice, tenant="T1", data={"n": 0})
    task = _run(task, ["step"] * 6 + ["wait"])
    approval_open(task=task, scope={"total": "1"}, approvers=[bob], rule={}, ttl_seconds=60)
    task = _run(task, ["resume", "step", "step"])
    receipt = receipt_plan(task=task, operation="other.create", scope="r1", request={"n": 1})
    task = fire(task.pk, "step", actor=RUNTIME_ACTOR, refs=[{"receipt": str(receipt.pk), "external_id": "EXT-1"}])
    task = _run(task, ["step", "step", "finish"])
    base = timezone.now() - timedelta(days=60)
    for version in range(1, 16):
        Checkpoint.objects.filter(task=task, version=version).update(created_at=base + timedelta(minutes=version))
    Receipt.objects.filter(pk=receipt.pk).update(created_at=base + timedelta(minutes=11, seconds=20),
                                                 updated_at=base + timedelta(minutes=11, seconds=40))
    _age(task)
    return Task.objects.get(pk=task.pk)


@pytest.mark.django_db
def test_an_ended_task_keeps_the_newest_its_waits_and_its_effects_and_every_record_of_audit(ended):
    audit = (Receipt.objects.filter(task=ended).count(), Approval.objects.filter(task=ended).count(),
             TaskEvent.objects.filter(task=ended).count())
    history = list(TaskEvent.objects.filter(task=ended).order_by("id").values_list(
        "actor", "event", "from_state", "to_state", "version", "at", "reason"))
    dry = state_prune(dry_run=True, policy=POLICY)
    assert (dry.checkpoints, dry.checkpoint_tasks) == (9, 1) and len(_versions(ended)) == 15
    report = state_prune(policy=POLICY)
    assert report.checkpoints == 9
    # Newest 3; the wait (v8); the last before the receipt (v11) and the first after it (v12, with its ref).
    assert _versions(ended) == [8, 11, 12, 13, 14, 15]
    assert audit == (Receipt.objects.filter(task=ended).count(), Approval.objects.filter(task=ended).count(),
                     TaskEvent.objects.filter(task=ended).count()) == (1, 1, 15)
    # Each event still says who did what, when and why, as it did before the checkpoints went.
    assert list(TaskEvent.objects.filter(task=ended).order_by("id").values_list(
        "actor", "event", "from_state", "to_state", "version", "at", "reason")) == history
    assert checkpoint_latest(ended, tenant="T1").snapshot["state"] == "done"
    assert checkpoint_load(ended, tenant="T1", version=8).snapshot["state"] == "w"
    assert state_prune(policy=POLICY).checkpoints == 0  # nothing more to do


@pytest.mark.django_db
def test_a_running_task_and_one_that_ended_recently_keep_every_checkpoint(alice, ended):
    running = _run(task_create(kind="retention_test", initiator=alice, tenant="T1"), ["step"] * 10)
    _age(running)
    recent = _run(task_create(kind="retention_test", initiator=alice, tenant="T1"), ["step"] * 10 + ["finish"])
    _age(recent, days=29)
    state_prune(policy=POLICY)
    assert len(_versions(running)) == 11 and len(_versions(recent)) == 12 and len(_versions(ended)) == 6


@pytest.mark.django_db
def test_a_kept_delta_keeps_its_chain_so_a_pruned_task_still_loads_whole(alice, monkeypatch):
    monkeypatch.setattr(machine, "FULL_EVERY", 4)
    state = {"lines": [secrets.token_hex(64) for _ in range(100)], "n": 0}
    task = task_create(kind="retention_test", initiator=alice, tenant="T1", data=state)
    for n in range(1, 10):
        task = fire(task.pk, "step", actor=RUNTIME_ACTOR, data={"n": n})
    task = fire(task.pk, "finish", actor=RUNTIME_ACTOR, data={"n": 10})
    assert list(Checkpoint.objects.filter(task=task).order_by("version").values_list("depth", flat=True)) == [
        0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2]
    _age(task)
    state_prune(policy=Policy(checkpoint_keep_latest=1, checkpoint_keep_days_after_end=30))
    assert _versions(task) == [9, 10, 11]  # the newest is a delta of depth 2: its full snapshot and link stay
    assert checkpoint_latest(task, tenant="T1").snapshot["data"] == {**state, "n": 10}


@pytest.mark.django_db
def test_sessions_go_idle_closed_and_expired_by_time(alice, ended):
    now = timezone.now()

    def session(status, quiet, task=None):
        made = Session.objects.create(owner=alice, status=status, task=task)
        Session.objects.filter(pk=made.pk).update(updated_at=now - quiet)
        return made.pk

    talking = session("active", timedelta(minutes=5))
    quiet = session("active", timedelta(minutes=31))
    finished = session("active", timedelta(minutes=5), task=ended)
    old = session("idle", timedelta(days=91))
    report = state_prune(policy=POLICY, dry_run=True)
    assert dict(report.sessions_moved) == {"idle": 1, "closed": 1, "expired": 1}
    assert set(Session.objects.values_list("status", flat=True)) == {"active", "idle"}
    state_prune(policy=POLICY)
    statuses = dict(Session.objects.values_list("pk", "status"))
    assert [statuses[pk] for pk in (talking, quiet, finished, old)] == ["active", "idle", "closed", "expired"]


@pytest.mark.django_db
def test_a_long_conversation_is_compacted_and_its_old_turns_go_by_the_retention_setting(alice, ended, make_user):
    session = Session.objects.create(owner=alice, task=ended)
    for seq in range(1, 71):
        agent = seq % 2 == 0
        Turn.objects.create(session=session, seq=seq, role="agent" if agent else "user", text=f"words {seq}",
                            data={"task": str(ended.pk), "did": "submit" if seq == 4 else "none"} if agent else {})
    learned_from = Turn.objects.get(session=session, seq=3)
    entry = memory_create(by=make_user("root", is_superuser=True), scope="user", subject="alice", kind="preference",
                          content="prefers 14-inch laptops")
    MemoryEntry.objects.filter(pk=entry.pk).update(source_turn=learned_from)
    state_prune(policy=POLICY)
    session.refresh_from_db()
    assert session.compacted_through == 50 and session.digest["turns"] == 50
    assert session.digest["tasks"] == [str(ended.pk)] and session.digest["actions"] == {"submit": 1}
    assert "words" not in str(session.digest)  # what was said is never copied into the digest
    assert Turn.objects.filter(session=session).count() == 70  # folded, but not older than 180 days yet
    Turn.objects.filter(session=session).update(created_at=timezone.now() - timedelta(days=200))
    report = state_prune(policy=POLICY)
    assert report.turns == 49  # turns 1–50, except the one a memory entry was learned from
    assert list(Turn.objects.filter(session=session, seq__lte=50).values_list("seq", flat=True)) == [3]
    assert Turn.objects.filter(session=session, seq__gt=50).count() == 20


@pytest.mark.django_db
def test_prune_state_dry_run_says_what_would_go_in_plain_words_and_changes_nothing(ended, settings):
    settings.CHECKPOINT_KEEP_LATEST = 3
    out = io.StringIO()
    call_command("prune_state", "--dry-run", stdout=out)
    text = out.getvalue()
    assert "Would delete 9 checkpoints of 1 tasks" in text and "never deleted" in text
    assert len(_versions(ended)) == 15
    call_command("prune_state", stdout=io.StringIO())
    assert len(_versions(ended)) == 6

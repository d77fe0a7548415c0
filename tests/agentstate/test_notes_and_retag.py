"""What the engine offers the app besides fire(): a note that moves nothing, a re-tag of the
tenant as a new version with its event, and a conversation's next turn (DESIGN §4)."""
import pytest

from agentstate.actors import Actor
from agentstate.checkpoints import checkpoint_latest
from agentstate.errors import LeaseLost, StaleVersion
from agentstate.leases import lease_claim
from agentstate.machine import fire, task_note, task_retag
from agentstate.models import Checkpoint, Session, Task, TaskEvent, Turn
from agentstate.turns import turn_append

from tests.agentstate.sample_kind import SAMPLE  # noqa: F401  (registers the kind)

pytestmark = pytest.mark.django_db


def test_a_note_is_written_at_the_current_version_and_moves_nothing(make_task, alice):
    task = make_task("queued")

    note = task_note(task.pk, "checked", actor=alice, reason="looked again", data={"what": "ERP"})

    row = Task.objects.get(pk=task.pk)
    assert (row.state, row.version) == ("queued", task.version)
    assert (note.version, note.from_state, note.to_state, note.actor, note.data) == (
        task.version, "queued", "queued", "alice", {"what": "ERP"})


def test_a_note_of_a_version_that_moved_on_or_a_lost_lease_is_refused_and_writes_nothing(make_task, alice):
    task = make_task("queued")
    lease = lease_claim(task_id=task.pk, worker="w1", seconds=60)
    fire(task.pk, "start", actor=Actor.runtime(), lease_token=lease.token)
    events = TaskEvent.objects.filter(task_id=task.pk).count()

    with pytest.raises(StaleVersion):
        task_note(task.pk, "checked", actor=alice, expected_version=task.version)
    with pytest.raises(LeaseLost):
        task_note(task.pk, "step_failed", actor=Actor.runtime("w2"), lease_token=lease.token + 1)

    assert TaskEvent.objects.filter(task_id=task.pk).count() == events


def test_a_retag_is_a_new_version_with_its_event_and_a_checkpoint_under_the_new_tenant(make_task, alice):
    task = make_task()

    moved = task_retag(task.pk, "T2", actor=alice, expected_version=task.version, reason="filed")

    assert (moved.tenant, moved.version, moved.state) == ("T2", task.version + 1, "draft")
    event = TaskEvent.objects.filter(task_id=task.pk).last()
    assert (event.event, event.version, event.data) == ("retag", moved.version, {"tenant": {"from": "T1", "to": "T2"}})
    assert Checkpoint.objects.filter(task_id=task.pk).last().tenant == "T2"
    assert checkpoint_latest(moved, tenant="T2").version == moved.version
    assert fire(task.pk, "submit", actor=alice, expected_version=moved.version).tenant == "T2"


def test_a_retag_of_a_version_that_moved_on_is_refused_and_the_tenant_stays(make_task, alice):
    task = make_task()
    fire(task.pk, "submit", actor=alice)

    with pytest.raises(StaleVersion):
        task_retag(task.pk, "T2", actor=alice, expected_version=task.version)

    assert Task.objects.get(pk=task.pk).tenant == "T1"
    assert not TaskEvent.objects.filter(task_id=task.pk, event="retag").exists()


def test_turns_are_appended_in_order_and_wake_a_closed_conversation(alice):
    session = Session.objects.create(owner=alice, status=Session.Status.CLOSED)

    first = turn_append(session_id=session.pk, role=Turn.Role.USER, text="hi")
    second = turn_append(session_id=session.pk, role=Turn.Role.AGENT, text="hello", data={"did": "none"})

    assert (first.seq, second.seq) == (1, 2) and second.data["did"] == "none"
    assert Session.objects.get(pk=session.pk).status == Session.Status.ACTIVE

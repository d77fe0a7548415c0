"""What the agent gets as context: active, in scope, currently valid, readable, most specific
first; departed people's memory is never used; every use is recorded by id and version."""
from datetime import timedelta

import pytest
from django.contrib.auth.models import Group
from django.utils import timezone

from agentstate.memory import policy
from agentstate.memory.models import MemoryEntry, MemoryEvent
from agentstate.memory.retrieval import memory_context, memory_retrieve
from agentstate.memory.services import memory_create, memory_propose
from agentstate.models import Session, Turn

from tests.agentstate.memory_support import GroupPolicy, group_policy  # noqa: F401

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("group_policy")]


@pytest.fixture
def root(make_user):
    return make_user("root", is_superuser=True)


@pytest.fixture
def planted(alice, bob, erin, root):
    t1, t2 = Group.objects.create(name="T1"), Group.objects.create(name="T2")
    t1.user_set.add(alice, bob)
    t2.user_set.add(erin)

    def put(scope, subject, content, **kw):
        return memory_create(by=root, scope=scope, subject=subject, kind="fact", content=content, **kw)
    return {
        "org": put("organisation", "", "Fiscal year starts in January"),
        "t1": put("department", "T1", "T1 cost centre is T1-01"),
        "t2": put("department", "T2", "T2 cost centre is T2-01"),
        "alice": put("user", "alice", "Alice prefers Excel"),
        "bob": put("user", "bob", "Bob prefers PDF"),
    }


def texts(user, **kw):
    return [e.content for e in memory_retrieve(user, **kw)]


def test_most_specific_scope_comes_first_and_others_are_out_of_scope(planted, alice, erin):
    assert texts(alice) == ["Alice prefers Excel", "T1 cost centre is T1-01", "Fiscal year starts in January"]
    assert texts(erin) == ["T2 cost centre is T2-01", "Fiscal year starts in January"]


def test_the_limit_keeps_the_most_specific(planted, alice):
    assert texts(alice, limit=2) == ["Alice prefers Excel", "T1 cost centre is T1-01"]


def test_a_task_narrows_the_department_to_the_tasks_own(planted, make_task, alice):
    Group.objects.get(name="T2").user_set.add(alice)
    task = make_task()  # tenant T1
    assert "T2 cost centre is T2-01" in texts(alice)
    assert "T2 cost centre is T2-01" not in texts(alice, task=task)


def test_an_expired_or_not_yet_valid_entry_is_not_used(planted, alice, root):
    now = timezone.now()
    MemoryEntry.objects.filter(pk=planted["alice"].pk).update(valid_until=now - timedelta(seconds=1),
                                                             valid_from=now - timedelta(days=1))
    memory_create(by=root, scope="user", subject="alice", kind="event", content="Moves office next month",
                  valid_from=now + timedelta(days=30))
    assert texts(alice) == ["T1 cost centre is T1-01", "Fiscal year starts in January"]


def test_proposed_and_deleted_entries_are_not_used(planted, alice):
    memory_propose(by=alice, scope="user", subject="alice", kind="fact", content="Unconfirmed idea")
    MemoryEntry.objects.filter(pk=planted["t1"].pk).update(status="deleted", content="")
    assert texts(alice) == ["Alice prefers Excel", "Fiscal year starts in January"]


def test_a_departed_persons_own_memory_is_not_used_whatever_the_policy_says(planted, alice):
    class Careless(GroupPolicy):
        def readable(self, user):  # a policy that forgot to check is_active
            from django.db.models import Q
            return Q()

    type(alice).objects.filter(pk=alice.pk).update(is_active=False)
    alice.refresh_from_db()
    with policy.using(Careless()):
        assert "Alice prefers Excel" not in texts(alice)


def test_every_use_is_an_event_tied_to_the_task_and_turn_with_no_text(planted, make_task, alice):
    task = make_task()
    turn = Turn.objects.create(session=Session.objects.create(owner=alice, task=task), seq=1, role="user", text="hi")
    used = memory_retrieve(alice, task=task, turn=turn)
    uses = MemoryEvent.objects.filter(action="use").order_by("id")
    assert [(u.entry_id, u.entry_version, u.task_id, u.turn_id, u.actor) for u in uses] == [
        (e.pk, e.version, task.pk, turn.pk, alice) for e in used]
    assert all(u.reason == "" for u in uses)


def test_the_context_is_text_for_the_prompt_and_ids_for_the_record(planted, alice):
    context = memory_context(alice)
    assert "Alice prefers Excel" in context.text and "context, not authority" in context.text
    assert context.refs[0] == {"id": str(planted["alice"].pk), "version": 1}
    assert all(set(ref) == {"id", "version"} for ref in context.refs)


def test_nothing_in_scope_gives_an_empty_context(bob):
    assert memory_context(bob).text == "" and not MemoryEvent.objects.exists()

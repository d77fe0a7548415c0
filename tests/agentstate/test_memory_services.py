"""Writing memory in the engine: propose with provenance, confirm by the right person,
correct with history, bad input refused with field messages and nothing stored."""
from datetime import timedelta

import pytest
from django.contrib.auth.models import Group
from django.utils import timezone

from agentstate.errors import Conflict, DomainError, NotFound, NotPermitted
from agentstate.memory.models import MemoryEntry, MemoryEvent, MemoryVersion
from agentstate.memory.retrieval import memory_retrieve
from agentstate.memory.services import memory_confirm, memory_correct, memory_create, memory_propose
from agentstate.models import Session, Turn

from tests.agentstate.memory_support import group_policy  # noqa: F401

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("group_policy")]
DAY = timedelta(days=1)


@pytest.fixture
def groups(alice, bob, erin):
    t1, t2 = Group.objects.create(name="T1"), Group.objects.create(name="T2")
    t1.user_set.add(alice, bob)
    t2.user_set.add(erin)


@pytest.fixture
def root(make_user):
    return make_user("root", is_superuser=True)


@pytest.fixture
def turn(alice):
    session = Session.objects.create(owner=alice)
    return Turn.objects.create(session=session, seq=1, role="user", text="From now on, send me quotes as Excel files.")


def contents(user, **kw):
    return [e.content for e in memory_retrieve(user, **kw)]


def test_a_proposal_from_a_turn_keeps_its_source_by_reference_and_waits(alice, turn):
    entry = memory_propose(turn=turn, scope="user", subject="alice", kind="preference",
                           content="Prefers quotes as Excel attachments")
    assert (entry.status, entry.version, entry.source_kind) == ("proposed", 1, "session")
    assert (entry.source_turn, entry.source_session, entry.created_by) == (turn, turn.session, alice)
    assert turn.text not in entry.content  # the entry points at the turn; it does not copy it
    event = MemoryEvent.objects.get(entry=entry)
    assert (event.action, event.actor, event.turn, event.entry_version) == ("propose", alice, turn, 1)
    assert contents(alice) == []  # not used until confirmed


def test_the_person_it_concerns_confirms_it_and_then_it_is_used(alice, turn):
    entry = memory_propose(turn=turn, scope="user", subject="alice", kind="preference", content="Excel, please")
    confirmed = memory_confirm(entry=entry, by=alice)
    assert (confirmed.status, confirmed.confirmed_by, confirmed.version) == ("active", alice, 1)
    assert confirmed.confirmed_at is not None and confirmed.last_confirmed_at == confirmed.confirmed_at
    assert contents(alice) == ["Excel, please"]


def test_a_colleague_cannot_see_let_alone_confirm_someone_elses_entry(alice, bob, turn):
    entry = memory_propose(turn=turn, scope="user", subject="alice", kind="preference", content="Excel, please")
    with pytest.raises(NotFound):
        memory_confirm(entry=entry, by=bob)
    assert MemoryEntry.objects.get(pk=entry.pk).status == "proposed"


def test_department_memory_is_confirmed_by_its_manager_not_by_a_member(groups, alice, bob, root):
    entry = memory_propose(by=alice, scope="department", subject="T1", kind="fact", content="Cost centre T1-01")
    with pytest.raises(NotPermitted):
        memory_confirm(entry=entry, by=alice)
    assert memory_confirm(entry=entry, by=bob).status == "active"
    other = memory_propose(by=alice, scope="department", subject="T1", kind="term", content="HW means hardware")
    assert memory_confirm(entry=other, by=root).confirmed_by == root


def test_an_outsider_may_not_propose_for_another_department(groups, erin):
    with pytest.raises(NotPermitted):
        memory_propose(by=erin, scope="department", subject="T1", kind="fact", content="T1 buys only Macs")
    assert not MemoryEntry.objects.exists()


def test_only_those_the_policy_names_write_active_entries_directly(alice, root):
    with pytest.raises(NotPermitted):
        memory_create(by=alice, scope="organisation", subject="", kind="term", content="PO means purchase order")
    entry = memory_create(by=root, scope="organisation", subject="", kind="term", content="PO means purchase order")
    assert (entry.status, entry.source_kind, entry.confirmed_by) == ("active", "admin", root)
    assert MemoryEvent.objects.get(entry=entry).action == "create"


def test_a_correction_keeps_the_id_bumps_the_version_and_keeps_the_old_text(alice, root):
    entry = memory_create(by=root, scope="user", subject="alice", kind="preference", content="Prefers PDF")
    corrected = memory_correct(entry=entry.pk, by=alice, content="Prefers Excel", reason="changed her mind")
    assert (corrected.pk, corrected.version, corrected.content) == (entry.pk, 2, "Prefers Excel")
    history = list(MemoryVersion.objects.filter(entry=entry).values_list("version", "status", "content"))
    assert history == [(1, "superseded", "Prefers PDF"), (2, "current", "Prefers Excel")]
    event = MemoryEvent.objects.filter(entry=entry).last()
    assert (event.action, event.entry_version, event.reason) == ("correct", 2, "changed her mind")
    assert contents(alice) == ["Prefers Excel"]  # the next retrieval uses the correction


def test_a_proposed_change_waits_while_the_standing_text_stays_in_use(alice, root, turn):
    entry = memory_create(by=root, scope="user", subject="alice", kind="preference", content="Deliver to 3F")
    memory_propose(entry=entry, turn=turn, content="Deliver to 5F")
    assert contents(alice) == ["Deliver to 3F"]  # a one-off remark does not overwrite the standing one
    assert MemoryEntry.objects.get(pk=entry.pk).version == 1
    confirmed = memory_confirm(entry=entry, by=alice)
    assert (confirmed.version, confirmed.content) == (2, "Deliver to 5F")
    assert contents(alice) == ["Deliver to 5F"]
    assert list(entry.versions.values_list("version", "status")) == [(1, "superseded"), (2, "current")]


def test_a_newer_proposal_replaces_the_pending_one(alice, root):
    entry = memory_create(by=root, scope="user", subject="alice", kind="preference", content="Deliver to 3F")
    memory_propose(entry=entry, by=alice, content="Deliver to 5F")
    memory_propose(entry=entry, by=alice, content="Deliver to 7F")
    assert list(entry.versions.order_by("id").values_list("status", "content")) == [
        ("current", "Deliver to 3F"), ("rejected", "Deliver to 5F"), ("pending", "Deliver to 7F")]
    assert memory_confirm(entry=entry, by=alice).content == "Deliver to 7F"


def test_a_stale_version_is_refused_and_nothing_changes(alice, root):
    entry = memory_create(by=root, scope="user", subject="alice", kind="preference", content="Prefers PDF")
    memory_correct(entry=entry, by=alice, content="Prefers Excel")
    with pytest.raises(Conflict) as refused:
        memory_correct(entry=entry, by=root, content="Prefers Word", expected_version=1)
    assert refused.value.extra["current_version"] == 2
    assert MemoryEntry.objects.get(pk=entry.pk).content == "Prefers Excel"


@pytest.mark.parametrize("field,overrides", [
    ("scope", {"scope": "galaxy"}),
    ("kind", {"kind": "rumour"}),
    ("subject", {"subject": "nobody-by-that-name"}),
    ("content", {"content": "x" * 2001}),
    ("content", {"content": "   "}),
    ("valid_until", {"valid_from": timezone.now() + 2 * DAY, "valid_until": timezone.now() + DAY}),
    ("sensitivity", {"sensitivity": "secret"}),
])
def test_bad_input_names_the_field_and_stores_nothing(root, field, overrides):
    fields = {"scope": "user", "subject": "root", "kind": "fact", "content": "A fact"} | overrides
    with pytest.raises(DomainError) as refused:
        memory_create(by=root, **fields)
    assert field in refused.value.extra["errors"] and refused.value.http_status == 400
    assert not MemoryEntry.objects.exists() and not MemoryEvent.objects.exists()


def test_several_problems_are_reported_together(root):
    with pytest.raises(DomainError) as refused:
        memory_create(by=root, scope="galaxy", subject="", kind="rumour", content="")
    assert set(refused.value.extra["errors"]) == {"scope", "kind", "content"}

"""Procurement's memory rules (DESIGN §8, §9), read from memberships and departments."""
import pytest

from agentstate.errors import NotFound, NotPermitted
from agentstate.memory import policy
from agentstate.memory.retrieval import memory_retrieve
from agentstate.memory.services import memory_confirm, memory_create, memory_propose
from procurement.selectors.memory import ProcurementMemoryPolicy
from procurement.models import Department
from tests.engine_support import task_in_state

pytestmark = pytest.mark.django_db


@pytest.fixture
def entries(demo):
    carol = demo["carol"]

    def put(scope, subject, content, **kw):
        return memory_create(by=carol, scope=scope, subject=subject, kind="fact", content=content, **kw)
    return {
        "alice": put("user", "alice", "Alice prefers Excel"),
        "eng": put("department", "ENG", "ENG cost centre is ENG-01"),
        "eng_secret": put("department", "ENG", "ENG reorg planned", sensitivity="confidential"),
        "ops": put("department", "OPS", "OPS cost centre is OPS-01"),
        "org": put("organisation", "", "Fiscal year starts in January"),
    }


def readers(entry, demo):
    rules = policy.current()
    return sorted(name for name, user in demo.items() if rules.may_read(user, entry))


def test_the_app_registers_its_policy_at_startup():
    assert isinstance(policy.current(), ProcurementMemoryPolicy)


def test_who_reads_what(entries, demo):
    assert readers(entries["alice"], demo) == ["alice", "carol"]
    assert readers(entries["eng"], demo) == ["alice", "bob", "carol", "frank"]
    assert readers(entries["eng_secret"], demo) == ["bob", "carol"]
    assert readers(entries["ops"], demo) == ["carol", "dave", "erin", "frank"]
    assert readers(entries["org"], demo) == sorted(demo)


def test_the_readable_filter_agrees_with_may_read(entries, demo):
    from agentstate.memory.models import MemoryEntry

    rules = policy.current()
    for user in demo.values():
        listed = set(MemoryEntry.objects.filter(rules.readable(user)).values_list("pk", flat=True))
        assert listed == {e.pk for e in entries.values() if rules.may_read(user, e)}, user.username


def test_department_memory_is_confirmed_by_its_manager_or_an_admin_only(demo):
    proposed = [memory_propose(by=demo["alice"], scope="department", subject="ENG", kind="term", content=f"T{n}")
                for n in range(3)]
    with pytest.raises(NotPermitted):
        memory_confirm(entry=proposed[0], by=demo["alice"])  # she proposed it: she reads it, may not confirm it
    # A proposal is read only by its proposer and those who may confirm it: to the others it is not there.
    for outsider in ("frank", "dave"):  # a director, another department's manager
        with pytest.raises(NotFound):
            memory_confirm(entry=proposed[0], by=demo[outsider])
    assert memory_confirm(entry=proposed[0], by=demo["bob"]).status == "active"
    assert memory_confirm(entry=proposed[1], by=demo["carol"]).status == "active"


def test_department_manager_field_alone_is_enough_to_confirm(demo, make_user):
    from procurement.models import Membership

    grace = make_user("grace")
    Membership.objects.create(user=grace, department=Department.objects.get(code="OPS"), role="requester")
    Department.objects.filter(code="OPS").update(manager=grace)
    entry = memory_propose(by=demo["erin"], scope="department", subject="OPS", kind="fact", content="Ships Fridays")
    assert memory_confirm(entry=entry, by=grace).confirmed_by == grace


def test_organisation_memory_is_proposed_by_anyone_and_confirmed_by_admins(demo):
    entry = memory_propose(by=demo["erin"], scope="organisation", subject="", kind="term", content="HW = hardware")
    with pytest.raises(NotPermitted):
        memory_confirm(entry=entry, by=demo["erin"])  # she proposed it
    with pytest.raises(NotFound):  # not an admin: the proposal is not there for him
        memory_confirm(entry=entry, by=demo["frank"])
    assert memory_confirm(entry=entry, by=demo["carol"]).status == "active"
    with pytest.raises(NotPermitted):
        memory_create(by=demo["bob"], scope="organisation", subject="", kind="term", content="PO = order")


def test_a_manager_writes_their_department_directly_but_not_another(demo):
    assert memory_create(by=demo["bob"], scope="department", subject="ENG", kind="fact",
                         content="Laptops go through IT").status == "active"
    with pytest.raises(NotPermitted):
        memory_create(by=demo["bob"], scope="department", subject="OPS", kind="fact", content="Chairs from Kaohsiung")


def test_context_for_a_task_uses_the_tasks_department(entries, demo):
    task = task_in_state(kind="purchase", initiator=demo["frank"], tenant="OPS", state="processing")
    assert [e.content for e in memory_retrieve(demo["frank"], task=task)] == [
        "OPS cost centre is OPS-01", "Fiscal year starts in January"]
    assert [e.content for e in memory_retrieve(demo["alice"])] == [
        "Alice prefers Excel", "ENG cost centre is ENG-01", "Fiscal year starts in January"]


def test_unreadable_entries_do_not_crowd_out_readable_ones_in_context(demo):
    carol = demo["carol"]
    for n in range(3):
        memory_create(by=carol, scope="department", subject="ENG", kind="fact", content=f"ENG fact {n}")
    for n in range(45):  # newer than the facts, and only for ENG's manager: two pages of candidates to skip
        memory_create(by=carol, scope="department", subject="ENG", kind="fact", content=f"Secret {n}",
                      sensitivity="confidential")
    assert sorted(e.content for e in memory_retrieve(demo["alice"], limit=5)) == [
        "ENG fact 0", "ENG fact 1", "ENG fact 2"]
    assert [e.content for e in memory_retrieve(demo["bob"], limit=2)] == ["Secret 44", "Secret 43"]


def test_two_roles_in_one_department_do_not_repeat_its_memory(entries, demo):
    from procurement.models import Membership

    Membership.objects.create(user=demo["bob"], department=Department.objects.get(code="ENG"), role="requester")
    used = [e.pk for e in memory_retrieve(demo["bob"])]
    assert len(used) == len(set(used)) == 3  # ENG, ENG confidential (bob manages ENG), organisation

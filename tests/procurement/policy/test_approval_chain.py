"""Approval chains from the policy (DESIGN §7): frozen when the approval opens, decided step by
step, each step bound to the version the approver saw; nobody decides their own request or
twice in one chain."""
import pytest
from django.test import Client
from django.urls import reverse

from agentstate.models import Approval, ApprovalDecision
from procurement.models import PolicyRule, PolicyStep
from procurement.policy.rules import policy_publish

from tests.procurement.policy_support import LARGE, MIDDLE, SMALL, api, body, decide, pending, submit

pytestmark = pytest.mark.django_db(transaction=True)


def chain_of(user, approval) -> list[tuple]:
    return [(s["role"], s["status"], s["decided_by"], s["on_behalf_of"]) for s in body(user, approval).json()["chain"]]


def test_a_small_request_has_one_step_decided_by_the_manager(demo, erp, eager):
    task = submit(demo["alice"], SMALL)
    approval = pending(task)
    assert [s["role"] for s in approval.chain] == ["manager"]
    assert approval.rule["policy_version"] == 1 and body(demo["bob"], approval).json()["policy_version"] == 1
    assert decide(demo["bob"], approval).status_code == 200
    task.refresh_from_db()
    assert task.state == "externally_confirmed"
    assert chain_of(demo["bob"], approval) == [("manager", "approved", "bob", None)]


def test_in_a_two_step_chain_one_decision_is_not_enough(demo, erp, eager):
    task = submit(demo["alice"], MIDDLE)
    approval = pending(task)
    assert [s["role"] for s in approval.chain] == ["manager", "director"]
    # The director waits for the manager: step 1 is not his, and he does not see it as his yet.
    assert decide(demo["frank"], approval).status_code == 403
    first = decide(demo["bob"], approval)
    assert first.status_code == 200 and first.json()["status"] == "pending"
    task.refresh_from_db()
    assert task.state == "awaiting_approval" and task.data.get("purchase_order") is None
    assert erp.purchase_orders() == []
    assert chain_of(demo["frank"], approval) == [("manager", "approved", "bob", None),
                                                  ("director", "pending", None, None)]
    # The approval followed the task to the version the step moved it to.
    approval.refresh_from_db()
    assert approval.state_version == task.version and approval.step == 1
    assert [a["id"] for a in api(demo["frank"]).get("/api/v1/approvals/", {"status": "pending"}).json()["results"]] \
        == [str(approval.pk)]
    assert api(demo["bob"]).get("/api/v1/approvals/", {"status": "pending"}).json()["results"] == []
    assert decide(demo["frank"], approval).status_code == 200
    task.refresh_from_db()
    assert task.state == "externally_confirmed" and len(erp.purchase_orders()) == 1


def test_a_click_from_a_page_opened_before_the_previous_step_is_refused_409(demo, erp, eager):
    task = submit(demo["alice"], MIDDLE)
    approval = pending(task)
    seen = approval.state_version
    decide(demo["bob"], approval)
    response = decide(demo["frank"], approval, version=seen)
    assert response.status_code == 409 and response.json()["current_version"] == seen + 1
    assert pending(task).step == 1


def test_1_2_million_goes_manager_then_director_then_finance_in_order(demo, erp, eager):
    task = submit(demo["alice"], LARGE)
    approval = pending(task)
    assert [s["role"] for s in approval.chain] == ["manager", "director", "finance"]
    assert [s["usernames"] for s in approval.chain] == [["bob"], ["frank"], ["carol"]]
    for early in ("frank", "carol"):
        assert decide(demo[early], approval).status_code == 403  # not their step yet
    for person in ("bob", "frank"):
        assert decide(demo[person], approval).status_code == 200
        task.refresh_from_db()
        assert task.state == "awaiting_approval" and erp.purchase_orders() == []
    assert decide(demo["carol"], approval).status_code == 200
    task.refresh_from_db()
    assert task.state == "externally_confirmed" and len(erp.purchase_orders()) == 1
    assert chain_of(demo["carol"], approval) == [("manager", "approved", "bob", None),
                                                  ("director", "approved", "frank", None),
                                                  ("finance", "approved", "carol", None)]
    assert [e for e in task.events.values_list("event", flat=True) if "approve" in e] == [
        "approve_step", "approve_step", "approve"]


def test_a_reject_at_the_second_step_ends_it_and_nothing_is_ordered(demo, erp, eager):
    task = submit(demo["alice"], MIDDLE)
    approval = pending(task)
    decide(demo["bob"], approval)
    assert decide(demo["frank"], approval, "reject").status_code == 400  # a reason is required
    assert decide(demo["frank"], approval, "reject", comment="Not this quarter").status_code == 200
    task.refresh_from_db()
    assert task.state == "rejected" and erp.purchase_orders() == []
    assert chain_of(demo["frank"], approval)[1][:3] == ("director", "rejected", "frank")


def test_nobody_decides_their_own_request(demo, erp, eager):
    task = submit(demo["bob"], SMALL)
    approval = pending(task)
    assert demo["bob"].pk not in approval.chain[0]["user_ids"]
    response = decide(demo["bob"], approval)
    assert response.status_code in (403, 404) and Approval.objects.get(pk=approval.pk).status == "pending"


def test_nobody_decides_twice_in_one_chain(demo, erp, eager):
    rule = PolicyRule.objects.get(name__startswith="ENG: manager then director")
    PolicyStep.objects.filter(rule=rule, position=1).update(role="director", within_limit=False, backup_role="",
                                                           escalate_after=None)
    PolicyStep.objects.filter(rule=rule, position=2).update(role="", user=demo["frank"])
    policy_publish(by=demo["carol"])
    task = submit(demo["alice"], MIDDLE)
    approval = pending(task)
    assert decide(demo["frank"], approval).status_code == 200
    response = decide(demo["frank"], approval)
    assert response.status_code == 403 and "twice" in response.json()["detail"]
    assert ApprovalDecision.objects.filter(approval=approval).count() == 1
    task.refresh_from_db()
    assert task.state == "awaiting_approval"


def test_a_policy_edit_leaves_open_approvals_on_their_frozen_chain(demo, erp, eager):
    task = submit(demo["alice"], MIDDLE)
    before = pending(task)
    rule = PolicyRule.objects.get(name__startswith="ENG: manager then director")
    PolicyStep.objects.create(rule=rule, position=3, role="finance")
    assert policy_publish(by=demo["carol"]).version == 2
    later = pending(submit(demo["alice"], MIDDLE))
    assert [s["role"] for s in later.chain] == ["manager", "director", "finance"] and later.rule["policy_version"] == 2
    before.refresh_from_db()
    assert [s["role"] for s in before.chain] == ["manager", "director"] and before.rule["policy_version"] == 1
    decide(demo["bob"], before)
    decide(demo["frank"], before)
    task.refresh_from_db()
    assert task.state == "externally_confirmed"  # two steps, as when it opened


@pytest.mark.parametrize("language, words", [
    ("en", ["Approval policy v1, rule: Engineering · ", "Step 1", "Step 2", "department manager (Bob Wang)", "Bob Wang approved, ",
            "waiting now", "director (Frank Chang)"]),
    ("zh-hant", ["核准政策 v1，適用規則：工程部 · ", "第 1 關", "第 2 關", "部門主管（Bob Wang）", "Bob Wang 核准，", "等待中", "處長（Frank Chang）"])])
def test_the_approval_page_shows_the_policy_version_and_the_chain_in_words(demo, erp, eager, language, words):
    task = submit(demo["alice"], MIDDLE)
    approval = pending(task)
    decide(demo["bob"], approval)
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(demo["frank"])
    page = client.get(reverse("approval-page", args=[approval.pk]))
    text = page.content.decode()
    assert page.status_code == 200 and 'aria-current="step"' in text and 'name="decision"' in text
    for word in words:
        assert word in text, word
    assert "ENG ·" not in text  # the rule's department by name, not its code


def test_decided_by_me_lists_the_chains_i_decided_a_step_of_by_date_those_still_waiting_first(demo, erp, eager):
    own = pending(submit(demo["alice"], SMALL))
    assert decide(demo["bob"], own).status_code == 200
    finished = pending(submit(demo["alice"], MIDDLE))
    assert decide(demo["bob"], finished).status_code == 200 and decide(demo["frank"], finished).status_code == 200
    waiting = pending(submit(demo["alice"], MIDDLE))
    assert decide(demo["bob"], waiting).status_code == 200
    bob = Client()
    bob.force_login(demo["bob"])
    body = bob.get(reverse("approval-inbox"), {"tab": "decided"}).content.decode()
    where = [body.find(reverse("approval-page", args=[a.pk])) for a in (waiting, finished, own)]
    assert -1 not in where and where == sorted(where), "waiting on the director, then frank's, then bob's own"

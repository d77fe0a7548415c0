"""A manager's own request (DESIGN §7): nobody decides their own request, so a step only she
could decide goes to the next level up (left out when a later step is that level), and when
nobody above her can decide it the request goes to review saying why. The chain stays frozen on
the approval with the policy version."""
import pytest

from agentstate.models import Approval
from procurement.models import Notice
from procurement.models.policy import Delegation

from tests.procurement.policy_support import LARGE, api, body, decide, pending, submit

pytestmark = pytest.mark.django_db(transaction=True)

ONE_LAPTOP = [{"description": "Laptop", "quantity": 1}]     # NT$36,645: within bob's own limit
FOUR_LAPTOPS = [{"description": "Laptop", "quantity": 4}]   # NT$146,580: manager then director
# LARGE (NT$1,209,285): manager, director, finance


def roles_and_people(approval) -> list[tuple]:
    return [(step["role"], step["usernames"]) for step in approval.chain]


def test_bob_own_request_within_his_limit_is_decided_by_the_director_in_his_place(demo, erp, eager):
    task = submit(demo["bob"], ONE_LAPTOP)
    approval = pending(task)
    assert roles_and_people(approval) == [("manager", ["frank"])]
    assert approval.chain[0]["handed_to"] == "director" and approval.chain[0]["without_requester"] == "bob"
    assert approval.rule["policy_version"] == 1
    assert decide(demo["bob"], approval).status_code == 403
    assert decide(demo["frank"], approval).status_code == 200
    task.refresh_from_db()
    assert task.state == "externally_confirmed"


def test_bob_own_150k_request_goes_to_the_director_then_finance_in_place_of_his_step(demo, erp, eager):
    # alice's would need bob and frank: bob's own keeps two approvers besides him, the next level up taking his.
    task = submit(demo["bob"], FOUR_LAPTOPS)
    task.refresh_from_db()
    assert task.state == "awaiting_approval", [e.reason for e in task.events.all()]
    approval = pending(task)
    assert roles_and_people(approval) == [("director", ["frank"]), ("finance", ["carol"])]
    assert approval.chain[1]["in_place_of"] == {"role": "manager", "requester": "bob"}
    assert approval.rule["policy_rule"] == "ENG: manager then director, over NT$100,000"
    assert approval.rule["policy_version"] == 1
    assert [s["role"] for s in body(demo["frank"], approval).json()["chain"]] == ["director", "finance"]
    assert decide(demo["bob"], approval).status_code == 403
    assert decide(demo["carol"], approval).status_code == 403  # not her step yet
    assert decide(demo["frank"], approval).status_code == 200
    task.refresh_from_db()
    assert task.state == "awaiting_approval" and erp.purchase_orders() == []
    assert decide(demo["carol"], approval).status_code == 200
    task.refresh_from_db()
    assert task.state == "externally_confirmed" and len(erp.purchase_orders()) == 1


def test_bob_own_large_request_leaves_his_step_to_the_director_and_finance_already_on_it(demo, erp, eager):
    task = submit(demo["bob"], LARGE)
    approval = pending(task)
    assert roles_and_people(approval) == [("director", ["frank"]), ("finance", ["carol"])]
    assert approval.chain[0]["covers"] == [{"role": "manager", "requester": "bob"}]
    assert decide(demo["carol"], approval).status_code == 403  # not her step yet
    assert decide(demo["frank"], approval).status_code == 200
    task.refresh_from_db()
    assert task.state == "awaiting_approval"
    assert decide(demo["carol"], approval).status_code == 200
    task.refresh_from_db()
    assert task.state == "externally_confirmed"


def test_alice_request_keeps_bob_on_his_manager_step(demo, erp, eager):
    approval = pending(submit(demo["alice"], FOUR_LAPTOPS))
    assert roles_and_people(approval) == [("manager", ["bob"]), ("director", ["frank"])]
    assert "covers" not in approval.chain[1] and "without_requester" not in approval.chain[0]
    assert "in_place_of" not in approval.chain[1]


def test_when_only_the_requester_could_decide_a_step_it_goes_to_review_saying_so(demo, erp, eager):
    # carol is the only finance person: her own NT$1.2M request has nobody above her to decide step 3.
    task = submit(demo["carol"], LARGE)
    task.refresh_from_db()
    assert task.state == "needs_review" and not Approval.objects.filter(task=task).exists()
    reason = task.events.last().reason
    assert reason == ("only carol, the requester, could decide step 3 of the approval chain, and nobody decides "
                      "their own request: a person must choose who approves it")
    [notice] = Notice.objects.filter(recipient=demo["carol"], kind="needs_review")
    assert "only Carol Wu, the requester, could decide step 3" in notice.text  # by her name, as pages name her


def test_the_review_reason_reads_in_chinese(demo, erp, eager):
    from procurement.people.language import user_language_set

    user_language_set(user=demo["carol"], language="zh-hant")
    task = submit(demo["carol"], LARGE)
    [notice] = Notice.objects.filter(recipient=demo["carol"], kind="needs_review")
    assert "申請人 Carol Wu 本人" in notice.text and "requester" not in notice.text
    events = api(demo["carol"], "zh-hant").get(f"/api/v1/tasks/{task.pk}/").json()["events"]
    assert events


def test_bob_standing_in_for_frank_still_never_decides_his_own_request(demo, erp, eager):
    from django.utils import timezone

    today = timezone.localdate()
    Delegation.objects.create(delegator=demo["frank"], delegate=demo["bob"], starts=today, ends=today)
    task = submit(demo["bob"], FOUR_LAPTOPS)
    approval = pending(task)
    response = decide(demo["bob"], approval)
    assert response.status_code == 403 and "own request" in response.json()["detail"]
    assert api(demo["bob"]).get("/api/v1/approvals/", {"status": "pending"}).json()["results"] == []
    assert not Notice.objects.filter(recipient=demo["bob"], kind="approval_new").exists()
    assert Notice.objects.filter(recipient=demo["frank"], kind="approval_new").exists()
    waiting = api(demo["bob"]).get("/api/v1/requests/").json()["results"][0]["waiting_on"]
    assert waiting["people"] == ["frank"] and "Bob Wang on behalf of" not in waiting["text"]
    assert Approval.objects.get(pk=approval.pk).status == "pending"


def test_the_approver_taking_bob_step_hears_it_comes_to_them_because_bob_made_it(demo, erp, eager):
    approval = pending(submit(demo["bob"], FOUR_LAPTOPS))
    assert "Bob Wang made this request" not in Notice.objects.get(recipient=demo["frank"], kind="approval_new").text
    assert decide(demo["frank"], approval).status_code == 200
    notice = Notice.objects.get(recipient=demo["carol"], kind="approval_new")
    assert "Bob Wang made this request and does not decide their own request, so it comes to you." in notice.text

"""`/api/v1/approvals/`: the people on a route see, and decide, exactly the version they saw."""
import threading
from decimal import Decimal

import pytest
from django.db import connection
from rest_framework.test import APIClient

from agentstate.models import Approval, Task
from procurement.models import Membership

pytestmark = pytest.mark.django_db(transaction=True)

APPROVALS = "/api/v1/approvals/"
LAPTOPS = [{"description": "Laptop", "quantity": 2}]


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def submit(user, lines=LAPTOPS) -> dict:
    response = client_for(user).post("/api/v1/tasks/", {"department": "ENG", "lines": lines,
                                                        "justification": "two new hires"}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def pending_for(user) -> list[dict]:
    return client_for(user).get(APPROVALS, {"status": "pending"}).json()["results"]


def decide(user, approval: dict, decision="approve", **extra):
    body = {"decision": decision, "state_version": approval["state_version"], **extra}
    return client_for(user).post(f"{APPROVALS}{approval['id']}/decision/", body, format="json")


def test_approved_request_ends_with_one_requisition_and_one_purchase_order(demo, erp, eager):
    task = submit(demo["alice"])
    assert task["state"] == "awaiting_approval"
    [approval] = pending_for(demo["bob"])
    assert approval["task"] == task["id"] and approval["scope"]["total"] == "73290.00"
    assert approval["expires_at"].endswith("+08:00")
    response = decide(demo["bob"], approval, scope_hash=approval["scope_hash"])
    assert response.status_code == 200, response.json()
    assert (response.json()["status"], response.json()["decided_by"]) == ("approved", "bob")
    body = client_for(demo["alice"]).get(f"/api/v1/tasks/{task['id']}/").json()
    assert body["state"] == "externally_confirmed"
    assert sorted((r["operation"], r["status"]) for r in body["receipts"]) == [
        ("erp.purchase_order.issue", "confirmed"), ("erp.requisition.create", "confirmed")]
    assert len(erp.requisitions()) == 1 and len(erp.purchase_orders()) == 1
    assert pending_for(demo["bob"]) == []


def test_each_approver_sees_only_the_approvals_on_their_route(demo, erp, eager):
    task = submit(demo["alice"])
    assert [a["task"] for a in pending_for(demo["bob"])] == [task["id"]]
    assert [a["task"] for a in pending_for(demo["frank"])] == [task["id"]]
    assert pending_for(demo["dave"]) == [] and pending_for(demo["alice"]) == []
    listing = client_for(demo["bob"]).get(APPROVALS).json()
    assert listing.keys() == {"count", "next", "previous", "results"} and listing["count"] == 1


def test_status_filter_follows_the_decision(demo, erp, eager):
    submit(demo["alice"])
    [approval] = pending_for(demo["bob"])
    decide(demo["bob"], approval)
    bob = client_for(demo["bob"])
    assert bob.get(APPROVALS, {"status": "pending"}).json()["count"] == 0
    assert [a["id"] for a in bob.get(APPROVALS, {"status": "approved"}).json()["results"]] == [approval["id"]]
    response = bob.get(APPROVALS, {"status": "maybe"})
    assert response.status_code == 400 and response.json()["errors"]["status"]


def test_an_approval_is_hidden_from_everyone_off_its_route_but_admins(demo, erp, eager):
    submit(demo["alice"])
    [approval] = pending_for(demo["bob"])
    path = f"{APPROVALS}{approval['id']}/"
    assert client_for(demo["bob"]).get(path).json()["scope_hash"] == approval["scope_hash"]
    assert client_for(demo["carol"]).get(path).status_code == 200
    for outsider in ("dave", "alice", "erin"):
        response = client_for(demo[outsider]).get(path)
        assert response.status_code == 404 and response.json() == {"detail": "No such approval."}
    assert client_for(demo["bob"]).get(f"{APPROVALS}nonsense/").status_code == 404


def test_dave_of_ops_cannot_decide_an_eng_approval(demo, erp, eager):
    submit(demo["alice"])
    [approval] = pending_for(demo["bob"])
    assert decide(demo["dave"], approval).status_code == 404
    assert Approval.objects.get(pk=approval["id"]).status == "pending"


def test_the_requester_cannot_decide_her_own_request(demo, erp, eager):
    submit(demo["alice"])
    [approval] = pending_for(demo["bob"])
    assert decide(demo["alice"], approval).status_code == 404
    assert Approval.objects.get(pk=approval["id"]).status == "pending"


def test_a_manager_whose_limit_was_lowered_is_refused_with_403(demo, erp, eager):
    submit(demo["alice"])
    [approval] = pending_for(demo["bob"])
    Membership.objects.filter(user=demo["bob"], role="manager").update(approval_limit=Decimal("1000"))
    response = decide(demo["bob"], approval)
    assert response.status_code == 403 and "limit" in response.json()["detail"]
    assert Approval.objects.get(pk=approval["id"]).status == "pending"


def test_two_identical_clicks_decide_once(demo, erp, eager):
    submit(demo["alice"])
    [approval] = pending_for(demo["bob"])
    first, second = decide(demo["bob"], approval), decide(demo["bob"], approval)
    assert (first.status_code, second.status_code) == (200, 409)
    assert second.json()["current_version"] > approval["state_version"] and second.json()["detail"]
    assert len(erp.purchase_orders()) == 1


@pytest.mark.postgres
def test_two_concurrent_clicks_on_postgres_give_one_200_and_one_409(demo, erp, eager):
    task = submit(demo["alice"])
    [approval] = pending_for(demo["bob"])
    start, codes = threading.Barrier(2), []

    def click():
        try:
            start.wait()
            codes.append(decide(demo["bob"], approval).status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=click) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(codes) == [200, 409]
    assert Task.objects.get(pk=task["id"]).state == "externally_confirmed"
    assert len(erp.purchase_orders()) == 1


def test_deciding_the_version_before_an_amendment_is_refused_with_409(demo, erp, eager):
    task = submit(demo["alice"])
    [seen] = pending_for(demo["bob"])
    amended = client_for(demo["alice"]).patch(f"/api/v1/tasks/{task['id']}/", {
        "lines": [{"description": "Laptop", "quantity": 1}]}, format="json").json()
    response = decide(demo["bob"], seen, scope_hash=seen["scope_hash"])
    assert response.status_code == 409
    assert response.json()["current_version"] == amended["version"] and response.json()["detail"]
    [fresh] = pending_for(demo["bob"])
    assert fresh["id"] != seen["id"] and fresh["scope"]["total"] == "36645.00"
    assert decide(demo["bob"], fresh, scope_hash=fresh["scope_hash"]).status_code == 200


def test_a_scope_other_than_the_one_shown_is_refused_with_409(demo, erp, eager):
    submit(demo["alice"])
    [approval] = pending_for(demo["bob"])
    response = decide(demo["bob"], approval, scope_hash="0" * 64)
    assert response.status_code == 409
    assert Approval.objects.get(pk=approval["id"]).status == "pending"


@pytest.mark.parametrize("decision", ["reject", "return"])
def test_reject_or_return_without_a_comment_is_refused_with_400(demo, erp, eager, decision):
    submit(demo["alice"])
    [approval] = pending_for(demo["bob"])
    response = decide(demo["bob"], approval, decision=decision, comment="  ")
    assert response.status_code == 400 and response.json()["errors"]["comment"]
    assert Approval.objects.get(pk=approval["id"]).status == "pending"


def test_a_return_without_a_comment_is_refused_in_the_users_language(demo, erp, eager):
    submit(demo["alice"])
    [approval] = pending_for(demo["bob"])
    client = client_for(demo["bob"])
    response = client.post(f"{APPROVALS}{approval['id']}/decision/", {
        "decision": "return", "state_version": approval["state_version"], "comment": ""},
        format="json", headers={"accept-language": "zh-hant"})
    assert response.status_code == 400
    assert response.json()["detail"] == "退回時必須填寫意見。"
    assert response.json()["errors"]["comment"] == ["此為必需欄位。"]


def test_reject_with_a_comment_ends_the_request_and_cancels_the_requisition(demo, erp, eager):
    task = submit(demo["alice"])
    [approval] = pending_for(demo["bob"])
    response = decide(demo["bob"], approval, decision="reject", comment="Not this quarter")
    assert response.status_code == 200
    assert (response.json()["status"], response.json()["comment"]) == ("rejected", "Not this quarter")
    assert client_for(demo["alice"]).get(f"/api/v1/tasks/{task['id']}/").json()["state"] == "rejected"
    assert [r["status"] for r in erp.requisitions()] == ["cancelled"]


@pytest.mark.parametrize("body, field", [
    ({"decision": "maybe", "state_version": 3}, "decision"),
    ({"decision": "approve"}, "state_version"),
    ({"decision": "approve", "state_version": "3"}, "state_version"),
    ({"decision": "approve", "state_version": True}, "state_version"),
])
def test_a_malformed_decision_is_refused_with_400_and_nothing_is_decided(demo, erp, eager, body, field):
    submit(demo["alice"])
    [approval] = pending_for(demo["bob"])
    response = client_for(demo["bob"]).post(f"{APPROVALS}{approval['id']}/decision/", body, format="json")
    assert response.status_code == 400 and response.json()["errors"][field]
    assert Approval.objects.get(pk=approval["id"]).status == "pending"

"""`GET /api/v1/review-queue/` and `POST /api/v1/review-queue/{task id}/{action}/` (DESIGN §10)."""
import pytest
from rest_framework.test import APIClient

from agentstate.models import Receipt, Task, TaskEvent
from procurement.infra import erp as erp_ops
from procurement.purchase import services

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
QUEUE = "/api/v1/review-queue/"


@pytest.fixture
def in_review(demo, erp, eager):
    erp.fault(mode="down", path="/requisitions")
    task = services.request_submit(requester=demo["alice"], department="ENG", justification="new hires",
                                   lines=[{"description": "Laptop", "quantity": 2}])
    return Task.objects.get(pk=task.pk)


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def post(user, task, action, body):
    return client_for(user).post(f"{QUEUE}{task.pk}/{action}/", body, format="json")


def test_the_queue_lists_the_task_with_why_and_the_receipts_in_doubt(in_review, demo):
    body = client_for(demo["bob"]).get(QUEUE).json()

    [row] = body["results"]
    assert body["count"] == 1 and row["id"] == str(in_review.pk) and row["version"] == in_review.version
    assert "result pending verification" in row["reason"] and row["since"]
    assert row["number"] == in_review.purchase_request.number and row["number"].startswith("REQ-")
    assert [(r["operation"], r["status"]) for r in row["receipts"]] == [(erp_ops.CREATE_REQUISITION, "unknown")]
    assert row["actions"] == ["reconcile", "record-outcome", "retry", "cancel"]
    assert client_for(demo["alice"]).get(QUEUE).json()["count"] == 0
    assert client_for(demo["dave"]).get(QUEUE).json()["count"] == 0


def test_reconcile_once_the_erp_answers__200_and_the_event(in_review, demo, erp):
    erp.clear_faults()

    answer = post(demo["carol"], in_review, "reconcile", {"reason": "ERP is back", "version": in_review.version})

    assert answer.status_code == 200, answer.json()
    assert answer.json()["state"] in ("processing", "awaiting_approval") and answer.json()["outcome"]
    assert TaskEvent.objects.get(task_id=in_review.pk, event="reconcile").actor == "carol"


def test_record_outcome_takes_the_external_id(demo, erp, eager):
    erp.fault(mode="drop", path="/requisitions", method="POST", times=1)
    erp.fault(mode="down", path="/requisitions", method="GET")
    task = services.request_submit(requester=demo["alice"], department="ENG", justification="new hires",
                                   lines=[{"description": "Laptop", "quantity": 2}])
    erp.clear_faults()
    [requisition] = erp.requisitions()

    missing = post(demo["carol"], task, "record-outcome", {"reason": "looked it up"})
    assert missing.status_code == 400 and "external_id" in missing.json()["errors"]
    answer = post(demo["carol"], task, "record-outcome", {"reason": "looked it up", "external_id": requisition["id"]})

    assert answer.status_code == 200, answer.json()
    assert Receipt.objects.get(task_id=task.pk, operation=erp_ops.CREATE_REQUISITION).external_id == requisition["id"]
    assert TaskEvent.objects.get(task_id=task.pk, event="record_outcome").actor == "carol"


def test_retry_and_cancel_each_leave_their_event(in_review, demo, erp):
    erp.clear_faults()
    assert post(demo["bob"], in_review, "retry", {"reason": "again"}).status_code == 200
    assert TaskEvent.objects.filter(task_id=in_review.pk, event="retry", actor="bob").exists()

    gone = post(demo["bob"], in_review, "cancel", {"reason": "too late now", "version": in_review.version})

    assert gone.status_code == 409, "the task left review meanwhile"
    assert gone.json()["current_version"] == Task.objects.get(pk=in_review.pk).version
    assert "changed since you looked" in gone.json()["detail"]


def test_cancel_in_review_answers_the_task_cancelled_with_the_event(in_review, demo, erp):
    erp.clear_faults()
    answer = post(demo["carol"], in_review, "cancel", {"reason": "not needed"})
    assert answer.status_code == 200 and TaskEvent.objects.filter(task_id=in_review.pk, event="cancel").exists()
    assert Task.objects.get(pk=in_review.pk).state == "cancelled"


@pytest.mark.parametrize("who, status", [("alice", 403), ("erin", 404), ("dave", 404)])
def test_who_may_act(in_review, demo, who, status):
    answer = post(demo[who], in_review, "retry", {"reason": "x"})
    assert answer.status_code == status and answer.json()["detail"]
    assert Task.objects.get(pk=in_review.pk).version == in_review.version


def test_bad_input_and_unknown_actions(in_review, demo):
    assert post(demo["carol"], in_review, "retry", {}).json()["errors"]["reason"]
    assert post(demo["carol"], in_review, "explode", {"reason": "x"}).status_code == 404
    assert client_for(demo["carol"]).post(f"{QUEUE}not-a-uuid/retry/", {"reason": "x"}, format="json").status_code == 404
    assert APIClient().get(QUEUE).status_code == 401

"""An approval click and a confirmed rewind of the same request, released together on PostgreSQL
with real threads: whichever wins, the ERP's requisitions and orders agree with the task's state
and receipts, and the race never sends the request to review (DESIGN §6, §13)."""
import threading

import pytest
from django.db import connection
from rest_framework.test import APIClient

from agentstate.models import Approval, Receipt, Task
from procurement.infra import erp as erp_ops
from procurement.purchase import services
from procurement.history import timetravel as tt

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

ROUNDS = 20


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def race_once(demo):
    task = services.request_submit(requester=demo["alice"], department="ENG", justification="new hires",
                                   lines=[{"description": "Laptop", "quantity": 2}])
    task = Task.objects.get(pk=task.pk)
    assert task.state == "awaiting_approval"
    approval = Approval.objects.get(task_id=task.pk, status="pending")
    point = next(c.id for c in tt.task_checkpoints(user=demo["carol"], task_id=task.pk)
                 if c.cursor == "award" and c.state == "processing")
    start, codes = threading.Barrier(2), {}

    def approve():
        codes["approve"] = client_for(demo["bob"]).post(
            f"/api/v1/approvals/{approval.pk}/decision/",
            {"decision": "approve", "state_version": approval.state_version}, format="json")

    def rewind():
        codes["rewind"] = client_for(demo["carol"]).post(
            f"/api/v1/tasks/{task.pk}/rewind/",
            {"checkpoint": point, "confirm": True, "version": task.version}, format="json")

    def released(action):
        def run():
            try:
                start.wait()
                action()
            finally:
                connection.close()
        return run

    threads = [threading.Thread(target=released(a)) for a in (approve, rewind)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return Task.objects.get(pk=task.pk), codes


def erp_agrees(erp, task):
    """The ERP's objects for this task, and what the task's receipts say of them, are the same."""
    receipts = Receipt.objects.filter(task_id=task.pk)
    created = {r.external_id for r in receipts.filter(operation=erp_ops.CREATE_REQUISITION, status="confirmed")}
    cancelled = {r.scope for r in receipts.filter(operation=erp_ops.CANCEL_REQUISITION, status="confirmed")}
    ordered = {r.external_id for r in receipts.filter(operation=erp_ops.ISSUE_PURCHASE_ORDER, status="confirmed")}
    requisitions = {r["id"]: r["status"] for r in erp.requisitions() if r.get("external_ref") == str(task.pk)}
    orders = {o["id"] for o in erp.purchase_orders() if o.get("requisition_id") in requisitions}
    assert set(requisitions) == created, (requisitions, created)
    assert {i for i, s in requisitions.items() if s == "cancelled"} == cancelled, (requisitions, cancelled)
    assert orders == ordered, (orders, ordered)
    assert not receipts.exclude(status__in=["confirmed", "failed"]).exists(), list(receipts.values())
    return requisitions, orders, cancelled


def test_approval_and_rewind_released_together_leave_the_erp_and_the_task_agreeing(demo, erp, eager):
    winners = []
    for n in range(ROUNDS):
        task, codes = race_once(demo)
        statuses = sorted((codes["approve"].status_code, codes["rewind"].status_code))
        assert statuses == [200, 409], (n, {k: (v.status_code, v.json()) for k, v in codes.items()})
        assert task.state != "needs_review", (n, task.step, task.data.get("last_error"))
        requisitions, orders, cancelled = erp_agrees(erp, task)
        if codes["approve"].status_code == 200:
            winners.append("approval")
            assert task.state == "externally_confirmed"
            assert len(orders) == 1 and not cancelled and len(requisitions) == 1
        else:
            winners.append("rewind")
            assert task.state == "awaiting_approval"
            assert not orders and len(cancelled) == 1 and len(requisitions) == 2
            assert Approval.objects.filter(task_id=task.pk, status="pending").count() == 1
    print("winners:", {w: winners.count(w) for w in set(winners)})


def test_a_rewind_of_a_version_that_moved_on_is_refused_with_what_changed_and_nothing_is_sent(
        demo, erp, eager):
    task = services.request_submit(requester=demo["alice"], department="ENG", justification="new hires",
                                   lines=[{"description": "Laptop", "quantity": 2}])
    seen = Task.objects.get(pk=task.pk)
    point = next(c.id for c in tt.task_checkpoints(user=demo["carol"], task_id=task.pk)
                 if c.cursor == "award" and c.state == "processing")
    services.request_amend(task_id=task.pk, user=demo["alice"], justification="three new hires")
    before = (list(Receipt.objects.filter(task_id=task.pk).values_list("pk", "status")), erp.requisitions())

    answer = client_for(demo["carol"]).post(f"/api/v1/tasks/{task.pk}/rewind/",
                                            {"checkpoint": point, "confirm": True, "version": seen.version},
                                            format="json")

    assert answer.status_code == 409, answer.json()
    body = answer.json()
    assert body["current_version"] > seen.version
    assert body["changes"] and body["changes"][0]["version"] == seen.version + 1
    assert {"event", "actor", "from_state", "to_state", "at"} <= set(body["changes"][0])
    assert (list(Receipt.objects.filter(task_id=task.pk).values_list("pk", "status")), erp.requisitions()) == before


def test_a_compensation_a_crash_kept_from_sending_is_sent_by_recovery_under_its_key(demo, erp, eager, monkeypatch):
    from agentstate import timetravel as engine
    from agentstate.recovery import recovery_pass

    task = services.request_submit(requester=demo["alice"], department="ENG", justification="new hires",
                                   lines=[{"description": "Laptop", "quantity": 2}])
    task = Task.objects.get(pk=task.pk)
    [old] = erp.requisitions()
    point = next(c.id for c in tt.task_checkpoints(user=demo["carol"], task_id=task.pk)
                 if c.cursor == "award" and c.state == "processing")
    monkeypatch.setattr(engine, "compensations_send", lambda task_id, receipt_ids: [])  # the process died here

    tt.task_rewind(user=demo["carol"], task_id=task.pk, checkpoint=point, expected_version=task.version)

    [cancel] = Receipt.objects.filter(task_id=task.pk, operation=erp_ops.CANCEL_REQUISITION)
    assert cancel.status == "planned" and {r["id"]: r["status"] for r in erp.requisitions()}[old["id"]] != "cancelled"
    monkeypatch.undo()

    recovery_pass(receipt_grace_seconds=0)
    recovery_pass(receipt_grace_seconds=0)  # a second pass sends nothing again

    cancel.refresh_from_db()
    assert cancel.status == "confirmed" and cancel.attempts == 1
    assert {r["id"]: r["status"] for r in erp.requisitions()}[old["id"]] == "cancelled"
    erp_agrees(erp, Task.objects.get(pk=task.pk))

"""The purchase workflow through its services, steps running eagerly, ERP across a socket."""
from decimal import Decimal

import pytest

from agentstate.models import Approval, Receipt
from procurement.purchase import services
from procurement.models import BudgetReservation, Department, Notification

pytestmark = pytest.mark.django_db(transaction=True)

LAPTOPS = [{"description": "Laptop", "quantity": 2}]


def submit(user, lines=LAPTOPS, department="ENG", **kw):
    return services.request_submit(requester=user, department=department, lines=lines,
                                   justification="new hires", **kw)


def pending_approval(task):
    return Approval.objects.get(task=task, status="pending")


def test_request_to_purchase_order_with_one_requisition_and_one_order(demo, erp, eager):
    task = submit(demo["alice"])
    task.refresh_from_db()
    assert task.state == "awaiting_approval", task.events.values_list("event", "reason")
    approval = pending_approval(task)
    assert approval.scope["total"] == task.data["award"]["total"]
    assert set(approval.approvers.values_list("username", flat=True)) == {"bob", "frank"}
    assert list(Notification.objects.filter(task=task, to="bob@example.com").values_list("status", flat=True)) == ["sent"]
    services.approval_decide(approval_id=approval.pk, user=demo["bob"], decision="approve",
                             state_version=approval.state_version, scope_hash=approval.scope_hash)
    task.refresh_from_db()
    assert task.state == "externally_confirmed"
    receipts = {r.operation: r for r in Receipt.objects.filter(task=task)}
    assert {op: r.status for op, r in receipts.items()} == {
        "erp.requisition.create": "confirmed", "erp.purchase_order.issue": "confirmed"}
    assert len(erp.requisitions()) == 1 and len(erp.purchase_orders()) == 1
    assert erp.purchase_orders()[0]["requisition_id"] == receipts["erp.requisition.create"].external_id


def test_over_the_manager_limit_the_manager_then_the_director_decide(demo, erp, eager):
    task = submit(demo["alice"], lines=[{"description": "Laptop", "quantity": 5}])
    approval = pending_approval(task)
    assert approval.rule["rule"] == "chain" and [s["usernames"] for s in approval.chain] == [["bob"], ["frank"]]
    assert list(approval.approvers.values_list("username", flat=True)) == ["bob"]
    services.approval_decide(approval_id=approval.pk, user=demo["bob"], decision="approve",
                             state_version=approval.state_version, scope_hash=approval.scope_hash)
    approval.refresh_from_db()
    task.refresh_from_db()
    assert task.state == "awaiting_approval" and approval.status == "pending"
    assert list(approval.approvers.values_list("username", flat=True)) == ["frank"]
    services.approval_decide(approval_id=approval.pk, user=demo["frank"], decision="approve",
                             state_version=approval.state_version, scope_hash=approval.scope_hash)
    task.refresh_from_db()
    assert task.state == "externally_confirmed" and len(erp.purchase_orders()) == 1


def test_above_every_limit_goes_to_review_and_nothing_is_sent(demo, erp, eager):
    task = submit(demo["alice"], lines=[{"description": "Laptop", "quantity": 200}])
    task.refresh_from_db()
    assert task.state == "needs_review" and "above every approval limit" in task.events.last().reason
    assert erp.requisitions() == []


def test_unquotable_item_asks_the_requester(demo, erp, eager):
    task = submit(demo["alice"], lines=[{"description": "flux capacitor", "quantity": 1}])
    task.refresh_from_db()
    assert task.state == "awaiting_input" and "flux capacitor" in task.data["question"]
    assert erp.requisitions() == []


def test_amend_after_the_approval_opened_cancels_the_old_requisition_and_opens_a_fresh_approval(demo, erp, eager):
    task = submit(demo["alice"])
    first = pending_approval(task)
    services.request_amend(task_id=task.pk, user=demo["alice"], lines=[{"description": "Laptop", "quantity": 1}])
    first.refresh_from_db()
    assert first.status == "superseded"
    from agentstate.errors import Conflict
    with pytest.raises(Conflict):
        services.approval_decide(approval_id=first.pk, user=demo["bob"], decision="approve",
                                 state_version=first.state_version)
    second = pending_approval(task)
    assert second.scope["lines"][0]["quantity"] == 1
    statuses = sorted(r["status"] for r in erp.requisitions())
    assert statuses == ["cancelled", "pending_approval"]
    live = [r for r in erp.requisitions() if r["status"] == "pending_approval"][0]
    assert second.scope["erp_requisition"] == live["id"]


def test_reject_releases_the_budget_and_cancels_the_requisition(demo, erp, eager):
    eng = Department.objects.get(code="ENG")
    task = submit(demo["alice"])
    assert BudgetReservation.objects.get(task_id=task.pk).status == "held", "a soft hold until approval"
    approval = pending_approval(task)
    services.approval_decide(approval_id=approval.pk, user=demo["bob"], decision="reject",
                             state_version=approval.state_version, comment="Not this quarter")
    task.refresh_from_db()
    assert task.state == "rejected" and task.step == ""
    assert BudgetReservation.objects.get(task_id=task.pk).status == "released"
    assert Department.objects.get(code="ENG").budget_reserved == eng.budget_reserved
    assert [r["status"] for r in erp.requisitions()] == ["cancelled"]


def test_requesters_cap_below_the_award_makes_the_agent_ask(demo, erp, eager):
    task = submit(demo["alice"], budget=Decimal("1000"))
    task.refresh_from_db()
    assert task.state == "awaiting_input" and "above your cap" in task.data["question"]

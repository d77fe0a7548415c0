"""What each external effect carries, built from the task's recorded award.

The approval scope is exactly what the manager's click authorises; the purchase order is
built from that approved scope alone, never from whatever the task says later."""
from decimal import Decimal

from agentstate.models import Task

from procurement.models import BudgetReservation, PurchaseRequest, Supplier


def requisition_request(task: Task, request: PurchaseRequest) -> dict:
    award = task.data["award"]
    return {
        "external_ref": str(task.pk), "department": request.department.code,
        "requester": request.requester.username, "supplier": award["supplier"], "currency": award["currency"],
        "total": award["total"],
        "lines": [{"description": line["description"], "quantity": line["quantity"],
                   "unit_price": line["unit_price"]} for line in award["lines"]],
    }


def approval_scope(task: Task, request: PurchaseRequest) -> dict:
    award = task.data["award"]
    supplier = Supplier.objects.get(name=award["supplier"])
    department = request.department
    total = Decimal(award["total"])
    lines = [{"description": line["description"], "item": line["item"], "quantity": line["quantity"],
              "unit_price": line["unit_price"], "amount": line["amount"]} for line in award["lines"]]
    summary = ", ".join(f"{line['quantity']} × {line['description']}" for line in lines)
    return {
        "operation": "issue_purchase_order",
        "erp_requisition": task.data["requisition"]["id"],
        "supplier": {"name": supplier.name, "tax_id": supplier.tax_id, "email": supplier.email},
        "lines": lines, "summary": summary,
        "subtotal": award["subtotal"], "tax": award["tax"], "total": award["total"], "currency": award["currency"],
        "department": department.code, "cost_centre": department.cost_centre,
        "emails": [supplier.email] if supplier.email else [],
        "budget_left_after": str(_left_after(task, department, total)),
        "requester": request.requester.username,
        "total_words": f"NT${total:,.0f}",
        # The revision she made it in: the number people read (the chat's 「第 2 版」); the approval
        # still binds to the task's version.
        "revision": task.data.get("revision", 1),
    } | _requester_prices(task)


def _requester_prices(task: Task) -> dict:
    """Prices the requester gave that won the award (procurement.purchase.given), bound into the
    scope so the approver's click covers them; absent when there are none."""
    given = task.data.get("given_prices") or []
    return {"requester_prices": given} if given else {}


def _left_after(task: Task, department, total: Decimal) -> Decimal:
    """The department's budget after this request: a hard reservation already counts; a soft
    hold (BUDGET_HOLD=soft) does not yet, so it is taken off here."""
    hard = BudgetReservation.objects.filter(task=task, status=BudgetReservation.Status.RESERVED).exists()
    return department.budget_total - department.budget_reserved - (0 if hard else total)


def purchase_order_request(task: Task, scope: dict) -> dict:
    return {
        "requisition_id": scope["erp_requisition"], "external_ref": str(task.pk),
        "supplier": scope["supplier"]["name"], "currency": scope["currency"], "total": scope["total"],
        "lines": [{"description": line["description"], "quantity": line["quantity"],
                   "unit_price": line["unit_price"]} for line in scope["lines"]],
    }

"""A request whose PO is out, and an invoice body that matches it."""
from agentstate.models import Approval, Task
from procurement.purchase import services
from procurement.invoicing.po import purchase_order_of
from procurement.purchase.tax import totals


def ordered(requester, approver, lines=({"description": "Monitor", "quantity": 3},), department="ENG") -> Task:
    """Submitted, approved, PO issued by the ERP (steps run eagerly)."""
    task = services.request_submit(requester=requester, department=department, justification="new desks",
                                   lines=list(lines))
    approval = Approval.objects.get(task_id=task.pk, status="pending")
    services.approval_decide(approval_id=approval.pk, user=approver, decision="approve",
                             state_version=approval.state_version, scope_hash=approval.scope_hash)
    task = Task.objects.get(pk=task.pk)
    assert task.state == "externally_confirmed", task.state
    return task


def invoice_body(task, number="AB12345678", **overrides) -> dict:
    po = purchase_order_of(task)
    subtotal, tax, total = totals(po.subtotal)
    return {"task": str(task.pk), "number": number, "date": "2026-03-15", "seller_tax_id": po.supplier.tax_id,
            "lines": [{"line": n, "quantity": line.quantity, "unit_price": str(line.unit_price)}
                      for n, line in enumerate(po.lines)],
            "subtotal": str(subtotal), "tax": str(tax), "total": str(total)} | overrides

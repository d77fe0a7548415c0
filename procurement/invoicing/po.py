"""The purchase order as issued: what the approved scope sent to the ERP, read back for the
invoice form, the invoice check and the printed 採購單. One reading for all three."""
from dataclasses import dataclass
from decimal import Decimal

from agentstate.models import Approval, Task

from procurement import workflow
from procurement.models import Supplier


@dataclass(frozen=True)
class PoLine:
    description: str
    item: str
    quantity: int
    unit_price: Decimal
    amount: Decimal


@dataclass(frozen=True)
class PurchaseOrder:
    number: str  # the ERP's purchase-order id
    task: Task
    approval: Approval  # the approval whose scope the PO carried
    supplier: Supplier
    lines: tuple[PoLine, ...]
    subtotal: Decimal
    tax: Decimal
    total: Decimal
    currency: str


def issued_approval(task: Task) -> Approval | None:
    """The approval whose scope the purchase order was issued from (the last approved one)."""
    # A task has a few approved steps; an invoice exception's approval is told apart by its scope in
    # Python, since a JSON key excluded in SQL drops the rows without the key on SQLite.
    approved = Approval.objects.filter(task=task, status=Approval.Status.APPROVED).order_by("-decided_at")
    return next((a for a in approved if a.scope.get("kind") != workflow.INVOICE_EXCEPTION), None)


def purchase_order_of(task: Task) -> PurchaseOrder | None:
    """The PO as issued, or None before the ERP confirmed one."""
    number = (task.data.get("purchase_order") or {}).get("id")
    approval = issued_approval(task) if number else None
    if approval is None:
        return None
    scope = approval.scope
    supplier = Supplier.objects.filter(tax_id=scope["supplier"]["tax_id"]).first()
    if supplier is None:
        supplier = Supplier(name=scope["supplier"]["name"], tax_id=scope["supplier"]["tax_id"])
    lines = tuple(PoLine(line["description"], line.get("item") or line["description"], int(line["quantity"]),
                         Decimal(line["unit_price"]), Decimal(line["amount"])) for line in scope["lines"])
    return PurchaseOrder(number=str(number), task=task, approval=approval, supplier=supplier, lines=lines,
                         subtotal=Decimal(scope["subtotal"]), tax=Decimal(scope["tax"]),
                         total=Decimal(scope["total"]), currency=scope.get("currency") or "TWD")

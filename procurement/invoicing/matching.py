"""The three-way match as the service runs it (DESIGN §16), each time an invoice or a goods
receipt arrives: read the PO, what arrived and what earlier invoices billed; match
(procurement.invoicing.match) under the tolerances frozen on the PO; record the outcome on the
invoice. A matched invoice is posted to the ERP once, after the commit, through the receipts
protocol (services.invoice_post); one waiting for its goods is matched again when they arrive;
an exception waits for a person's decision and nothing is posted before it.

Every match locks the task row first (FOR NO KEY UPDATE), as a goods receipt does, so an
invoice and a delivery arriving together are matched one after the other, never both against
what was there before either."""
from decimal import Decimal

from django.db import transaction

from agentstate.models import Approval, Task

from procurement import workflow
from procurement.infra import queueing
from procurement.invoicing.exceptions import exception_open, invoice_approval
from procurement.invoicing import match
from procurement.invoicing.po import PurchaseOrder, purchase_order_of
from procurement.models.invoicing import SupplierInvoice
from procurement.purchase import tax
from procurement.purchase.completion import task_complete_if_done

Status = SupplierInvoice.Status
# Invoices whose quantities count as billed when another invoice on the same line is matched.
STANDING = (Status.MATCHED, Status.POSTED)
OUTCOME_STATUS = {match.MATCHED: Status.MATCHED, match.WAITING: Status.WAITING_RECEIPT,
                  match.EXCEPTION: Status.EXCEPTION}


def _tolerances(task: Task, line: int) -> dict:
    """The tolerances frozen on the PO for this line; DESIGN's default for a PO issued before any."""
    frozen = ((task.data.get("purchase_order") or {}).get("tolerances") or {}).get("lines") or []
    if line >= len(frozen):
        return dict(match.DEFAULT_TOLERANCES)
    return {check: match.Tolerance.from_json(value) for check, value in frozen[line].items()}


def _arrived(task: Task) -> dict[int, list[int]]:
    """Per PO line [accepted net of returns, rejected, returned]."""
    found: dict[int, list[int]] = {}
    for receipt in task.goods_receipts.prefetch_related("lines"):
        for row in receipt.lines.all():
            counts = found.setdefault(row.line, [0, 0, 0])
            counts[0] += row.accepted
            counts[1] += row.rejected
            counts[2] += -row.accepted if row.accepted < 0 else 0
    return found


def _billed_before(task: Task, invoice: SupplierInvoice | None) -> dict[int, int]:
    billed: dict[int, int] = {}
    others = SupplierInvoice.objects.filter(task=task, status__in=STANDING)
    if invoice is not None:
        others = others.exclude(pk=invoice.pk)
    for other in others.prefetch_related("lines"):
        for row in other.lines.all():
            billed[row.line] = billed.get(row.line, 0) + row.quantity
    return billed


def ordered_lines(po: PurchaseOrder, invoice: SupplierInvoice) -> list[match.OrderedLine]:
    """Per PO line what the invoice is matched against. On a request closed short nothing more
    arrives: each line stands for what was accepted, so an invoice past it is an exception at once
    instead of waiting for goods that will never come."""
    arrived, billed = _arrived(po.task), _billed_before(po.task, invoice)
    closed = po.task.state == workflow.CLOSED

    def ordered(n: int, quantity: int) -> int:
        return min(quantity, max(arrived.get(n, [0, 0, 0])[0], 0)) if closed else quantity

    return [match.OrderedLine(line=n, description=line.item, ordered=ordered(n, line.quantity),
                              unit_price=line.unit_price, accepted=arrived.get(n, [0, 0, 0])[0],
                              rejected=arrived.get(n, [0, 0, 0])[1], returned=arrived.get(n, [0, 0, 0])[2],
                              invoiced_before=billed.get(n, 0), tolerances=_tolerances(po.task, n))
            for n, line in enumerate(po.lines)]


def quantities_to_bill(po: PurchaseOrder) -> list[int]:
    """Per PO line the quantity a new invoice is expected to bill: what was ordered, or on a request
    closed short what was accepted and not billed yet (the rest will never come)."""
    if po.task.state != workflow.CLOSED:
        return [line.quantity for line in po.lines]
    arrived, billed_before = _arrived(po.task), _billed_before(po.task, None)
    return [max(min(line.quantity, arrived.get(n, [0, 0, 0])[0]) - billed_before.get(n, 0), 0)
            for n, line in enumerate(po.lines)]


def total_to_bill(po: PurchaseOrder) -> Decimal:
    """含稅 of quantities_to_bill at the PO's prices."""
    return tax.with_tax(sum((q * line.unit_price for q, line in zip(quantities_to_bill(po), po.lines)), Decimal(0)))


def billed(invoice: SupplierInvoice) -> match.Billed:
    return match.Billed(seller_tax_id=invoice.seller_tax_id, subtotal=invoice.subtotal, tax=invoice.tax,
                        total=invoice.total,
                        lines=tuple(match.BilledLine(row.line, row.quantity, row.unit_price)
                                    for row in invoice.lines.order_by("line")))


def outcome_of(po: PurchaseOrder, invoice: SupplierInvoice) -> match.Outcome:
    return match.three_way_match(ordered_lines(po, invoice), billed(invoice), supplier_tax_id=po.supplier.tax_id)


def invoice_match(invoice: SupplierInvoice, po: PurchaseOrder | None = None, task: Task | None = None) -> match.Outcome:
    """Match one invoice and record its status and exceptions; a matched one is posted once this
    transaction commits, an exception opens its approval. The caller holds the task's row lock
    (`task`, as locked)."""
    po = po or purchase_order_of(invoice.task)
    outcome = outcome_of(po, invoice)
    invoice.status = OUTCOME_STATUS[outcome.status]
    invoice.exceptions = [variance.as_json() for variance in outcome.exceptions]
    invoice.save(update_fields=["status", "exceptions"])
    queueing.notify_on_commit(invoice.task_id)  # accounts payable hears of one waiting for its goods
    if invoice.status == Status.MATCHED:
        queueing.enqueue_invoice_post(invoice.pk)
    elif invoice.status == Status.EXCEPTION:
        exception_open(task or Task.objects.get(pk=invoice.task_id), po, invoice, outcome.variance)
    return outcome


def _undecided(invoice: SupplierInvoice) -> bool:
    """An exception whose approval no longer stands (superseded by a later receipt, expired) or
    never opened (another approval was pending): it is matched again."""
    if invoice.status == Status.WAITING_RECEIPT:
        return True
    approval = invoice_approval(invoice)
    return approval is None or approval.status in (Approval.Status.SUPERSEDED, Approval.Status.EXPIRED)


def invoices_rematch(task_id) -> list[SupplierInvoice]:
    """Goods arrived (or went back), or an approval was decided: match again, oldest first, the
    task's invoices waiting for goods and its exceptions nobody is deciding now. Returns those
    whose status changed."""
    changed = _rematch(task_id)
    task_complete_if_done(task_id)  # goods that complete a request whose invoices are all posted
    return changed


def _rematch(task_id) -> list[SupplierInvoice]:
    changed = []
    with transaction.atomic():
        task = Task.objects.select_for_update(no_key=True).get(pk=task_id)
        open_ = [invoice for invoice in SupplierInvoice.objects.filter(
            task=task, status__in=(Status.WAITING_RECEIPT, Status.EXCEPTION)).order_by("created_at", "pk")
            if _undecided(invoice)]
        if not open_:
            return changed
        po = purchase_order_of(task)
        for invoice in open_:
            before = invoice.status
            invoice.task = task
            invoice_match(invoice, po, task)
            task.refresh_from_db()
            if invoice.status != before:
                changed.append(invoice)
    return changed


def variance_total(invoice: SupplierInvoice) -> Decimal:
    return sum((Decimal(v["amount"]) for v in invoice.exceptions), Decimal("0"))

"""Supplier invoices: enter one against a PO, and post a matched one to the ERP exactly once
(DESIGN §6, §16). Views, the API and Celery tasks call these and decide nothing themselves."""
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from agentstate.errors import Conflict, DomainError
from agentstate.models import Approval, Receipt, Task
from agentstate.receipts import receipt_perform, receipt_plan
from agentstate.said import say

from procurement.infra import erp, queueing
from procurement.invoicing.entry import Entry, invoice_entry
from procurement.models.invoicing import SupplierInvoice, SupplierInvoiceLine
from procurement.invoicing.po import PurchaseOrder, issued_approval
from procurement.invoicing.exceptions import invoice_approval
from procurement.invoicing.matching import invoice_match
from procurement.invoicing.selectors import po_to_invoice
from procurement.purchase import steps
from procurement.purchase.completion import task_complete_if_done


class InvoiceInvalid(DomainError):
    """Field errors in the reader's language; nothing was written."""


def _duplicate(seller_tax_id: str, number: str) -> Conflict:
    other = SupplierInvoice.objects.filter(seller_tax_id=seller_tax_id, number=number).values_list(
        "task_id", flat=True).first()
    request = str(other) if other else ""
    return Conflict(said=say("invoice_entered_twice", number=number, tax_id=seller_tax_id, request=request))


def _refused(error: ValidationError) -> InvoiceInvalid:
    errors = {field: [str(m) for m in messages] for field, messages in error.message_dict.items()}
    return InvoiceInvalid(said=say("invoice_not_entered"), errors=errors)


def invoice_enter(*, user, task_id, fields: dict) -> SupplierInvoice:
    """Check and record one supplier invoice against the task's PO.

    404/403/409 from the read layer (who may, and whether a PO exists); 400 with field errors;
    409 when the same seller's same number was entered before, whatever the PO. The three-way match decides its status at once (procurement.invoicing.matching): matched
    (posted to the ERP once this commits), waiting for its goods, or an exception."""
    po = po_to_invoice(user, task_id)
    try:
        entry = invoice_entry(po, fields)
    except ValidationError as error:
        raise _refused(error)
    if SupplierInvoice.objects.filter(seller_tax_id=entry.seller_tax_id, number=entry.number).exists():
        raise _duplicate(entry.seller_tax_id, entry.number)
    try:
        with transaction.atomic():
            return _record(po, entry, user)
    except IntegrityError:  # entered from another window at the same moment
        raise _duplicate(entry.seller_tax_id, entry.number)


def _record(po: PurchaseOrder, entry: Entry, user) -> SupplierInvoice:
    """Write the invoice and match it, under the task's row lock (as a goods receipt takes it)."""
    task = Task.objects.select_for_update(no_key=True).get(pk=po.task.pk)
    invoice = SupplierInvoice.objects.create(
        task=po.task, supplier=po.supplier, number=entry.number, date=entry.date,
        seller_tax_id=entry.seller_tax_id, buyer_tax_id=entry.buyer_tax_id, subtotal=entry.subtotal,
        tax=entry.tax, total=entry.total, qr_text=entry.qr_text, entered_by=user,
        status=SupplierInvoice.Status.WAITING_RECEIPT)
    SupplierInvoiceLine.objects.bulk_create(
        SupplierInvoiceLine(invoice=invoice, line=line.line, quantity=line.quantity, unit_price=line.unit_price,
                            amount=line.amount) for line in entry.lines)
    invoice_match(invoice, po, task)
    return invoice


# -- posting -----------------------------------------------------------------------

def posting_request(invoice: SupplierInvoice) -> dict:
    """`POST /supplier-invoices` as DESIGN §16 words it."""
    po_number = (invoice.task.data.get("purchase_order") or {}).get("id")
    descriptions = {n: line["description"] for n, line in enumerate(_scope_lines(invoice))}
    return _variance(invoice) | {"purchase_order_id": po_number, "external_ref": str(invoice.pk), "number": invoice.number,
            "date": invoice.date.isoformat(), "seller_tax_id": invoice.seller_tax_id,
            "subtotal": str(invoice.subtotal), "tax": str(invoice.tax), "total": str(invoice.total),
            "lines": [{"line": line.line, "description": descriptions.get(line.line, ""), "quantity": line.quantity,
                       "unit_price": str(line.unit_price), "amount": str(line.amount)}
                      for line in invoice.lines.order_by("line")]}


def _variance(invoice: SupplierInvoice) -> dict:
    """An exception a person approved is posted with its variance and who approved it recorded."""
    approval = invoice_approval(invoice) if invoice.exceptions else None
    if approval is None or approval.status != Approval.Status.APPROVED:
        return {}
    return {"variance": {"amount": approval.scope["total"], "exceptions": invoice.exceptions,
                         "approval": str(approval.pk), "approved_by": approval.decided_by.get_username()}}


def _scope_lines(invoice: SupplierInvoice) -> list[dict]:
    approval = issued_approval(invoice.task)
    return approval.scope["lines"] if approval else []


def posting_receipt(invoice: SupplierInvoice) -> Receipt | None:
    return Receipt.objects.filter(task_id=invoice.task_id, operation=erp.POST_SUPPLIER_INVOICE,
                                  scope=f"invoice:{invoice.pk}").first()


def invoice_post(*, invoice_id, client=None) -> SupplierInvoice:
    """Post a matched invoice to the ERP through the receipts protocol: the key is stored first,
    the answer recorded once; a lost answer is looked up by key, never sent twice. Safe to run
    again: a posted invoice is returned as it is."""
    invoice = SupplierInvoice.objects.select_related("task").get(pk=invoice_id)
    if invoice.status == SupplierInvoice.Status.POSTED:
        return invoice
    if invoice.status != SupplierInvoice.Status.MATCHED:
        raise Conflict(said=say("invoice_post_unmatched"))
    receipt = receipt_plan(task=invoice.task, operation=erp.POST_SUPPLIER_INVOICE, scope=f"invoice:{invoice.pk}",
                           request=posting_request(invoice))
    receipt_perform(receipt=receipt, client=client or erp.ErpClient(), on_outcome=invoice_posting_recorded)
    invoice.refresh_from_db()
    if invoice.status == SupplierInvoice.Status.POSTED:
        _posted(invoice.task_id)
    return invoice


def invoice_posting_recorded(receipt: Receipt) -> bool:
    """The ERP's answer to an invoice's posting, in the receipt's transaction: confirmed, the
    matched invoice is posted. Whether this answer posted it (False when it already was)."""
    if receipt.status != Receipt.Status.CONFIRMED:
        return False
    return bool(SupplierInvoice.objects.filter(pk=receipt.scope.removeprefix("invoice:"),
                                               status=SupplierInvoice.Status.MATCHED)
                .update(status=SupplierInvoice.Status.POSTED))


def _posted(task_id) -> None:
    task_complete_if_done(task_id)  # the last invoice posted closes the request
    queueing.notify_on_commit(task_id)  # accounts payable hears it was posted


def receipt_resolved(receipt: Receipt) -> None:
    """Recovery settled a doubtful receipt (the purchase kind's on_receipt_resolved). An invoice's
    posting the ERP turns out to hold is that invoice posted; once that has committed the request's
    closing check runs and accounts payable hear of it, as after a posting answered at once. Every
    other receipt is the purchase steps' to settle."""
    if receipt.operation != erp.POST_SUPPLIER_INVOICE:
        steps.receipt_resolved(receipt)
        return
    if invoice_posting_recorded(receipt):
        task_id = receipt.task_id
        transaction.on_commit(lambda: _posted(task_id))

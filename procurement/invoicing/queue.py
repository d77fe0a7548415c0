"""Accounts payable's queue (DESIGN §16): the invoices waiting for their goods, the exceptions
waiting for a person's decision, and the matched ones posted to the ERP today. One row builder
serves the page and its CSV and XLSX exports, so a figure or a variance reads the same in each."""
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from decimal import Decimal

from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from agentstate.models import Receipt

from procurement.infra import erp
from procurement.models.invoicing import SupplierInvoice
from procurement.invoicing.exceptions import invoice_approval
from procurement.invoicing.variance_words import variance_words
from procurement.words.money import ntd
from procurement.words.people import approvers_words

Status = SupplierInvoice.Status
WAITING, EXCEPTIONS, POSTED_TODAY, APPROVED_TODAY = "waiting", "exceptions", "posted_today", "approved_today"
SECTIONS = {
    WAITING: _("Waiting for the goods"),
    EXCEPTIONS: _("Exceptions waiting for a decision"),
    POSTED_TODAY: _("Matched and posted today"),
    # Posted after a person approved its exception: it never matched, and its variance stays shown.
    APPROVED_TODAY: _("Posted today with an approved variance"),
}
WITH_VARIANCE = (EXCEPTIONS, APPROVED_TODAY)
LIMIT = 1_000  # per section; the queue is today's work, not the archive


@dataclass
class QueueRow:
    section: str
    invoice: SupplierInvoice
    number: str
    date: object
    supplier: str
    seller_tax_id: str
    request_number: str
    po_number: str
    subtotal: Decimal
    tax: Decimal
    total: Decimal
    status_label: str
    variance: list[str]
    entered_at: datetime
    posted_at: datetime | None

    @property
    def section_label(self) -> str:
        return str(SECTIONS[self.section])


def _posted_between(start, end) -> dict[str, datetime]:
    """Invoice id -> when the ERP confirmed its posting (its receipt's last change), for postings
    confirmed in [start, end). The receipt names the invoice in its scope ("invoice:<uuid>"), read
    back here in Python: a uuid cast to text in SQL has no hyphens on SQLite."""
    receipts = Receipt.objects.filter(operation=erp.POST_SUPPLIER_INVOICE, status=Receipt.Status.CONFIRMED,
                                      scope__startswith="invoice:", updated_at__gte=start, updated_at__lt=end)
    return {scope.removeprefix("invoice:"): at for scope, at in receipts.values_list("scope", "updated_at")}


def ap_queue(invoices, today=None) -> dict[str, list[QueueRow]]:
    """The four sections, oldest first, from the invoices the reader may see."""
    today = today or timezone.localdate()
    start = timezone.make_aware(datetime.combine(today, time.min))
    base = invoices.select_related("supplier", "task", "task__purchase_request").prefetch_related(None)
    posted = _posted_between(start, start + timedelta(days=1))
    queue = {section: [_row(section, invoice, None)
                       for invoice in base.filter(status=status).order_by("created_at")[:LIMIT]]
             for section, status in ((WAITING, Status.WAITING_RECEIPT), (EXCEPTIONS, Status.EXCEPTION))}
    today_posted = list(base.filter(status=Status.POSTED, pk__in=list(posted)))
    for section, approved in ((POSTED_TODAY, False), (APPROVED_TODAY, True)):
        queue[section] = sorted((_row(section, invoice, posted[str(invoice.pk)]) for invoice in today_posted
                                 if bool(invoice.exceptions) == approved), key=lambda row: row.posted_at)[:LIMIT]
    return queue


def _row(section: str, invoice: SupplierInvoice, posted_at: datetime | None) -> QueueRow:
    task = invoice.task
    request = getattr(task, "purchase_request", None)
    return QueueRow(
        section=section, invoice=invoice, number=invoice.number, date=invoice.date, supplier=invoice.supplier.name,
        seller_tax_id=invoice.seller_tax_id, request_number=(request.number if request else "") or "",
        po_number=str(((task.data or {}).get("purchase_order") or {}).get("id", "")),
        subtotal=invoice.subtotal, tax=invoice.tax, total=invoice.total,
        status_label=str(invoice.get_status_display()),
        variance=[variance_words(v) for v in invoice.exceptions] if section in WITH_VARIANCE else [],
        entered_at=invoice.created_at, posted_at=posted_at)


def entered_words(invoice: SupplierInvoice) -> str:
    """What came of an invoice just entered, for the message on the queue she lands on:
    「已登錄發票 AB12345678：已比對並入帳。」, waiting for its goods, or sent for approval (to whom)."""
    invoice = SupplierInvoice.objects.get(pk=invoice.pk)  # posted on commit, after the entry returned
    number = {"number": invoice.number}
    if invoice.status == Status.POSTED:
        return gettext("Invoice %(number)s entered: it matched and is posted to the ERP.") % number
    if invoice.status == Status.MATCHED:  # its posting runs after the entry: not said done before it is
        return gettext("Invoice %(number)s entered: it matched and is being posted to the ERP.") % number
    if invoice.status == Status.WAITING_RECEIPT:
        return gettext("Invoice %(number)s entered: it waits for the goods and is matched when they are received.") % number
    if invoice.status == Status.EXCEPTION:
        approval = invoice_approval(invoice)
        variance = ntd(sum((Decimal(v["amount"]) for v in invoice.exceptions), Decimal("0")))
        if approval is not None and approval.status == "pending":
            return gettext("Invoice %(number)s entered: it does not match (variance %(variance)s) and is sent for "
                     "approval to %(people)s.") % (number | {
                "variance": variance, "people": approvers_words((approval.rule or {}).get("usernames", []))})
        return gettext("Invoice %(number)s entered: it does not match (variance %(variance)s) and waits under the "
                 "exceptions for a decision.") % (number | {"variance": variance})
    return gettext("Invoice %(number)s entered: %(status)s.") % (number | {"status": invoice.get_status_display()})

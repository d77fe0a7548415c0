"""Accounts payable's queue (DESIGN §16): the invoices waiting for their goods, the exceptions
waiting for a person's decision, and the matched ones posted to the ERP today. One row builder
serves the page and its CSV and XLSX exports, so a figure or a variance reads the same in each."""
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from decimal import Decimal

from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from agentstate.models import Receipt

from procurement.infra import erp
from procurement.models.invoicing import SupplierInvoice
from procurement.invoicing.variance_words import variance_words

Status = SupplierInvoice.Status
WAITING, EXCEPTIONS, POSTED_TODAY = "waiting", "exceptions", "posted_today"
SECTIONS = {
    WAITING: _("Waiting for the goods"),
    EXCEPTIONS: _("Exceptions waiting for a decision"),
    POSTED_TODAY: _("Matched and posted today"),
}
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
    """The three sections, oldest first, from the invoices the reader may see."""
    today = today or timezone.localdate()
    start = timezone.make_aware(datetime.combine(today, time.min))
    base = invoices.select_related("supplier", "task", "task__purchase_request").prefetch_related(None)
    posted = _posted_between(start, start + timedelta(days=1))
    queue = {section: [_row(section, invoice, None)
                       for invoice in base.filter(status=status).order_by("created_at")[:LIMIT]]
             for section, status in ((WAITING, Status.WAITING_RECEIPT), (EXCEPTIONS, Status.EXCEPTION))}
    today_posted = base.filter(status=Status.POSTED, pk__in=list(posted))
    queue[POSTED_TODAY] = sorted((_row(POSTED_TODAY, invoice, posted[str(invoice.pk)]) for invoice in today_posted),
                                 key=lambda row: row.posted_at)[:LIMIT]
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
        variance=[variance_words(v) for v in invoice.exceptions] if section == EXCEPTIONS else [],
        entered_at=invoice.created_at, posted_at=posted_at)

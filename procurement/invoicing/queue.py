"""Accounts payable's queue (DESIGN §16): the invoices waiting for their goods, the exceptions
waiting for a person's decision, and the matched ones posted to the ERP today. One row builder
serves the page and its CSV and XLSX exports, so a figure or a variance reads the same in each."""
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from decimal import Decimal

from django.db.models import CharField, OuterRef, Subquery, Value
from django.db.models.functions import Cast, Concat
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


def _with_posted_at(invoices):
    """When the ERP confirmed the invoice's posting: its receipt's last change, read in the same query."""
    confirmed = Receipt.objects.filter(
        task_id=OuterRef("task_id"), operation=erp.POST_SUPPLIER_INVOICE, status=Receipt.Status.CONFIRMED,
        scope=Concat(Value("invoice:"), Cast(OuterRef("pk"), CharField()))).values("updated_at")[:1]
    return invoices.annotate(posted_at=Subquery(confirmed))


def ap_queue(invoices, today=None) -> dict[str, list[QueueRow]]:
    """The three sections, oldest first, from the invoices the reader may see."""
    today = today or timezone.localdate()
    start = timezone.make_aware(datetime.combine(today, time.min))
    base = _with_posted_at(invoices.select_related("supplier", "task", "task__purchase_request")
                           .prefetch_related(None))
    chosen = {
        WAITING: base.filter(status=Status.WAITING_RECEIPT).order_by("created_at"),
        EXCEPTIONS: base.filter(status=Status.EXCEPTION).order_by("created_at"),
        POSTED_TODAY: base.filter(status=Status.POSTED, posted_at__gte=start,
                                  posted_at__lt=start + timedelta(days=1)).order_by("posted_at"),
    }
    return {section: [_row(section, invoice) for invoice in query[:LIMIT]] for section, query in chosen.items()}


def _row(section: str, invoice: SupplierInvoice) -> QueueRow:
    task = invoice.task
    request = getattr(task, "purchase_request", None)
    return QueueRow(
        section=section, invoice=invoice, number=invoice.number, date=invoice.date, supplier=invoice.supplier.name,
        seller_tax_id=invoice.seller_tax_id, request_number=(request.number if request else "") or "",
        po_number=str(((task.data or {}).get("purchase_order") or {}).get("id", "")),
        subtotal=invoice.subtotal, tax=invoice.tax, total=invoice.total,
        status_label=str(invoice.get_status_display()),
        variance=[variance_words(v) for v in invoice.exceptions] if section == EXCEPTIONS else [],
        entered_at=invoice.created_at, posted_at=invoice.posted_at)

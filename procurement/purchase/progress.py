"""Where a request stands after its PO: per PO line ordered, accepted (net of returns), rejected
and invoiced, the task body's `receipt_status`, and the state in words for home, page and chat."""
from dataclasses import dataclass

from django.utils.translation import pgettext

from procurement import workflow

NONE, PARTIAL, FULL, EXCEPTION = "none", "partial", "full", "exception"
# Invoice statuses (procurement.models.invoicing.SupplierInvoice.Status) as progress reads them.
BILLED = ("matched", "posted")


@dataclass(frozen=True)
class LineProgress:
    line: int
    description: str
    ordered: int
    received: int  # accepted, net of returns
    rejected: int
    invoiced: int = 0  # billed by invoices matched or posted (an exception counts once approved)

    @property
    def open(self) -> int:
        return max(self.ordered - self.received, 0)


@dataclass(frozen=True)
class Progress:
    lines: tuple[LineProgress, ...]
    # An invoice on the PO waits for a person's decision (an exception) or for its goods.
    invoice_exception: bool = False
    invoice_waiting: bool = False

    @property
    def ordered(self) -> int:
        return sum(line.ordered for line in self.lines)

    @property
    def received(self) -> int:
        return sum(min(line.received, line.ordered) for line in self.lines)

    @property
    def receipt_status(self) -> str:
        if not self.received:
            return NONE
        return FULL if self.received >= self.ordered else PARTIAL

    @property
    def billing_status(self) -> str:
        if self.invoice_exception:
            return EXCEPTION
        invoiced = sum(line.invoiced for line in self.lines)
        return NONE if not invoiced else FULL if invoiced >= self.ordered else PARTIAL


def ordered_lines(task) -> list[dict]:
    """The PO's lines as the award priced them (description, quantity, unit_price)."""
    return list((task.data.get("award") or {}).get("lines") or [])


def progress_of(task) -> Progress:
    """Reads `task.goods_receipts` and `task.supplier_invoices` with their lines: prefetch
    `goods_receipts__lines` and `supplier_invoices__lines` (PROGRESS_READS) when reading many."""
    received: dict[int, list[int]] = {}
    for receipt in task.goods_receipts.all():
        for row in receipt.lines.all():
            counts = received.setdefault(row.line, [0, 0])
            counts[0] += row.accepted
            counts[1] += row.rejected
    invoiced: dict[int, int] = {}
    statuses = set()
    for invoice in task.supplier_invoices.all():
        statuses.add(invoice.status)
        if invoice.status in BILLED:
            for row in invoice.lines.all():
                invoiced[row.line] = invoiced.get(row.line, 0) + row.quantity
    return Progress(tuple(
        LineProgress(index, line["description"], int(line["quantity"]), *received.get(index, (0, 0)),
                     invoiced=invoiced.get(index, 0))
        for index, line in enumerate(ordered_lines(task))),
        invoice_exception="exception" in statuses, invoice_waiting="waiting_receipt" in statuses)


# What progress_of reads, to prefetch on a queryset of tasks.
PROGRESS_READS = ("goods_receipts__lines", "supplier_invoices__lines")


def standing_words(state: str, progress: Progress | None) -> str | None:
    """「已下單，等待到貨」, 「部分到貨（2/3）」, 「已驗收，等待發票」, 「發票待簽核」, 「已驗收，發票已核對，結案中」,
    「已結案」; None before the PO."""
    if state == workflow.CLOSED:
        return pgettext("request stands", "Closed")
    if state != workflow.CONFIRMED or progress is None:
        return None
    if progress.invoice_exception:
        return pgettext("request stands", "Invoice waiting for approval")
    status = progress.receipt_status
    if status == NONE:
        return pgettext("request stands", "Ordered, waiting for delivery")
    if status == PARTIAL:
        return pgettext("request stands", "Partly delivered (%(received)s/%(ordered)s)") % {
            "received": progress.received, "ordered": progress.ordered}
    if progress.billing_status == FULL:
        return pgettext("request stands", "Received and invoiced, being closed")
    return pgettext("request stands", "Received, waiting for the invoice")

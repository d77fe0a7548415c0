"""Who may enter and see supplier invoices (DESIGN §9, §16), for the API and the pages alike.

Accounts payable (the role `accounts_payable`) and admins enter invoices and see them all; a
requester sees those of her own requests and may not enter one (403)."""

from django.db.models import F, OuterRef, Q, Subquery, Sum, Value
from django.db.models.functions import Coalesce
from django.utils.translation import pgettext

from agentstate.errors import Conflict, NotFound, NotPermitted
from agentstate.said import say
from agentstate.ids import is_uuid
from agentstate.models import Task

from procurement import workflow
from procurement.models import Membership
from procurement.selectors.receiving import is_accounts_payable  # noqa: F401 (the one rule, read here too)
from procurement.selectors.tasks import may_view
from procurement.models.invoicing import SupplierInvoice, SupplierInvoiceLine
from procurement.models.receiving import GoodsReceiptLine, RejectReason
from procurement.purchase.progress import ordered_lines
from procurement.invoicing.po import PurchaseOrder, purchase_order_of


def po_to_invoice(user, task_id) -> PurchaseOrder:
    """The issued PO of a task, for accounts payable: 404 when she may not see the task, 403 for
    anyone else who sees it, 409 before the ERP confirmed a PO."""
    task = Task.objects.filter(pk=task_id, kind=workflow.KIND).first() if is_uuid(task_id) else None
    ap = task is not None and is_accounts_payable(user)
    if task is None or not (ap or may_view(user, task)):
        raise NotFound(said=say("no_such_request"))
    if not ap:
        raise NotPermitted(said=say("invoice_ap_only"))
    po = purchase_order_of(task)
    if po is None:
        raise Conflict(said=say("invoice_without_po"))
    return po


def invoices_visible_to(user):
    """Accounts payable and admins: every invoice; anyone else: those of requests she may see."""
    invoices = SupplierInvoice.objects.select_related("supplier", "task", "entered_by").prefetch_related("lines")
    if is_accounts_payable(user):
        return invoices
    if not user.is_authenticated:
        return invoices.none()
    return invoices.filter(task__initiator=user)


def invoice_for(user, invoice_id) -> SupplierInvoice:
    invoice = invoices_visible_to(user).filter(pk=invoice_id).first() if is_uuid(invoice_id) else None
    if invoice is None:
        raise NotFound(said=say("no_such_invoice"))
    return invoice


# States in which a PO is out and invoices may come: ordered, and closed short (below).
INVOICEABLE = (workflow.CONFIRMED,)
BILLED = (SupplierInvoice.Status.MATCHED, SupplierInvoice.Status.POSTED)


def pos_open_for_invoicing():
    """Tasks whose PO is issued, newest first: what accounts payable may enter invoices against. A
    request closed short stays until what was accepted is billed (DESIGN §16: the goods that did
    arrive are still invoiced), by invoices matched or posted."""
    accepted = Coalesce(Subquery(
        GoodsReceiptLine.objects.filter(receipt__task=OuterRef("pk")).order_by().values("receipt__task")
        .annotate(n=Sum("accepted")).values("n")[:1]), Value(0))
    billed = Coalesce(Subquery(
        SupplierInvoiceLine.objects.filter(invoice__task=OuterRef("pk"), invoice__status__in=BILLED).order_by()
        .values("invoice__task").annotate(n=Sum("quantity")).values("n")[:1]), Value(0))
    closed_owing = (Task.objects.filter(kind=workflow.KIND, state=workflow.CLOSED)
                    .annotate(accepted=accepted, billed=billed).filter(accepted__gt=F("billed")).values("pk"))
    # Both states named first (a closed one owing is closed): the newest are walked by
    # task_po_out_created_idx and the walk stops at the page, where it sorted every ordered task.
    return (Task.objects.filter(kind=workflow.KIND, state__in=(*INVOICEABLE, workflow.CLOSED))
            .filter(Q(state__in=INVOICEABLE) | Q(pk__in=closed_owing))
            .select_related("purchase_request", "initiator").order_by("-created_at"))


def deliveries_by_line(task) -> list[dict]:
    """Per PO line, what came of the goods: accepted (net of returns), rejected with its reasons in
    the reader's language (a rejected unit goes back to the supplier) and returned after
    acceptance (退貨). For the approver of an invoice exception, who would otherwise pay for goods
    sent back without seeing it."""
    counts: dict[int, dict] = {}
    for row in GoodsReceiptLine.objects.filter(receipt__task_id=task.pk).order_by("receipt__created_at", "line"):
        line = counts.setdefault(row.line, {"accepted": 0, "rejected": 0, "returned": 0, "reasons": []})
        line["accepted"] += row.accepted
        line["rejected"] += row.rejected
        if row.accepted < 0:
            line["returned"] += -row.accepted
        if row.reason and row.reason in RejectReason.values:
            reason = str(RejectReason(row.reason).label)
            if reason not in line["reasons"]:
                line["reasons"].append(reason)
    none = {"accepted": 0, "rejected": 0, "returned": 0, "reasons": []}
    return [{"line": n, "description": line["description"], "ordered": int(line["quantity"]),
             **counts.get(n, none), "reasons": pgettext("list separator", ", ").join(counts.get(n, none)["reasons"])}
            for n, line in enumerate(ordered_lines(task))]

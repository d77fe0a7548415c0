"""An invoice the three-way match found an exception in (DESIGN §16): an approval of kind
`invoice_exception`, bound to the task version and the match it shows, routed by the approval
policy on the variance amount, decided through the same decision endpoint as any approval.
Approving posts the invoice with the variance recorded; rejecting refuses it and tells the
supplier why, in zh-Hant. Nothing is posted before the decision.

The approval's scope says what the click authorises: posting this invoice, with these figures
and this variance. Its `total` is the variance (NT$, tax included), the amount the route and an
approver's limit are read against; the invoice's own total is `invoice_total`."""
from decimal import Decimal

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import translation
from django.utils.translation import gettext as _

from agentstate.actors import Actor
from agentstate.approvals import approval_open
from agentstate.machine import fire
from agentstate.models import Approval, Task
from agentstate.said import say

from procurement import workflow
from procurement.infra import queueing
from procurement.infra.outbox import notification_queue
from procurement.invoicing.po import PurchaseOrder
from procurement.invoicing.variance_words import variance_words
from procurement.models import Department
from procurement.models.invoicing import SupplierInvoice
from procurement.policy.routing import policy_route

KIND = workflow.INVOICE_EXCEPTION
FALLBACK = "fallback"  # the route of an exception no policy rule routes
Status = SupplierInvoice.Status


def is_invoice_exception(approval: Approval) -> bool:
    return (approval.scope or {}).get("kind") == KIND


def invoice_approval(invoice: SupplierInvoice) -> Approval | None:
    """The newest invoice_exception approval opened for this invoice."""
    return (Approval.objects.filter(task_id=invoice.task_id, scope__kind=KIND, scope__invoice__id=str(invoice.pk))
            .order_by("-created_at").first())


def _scope(po: PurchaseOrder, invoice: SupplierInvoice, variance: Decimal) -> dict:
    descriptions = {n: line.description for n, line in enumerate(po.lines)}
    with translation.override("en"):
        words = [variance_words(v) for v in invoice.exceptions]
    return {
        "kind": KIND, "operation": "post_supplier_invoice",
        "invoice": {"id": str(invoice.pk), "number": invoice.number, "date": invoice.date.isoformat()},
        "purchase_order": po.number,
        "supplier": {"name": po.supplier.name, "tax_id": invoice.seller_tax_id, "email": po.supplier.email},
        "lines": [{"description": descriptions.get(row.line, ""), "item": descriptions.get(row.line, ""),
                   "quantity": row.quantity, "unit_price": str(row.unit_price), "amount": str(row.amount)}
                  for row in invoice.lines.order_by("line")],
        "exceptions": invoice.exceptions, "variance_words": words,
        "subtotal": str(invoice.subtotal), "tax": str(invoice.tax), "invoice_total": str(invoice.total),
        "total": str(variance), "currency": po.currency, "department": po.task.tenant,
        "summary": "; ".join(words), "requester": po.task.initiator.get_username(), "emails": [],
        "total_words": f"NT${variance:,.0f}",
        # The request's revision, named as its purchase approval names it: 「第 1 版」, not "v13".
        "revision": po.task.data.get("revision", 1),
    }


def _fallback_route(task: Task, invoice: SupplierInvoice, variance: Decimal) -> dict | None:
    """The named fallback (settings.INVOICE_EXCEPTION_FALLBACK, else the administrators) for an
    exception no rule routes: one step, any one of them. None when there is nobody at all."""
    users = get_user_model().objects.filter(is_active=True).exclude(pk=task.initiator_id).order_by("username")
    name = settings.INVOICE_EXCEPTION_FALLBACK
    people = list(users.filter(username=name) if name else users.filter(is_superuser=True))
    if not name:
        people = [u for u in people if u.pk != invoice.entered_by_id] or people
    if not people:
        return None
    ids, names = [u.pk for u in people], [u.username for u in people]
    step = {"role": "", "user": names[0] if len(names) == 1 else "", "mode": "any", "user_ids": ids,
            "usernames": names, "fallback": True}
    return {"rule": FALLBACK, "user_ids": ids, "usernames": names, "total": str(variance),
            "department": task.tenant, "policy_rule": FALLBACK, "chain": [step]}


def _route(task: Task, po: PurchaseOrder, invoice: SupplierInvoice, variance: Decimal) -> dict | None:
    department = Department.objects.filter(code=task.tenant).first()
    route = None
    if department is not None:
        route = policy_route(department=department, total=variance, requester=task.initiator,
                             categories={line.item for line in po.lines}, supplier=po.supplier.name)
    return route if isinstance(route, dict) else _fallback_route(task, invoice, variance)


def exception_open(task: Task, po: PurchaseOrder, invoice: SupplierInvoice, variance: Decimal) -> Approval | None:
    """Open the approval for an exception, under the task's row lock. Routed by the approval policy
    on the variance; one no rule routes goes to the named fallback (_fallback_route). None when
    another approval of the task is still pending (the engine holds one pending approval per task:
    this one opens when that is decided, invoices_rematch) or when nobody at all could decide it
    (the invoice then stays an exception on the AP queue)."""
    if Approval.objects.filter(task=task, status=Approval.Status.PENDING).exists():
        return None
    route = _route(task, po, invoice, variance)
    if route is None:
        return None
    moved = fire(task.pk, "invoice_exception", actor=Actor.runtime("match"), expected_version=task.version,
                 reason=say("invoice_variance", number=invoice.number, variance=str(variance)),
                 event_data={"invoice": str(invoice.pk)})
    queueing.notify_on_commit(task.pk)
    return approval_open(task=moved, scope=_scope(po, invoice, variance), approvers=route["user_ids"],
                         rule={k: v for k, v in route.items() if k != "chain"}, chain=route.get("chain"),
                         ttl_seconds=settings.APPROVAL_TTL_SECONDS)


def _supplier_mail(invoice: SupplierInvoice, approval: Approval) -> None:
    """The refusal to the supplier, in Traditional Chinese (a Taiwanese seller reads it)."""
    email = (approval.scope.get("supplier") or {}).get("email") or invoice.supplier.email
    if not email:
        return
    with translation.override("zh-hant"):
        subject = _("Invoice %(number)s was not accepted") % {"number": invoice.number}
        reasons = "\n".join(f"- {variance_words(v)}" for v in invoice.exceptions)
        body = _("Invoice %(number)s of %(date)s against purchase order %(po)s was not accepted, for these "
                 "reasons:\n%(reasons)s\n\nComment: %(comment)s\n\nPlease issue a corrected invoice.") % {
            "number": invoice.number, "date": invoice.date.isoformat(), "po": approval.scope.get("purchase_order"),
            "reasons": reasons, "comment": approval.comment or "—"}
    notification_queue(task_id=invoice.task_id, to=email, subject=subject, body=body,
                       key=f"invoice-rejected:{invoice.pk}", kind="invoice_rejected")
    queueing.enqueue_outbox()


def exception_decided(approval_id) -> SupplierInvoice | None:
    """After the decision committed: approved, the invoice is posted with the variance recorded;
    rejected, it is refused and the supplier is told why. Safe to run twice."""
    with transaction.atomic():
        approval = Approval.objects.select_related("task").get(pk=approval_id)
        if not is_invoice_exception(approval) or approval.status not in (Approval.Status.APPROVED,
                                                                          Approval.Status.REJECTED):
            return None
        Task.objects.select_for_update(no_key=True).filter(pk=approval.task_id).first()
        invoice = SupplierInvoice.objects.select_for_update().get(pk=approval.scope["invoice"]["id"])
        if invoice.status != Status.EXCEPTION:
            return invoice
        if approval.status == Approval.Status.APPROVED:
            invoice.status = Status.MATCHED
            invoice.save(update_fields=["status"])
            queueing.enqueue_invoice_post(invoice.pk)
        else:
            invoice.status = Status.REJECTED
            invoice.save(update_fields=["status"])
            _supplier_mail(invoice, approval)
        queueing.enqueue_invoices_match(approval.task_id)  # another exception may wait for its approval
    return invoice


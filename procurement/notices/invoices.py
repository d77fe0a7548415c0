"""Accounts payable hears of its invoices (DESIGN §16): when one is posted to the ERP, and when one
starts waiting for its goods (it is matched and posted on its own once they arrive). Each person
holding the `accounts_payable` role gets an in-page notice and mail in their language, once per
invoice and outcome (keyed `invoice_posted:<id>`, `invoice_waiting:<id>`), whoever runs the pass: on
commit after an invoice is matched or posted, and from the recovery pass as a safety net."""
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

from procurement.models import Membership, NoticeSource
from procurement.models.invoicing import SupplierInvoice
from procurement.notices.derive import Delivery, _handle, _standing_lazy
from procurement.notices.render import absolute, request_facts
from procurement.people.language import languages_of

Status = SupplierInvoice.Status
KINDS = {Status.POSTED: "invoice_posted", Status.WAITING_RECEIPT: "invoice_waiting"}


def accounts_payable():
    """Everyone active who holds the role, once each."""
    users = get_user_model().objects.filter(
        is_active=True, memberships__role=Membership.Role.ACCOUNTS_PAYABLE).distinct().order_by("pk")
    return list(users)


def invoice_notices(task_id) -> int:
    """Tell AP of the task's invoices posted or waiting for goods that nobody told them of yet."""
    return _tell(SupplierInvoice.objects.filter(task_id=task_id, status__in=list(KINDS)))


def invoice_notices_catch_up() -> int:
    """The safety net (recovery pass): recent invoices whose notice is missing."""
    cutoff = timezone.now() - timedelta(seconds=settings.NOTICE_LOOKBACK_SECONDS)
    return _tell(SupplierInvoice.objects.filter(status__in=list(KINDS), created_at__gte=cutoff))


def _key(invoice: SupplierInvoice) -> str:
    return f"{KINDS[invoice.status]}:{invoice.pk}"


def _tell(invoices) -> int:
    invoices = list(invoices.select_related("task__initiator", "supplier"))
    done = set(NoticeSource.objects.filter(key__in=[_key(i) for i in invoices]).values_list("key", flat=True))
    due = [i for i in invoices if _key(i) not in done]
    people = accounts_payable() if due else []  # read once for all the invoices to tell of
    languages = languages_of(people) if people else {}
    return sum(_handle(_key(i), None, lambda i=i: _deliveries(i, people, languages)) for i in due)


def _deliveries(invoice: SupplierInvoice, people: list, languages: dict) -> list[Delivery]:
    if not people:
        return []
    kind, task = KINDS[invoice.status], invoice.task
    context = request_facts(task) | {"invoice": invoice.number, "invoice_total": invoice.total,
                                     "seller": invoice.supplier.name, "standing": _standing_lazy(task)}
    link = absolute(reverse("invoices"))
    return [Delivery(kind, task, _key(invoice), languages[user.pk], link, context, user=user) for user in people]

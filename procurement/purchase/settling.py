"""Settling what a task has in doubt before a person decides, and the cancel that never hides an
effect (DESIGN §6, §14).

Receipts in doubt (`sent`, `unknown`) are looked up by their key, never resent: a person about
to cancel must not cause the very order they cancel. Cancelling a task in review first looks up
every such receipt, the purchase order's included, and only then moves it, in one transaction:
- the ERP holds the order: the task ends `externally_confirmed`, with an event saying the cancel
  came too late; nothing is compensated and the budget stays spent;
- the ERP cannot tell yet: the cancel is refused and nothing is written; the task stays in review;
- otherwise what the ERP lacks is withdrawn (recorded failed, so nobody sends it again) and the
  task is cancelled; its compensation cancels the requisitions and releases the budget.
"""
from dataclasses import dataclass

from django.db import transaction
from django.utils.translation import gettext as _

from agentstate.external import Indeterminate, Outcome
from agentstate.machine import fire
from agentstate.models import Receipt, Task
from agentstate.errors import Conflict
from agentstate.receipts import receipt_record
from agentstate.said import Said, say

from procurement.infra import erp
from procurement.purchase import steps
from procurement.words.labels import OPERATION_LABELS, department_label, label
from procurement.models import BudgetReservation, Notification
from procurement.words.money import ntd
from procurement.infra.queueing import enqueue_advance, notify_on_commit
from procurement.words import error_words
from procurement.words.erp import WITHDRAWN_ON_CANCEL
from procurement.policy.tolerances import purchase_order_record

IN_DOUBT = (Receipt.Status.SENT, Receipt.Status.UNKNOWN)
# Creations the ERP lacks are withdrawn on cancel; a cancellation it lacks is simply sent again.
WITHDRAWABLE = (erp.CREATE_REQUISITION, erp.ISSUE_PURCHASE_ORDER)
WITHDRAWN = WITHDRAWN_ON_CANCEL  # the receipt's note, in words in procurement.words.erp


@dataclass(frozen=True)
class Lookup:
    receipt: Receipt
    found: Outcome | None = None
    absent: bool = False
    error: str = ""

    @property
    def known(self) -> bool:
        return self.found is not None or self.absent


def receipts_in_doubt(task: Task) -> list[Receipt]:
    return list(Receipt.objects.filter(task_id=task.pk, status__in=IN_DOUBT).order_by("created_at"))


def look_up(receipt: Receipt) -> Lookup:
    """What the ERP holds under the receipt's key. Sends nothing."""
    try:
        found = steps.client().lookup(receipt.operation, receipt.idempotency_key, receipt.request)
    except Indeterminate as exc:
        return Lookup(receipt, error=str(exc))
    return Lookup(receipt, found=found, absent=found is None)


def record_found(lookup: Lookup) -> Receipt:
    """Write what the ERP said on the receipt (the task is moved by the caller)."""
    return receipt_record(receipt=lookup.receipt, outcome=lookup.found)


def doubt_message(lookup: Lookup) -> str:
    """The raw error stays in the event log and under the page's details; the person reads its gist."""
    words = error_words(lookup.error)
    if not words:
        return _("%(what)s: the ERP cannot tell yet whether it took effect (%(error)s).") % {
            "what": label(OPERATION_LABELS, lookup.receipt.operation), "error": lookup.error}
    return _("%(what)s: the ERP cannot tell yet whether it took effect. %(why)s") % {
        "what": label(OPERATION_LABELS, lookup.receipt.operation), "why": words}


def purchase_order(task: Task) -> Receipt | None:
    return Receipt.objects.filter(task_id=task.pk, operation=erp.ISSUE_PURCHASE_ORDER,
                                  status=Receipt.Status.CONFIRMED).first()


def cancel_settled(*, task: Task, actor, reason: Said | str, note: str = "",
                   expected_version: int | None = None) -> tuple[Task, str]:
    """Cancel a task in review after settling every receipt in doubt. Returns the task as it ends
    and one sentence for the person saying how. `note`: the person's own words, kept if it is too late."""
    version = task.version if expected_version is None else expected_version
    lookups = [look_up(receipt) for receipt in receipts_in_doubt(task)]
    unknown = [lookup for lookup in lookups if not lookup.known]
    if unknown:
        raise Conflict(_("Nothing was cancelled. %(doubt)s Check the ERP again later, or record the outcome "
                         "you looked up.") % {"doubt": " ".join(doubt_message(u) for u in unknown)},
                       current_version=task.version)
    with transaction.atomic():
        _unchanged_since_lookup(lookups)
        notify_on_commit(task.pk)
        for lookup in lookups:
            if lookup.found is not None:
                receipt_record(receipt=lookup.receipt, outcome=lookup.found)
            elif lookup.receipt.operation in WITHDRAWABLE:
                receipt_record(receipt=lookup.receipt, outcome=Outcome(ok=False, reason=WITHDRAWN))
        order = purchase_order(task)
        if order is not None:
            task = fire(task.pk, "cancel_too_late", actor=actor, expected_version=version,
                        data={"purchase_order": purchase_order_record(task, order.external_id)},
                        reason=say("cancel_too_late", id=order.external_id, note=note))
            return task, _("Too late to cancel: the ERP holds purchase order %(id)s, so the request is ordered. "
                           "Nothing was cancelled.") % {"id": order.external_id}
        task = fire(task.pk, "cancel", actor=actor, expected_version=version, reason=reason)
        enqueue_advance(task.pk)
    return task, _("Cancelled. The agent now cancels the requisition in the ERP and releases the budget.")


def _unchanged_since_lookup(lookups: list[Lookup]):
    """Under the receipts' row locks: nobody (recovery) sent one again while we looked, so what
    the ERP said still holds and a creation it lacked can be withdrawn safely."""
    seen = {lookup.receipt.pk: (lookup.receipt.status, lookup.receipt.attempts) for lookup in lookups}
    now = dict((pk, (status, attempts)) for pk, status, attempts in Receipt.objects.select_for_update(no_key=True)
               .filter(pk__in=seen).values_list("pk", "status", "attempts"))
    if now != seen:
        raise Conflict(_("The ERP is being asked about this request right now; nothing was cancelled. "
                         "Try again in a moment."))


def cancel_preview(task: Task) -> dict:
    """What a cancel would undo, what it cannot, and what it checks in the ERP first."""
    receipts = list(Receipt.objects.filter(task_id=task.pk).order_by("created_at"))
    cancelled = {r.request.get("requisition_id") for r in receipts
                 if r.operation == erp.CANCEL_REQUISITION and r.status == Receipt.Status.CONFIRMED}
    orders = [r for r in receipts if r.operation == erp.ISSUE_PURCHASE_ORDER and r.status == Receipt.Status.CONFIRMED]
    cannot = [_("Purchase order %(id)s is confirmed in the ERP: it cannot be undone here, so the request ends as "
                "ordered and its budget stays spent.") % {"id": r.external_id} for r in orders]
    cannot += [_("The email “%(subject)s” to %(to)s was sent.") % {"subject": n.subject, "to": n.to}
               for n in Notification.objects.filter(task_id=task.pk, status=Notification.Status.SENT)]
    undo = []
    if not orders:
        undo = [_("ERP requisition %(id)s will be cancelled.") % {"id": r.external_id} for r in receipts
                if r.operation == erp.CREATE_REQUISITION and r.status == Receipt.Status.CONFIRMED
                and r.external_id not in cancelled]
        reservation = BudgetReservation.objects.filter(task_id=task.pk, status=BudgetReservation.Status.RESERVED
                                                       ).select_related("department").first()
        if reservation is not None:
            undo.append(_("%(amount)s of the %(department)s budget will be released.") % {
                "amount": ntd(reservation.amount), "department": department_label(reservation.department)})
    check = [_("%(what)s: result pending verification. The ERP is asked first; if it holds the order, nothing is "
               "cancelled.") % {"what": label(OPERATION_LABELS, r.operation)} for r in receipts if r.status in IN_DOUBT]
    return {"undo": undo, "cannot_undo": cannot, "check_first": check}

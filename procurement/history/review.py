"""The work queue's actions on a task in `needs_review` (DESIGN §4, §14), as services the pages,
the API and admin actions call:

- review_reconcile: check the ERP again (the receipts in doubt, by key); the task goes where the
  truth is, or stays in review with a note of the check;
- review_record_outcome: the ERP reference a person looked up, verified by key where the ERP
  answers, recorded on the receipt in doubt;
- review_retry: run the failed step again;
- review_cancel: cancel with compensation (settling.cancel_settled), after review_cancel_preview.

Each takes the version the person saw and a reason, and is recorded with who and why. A task
that left review, or moved since that version: 409 with what changed, nothing written. Not
visible: 404; visible but not theirs to act on: 403.
"""
import re

from django.db import transaction
from django.utils.translation import gettext as _

from agentstate.actors import Actor
from agentstate.errors import Conflict, DomainError, StaleVersion
from agentstate.errors import said as worded
from agentstate.external import Indeterminate, Outcome
from agentstate.machine import fire, task_note
from agentstate.models import Receipt, Task
from agentstate.receipts import receipt_record, receipt_renew_budget
from agentstate.said import Said, event_fields, say

from procurement.infra import erp
from procurement.purchase import settling, steps
from procurement import workflow
from procurement.words.people import person_label
from procurement.policy import last_step
from procurement.policy.tolerances import purchase_order_record

from procurement.words.changes import what_changed
from procurement.infra.queueing import enqueue_advance, notify_on_commit
from procurement.selectors.queue import review_task_for

MAX_REASON = 1000
MAX_EXTERNAL_ID = 120
ERP_REFERENCE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]*")  # "PO-000123": no spaces, no markup
NOTE = "review.note"  # a check that moved nothing, kept in the history with who and why
# Which event runs the failed step again, by the step it failed at.
RETRY_EVENTS = {"issue_purchase_order": "retry_order", "compensate": "cancel"}


def review_reconcile(*, user, task_id, expected_version: int, reason: str) -> tuple[Task, str]:
    task, reason = _reviewable(user, task_id, expected_version, reason)
    lookups = [settling.look_up(receipt) for receipt in settling.receipts_in_doubt(task)]
    if not lookups:
        raise Conflict(said=say("review_nothing_in_doubt"), current_version=task.version)
    with transaction.atomic():
        _still_current(task)
        for lookup in lookups:
            if lookup.found is not None:
                settling.record_found(lookup)
        unknown = [lookup for lookup in lookups if not lookup.known]
        if unknown:
            doubt = " ".join(settling.doubt_message(u) for u in unknown)
            _note(task, user, say("still_in_doubt", errors=[u.error for u in unknown], note=reason))
            return task, _("Still in doubt. %(doubt)s The request stays in review.") % {"doubt": doubt}
        return _follow(task, user, lookups, reason, event="reconcile", verified=None)


def review_record_outcome(*, user, task_id, expected_version: int, reason: str, external_id: str) -> tuple[Task, str]:
    task, reason = _reviewable(user, task_id, expected_version, reason)
    external_id = (external_id or "").strip()
    if not external_id or len(external_id) > MAX_EXTERNAL_ID:
        raise DomainError(said=say("review_reference_needed", n=MAX_EXTERNAL_ID),
                          errors={"external_id": [_("This field is required.")]})
    if not ERP_REFERENCE.fullmatch(external_id):
        refused = say("review_reference_shape")
        raise DomainError(said=refused, errors={"external_id": [str(refused)]})
    receipt = _current_doubt(task)
    if receipt is None:
        raise Conflict(said=say("review_no_outcome"), current_version=task.version)
    outcome, verified = _verify(receipt, external_id)
    with transaction.atomic():
        _still_current(task)
        receipt_record(receipt=receipt, outcome=outcome)
        lookup = settling.Lookup(receipt, found=outcome)
        return _follow(task, user, [lookup], reason, event="record_outcome", verified=verified)


def review_retry(*, user, task_id, expected_version: int, reason: str, approver: str = "") -> tuple[Task, str]:
    """Run the failed step again. Above every approval limit an admin may name who decides
    (`approver`, a user name; procurement.policy.last_step): the routing step then routes to them."""
    task, reason = _reviewable(user, task_id, expected_version, reason)
    if not task.step:
        raise Conflict(said=say("review_no_step"), current_version=task.version)
    data, why, said = {}, say("retried", step=task.step, note=reason), _("The agent runs the step again.")
    if approver:
        data = last_step.choose(task, chooser=user, username=approver, reason=reason)
        why = say("approver_named", who=user.get_username(), person=approver, note=reason)
        said = _("%(person)s decides this request: the agent opens the approval.") % {
            "person": person_label(approver)}
    event = RETRY_EVENTS.get(task.step, "retry")
    with transaction.atomic():
        task = fire(task.pk, event, actor=_actor(user), expected_version=task.version, data=data, reason=why)
        # A retry really sends again: the receipts' spent sends are not held against it.
        receipt_renew_budget(task_id=task.pk)
        enqueue_advance(task.pk)
        notify_on_commit(task.pk)
    return task, said


def review_cancel_preview(*, user, task_id) -> tuple[Task, dict]:
    task = review_task_for(user=user, task_id=task_id)
    return task, settling.cancel_preview(task)


def review_cancel(*, user, task_id, expected_version: int, reason: str) -> tuple[Task, str]:
    task, reason = _reviewable(user, task_id, expected_version, reason)
    return settling.cancel_settled(task=task, actor=_actor(user), reason=say("cancelled_from_queue", note=reason),
                                   note=reason, expected_version=task.version)


# -- the checks every action makes ------------------------------------------------------

def _reviewable(user, task_id, expected_version: int, reason: str) -> tuple[Task, str]:
    task = review_task_for(user=user, task_id=task_id)
    reason = (reason or "").strip()
    if not reason or len(reason) > MAX_REASON:
        raise DomainError(said=say("review_reason_needed", n=MAX_REASON), errors={"reason": [_("This field is required.")]})
    if task.state != workflow.NEEDS_REVIEW or task.version != expected_version:
        raise worded(StaleVersion(what_changed(task, expected_version), current_version=task.version))
    return task, reason


def _still_current(task: Task):
    """Under the row lock: nobody moved the task while the ERP was asked."""
    current = Task.objects.select_for_update(no_key=True).filter(pk=task.pk).values("version", "state").get()
    if current["version"] != task.version or current["state"] != workflow.NEEDS_REVIEW:
        seen = task.version
        task.refresh_from_db()
        raise worded(StaleVersion(what_changed(task, seen), current_version=current["version"]))


def _actor(user) -> Actor:
    return Actor(user=user, roles=frozenset({workflow.REVIEWER}))


def _note(task: Task, user, reason: Said):
    text, data = event_fields(reason)
    task_note(task.pk, NOTE, actor=user, reason=text, data=data)


# -- where the truth sends the task -----------------------------------------------------

def _current_doubt(task: Task) -> Receipt | None:
    scope = f"r{task.data.get('revision', 1)}"
    doubts = [r for r in settling.receipts_in_doubt(task) if r.scope == scope]
    orders = [r for r in doubts if r.operation == erp.ISSUE_PURCHASE_ORDER]
    return (orders or doubts or [None])[0]


def _verify(receipt: Receipt, external_id: str) -> tuple[Outcome, bool]:
    """The person's reference, checked by the receipt's key where the ERP answers."""
    try:
        found = steps.client().lookup(receipt.operation, receipt.idempotency_key, receipt.request)
    except Indeterminate:
        return Outcome(ok=True, external_id=external_id, response={"id": external_id, "verified": False}), False
    if found is None:
        raise DomainError(said=say("review_reference_unknown", id=external_id),
                          errors={"external_id": [_("Not found in the ERP for this request.")]})
    if found.external_id != external_id:
        raise DomainError(said=say("review_reference_other", found=found.external_id, id=external_id),
                          errors={"external_id": [_("Does not match the ERP.")]})
    return found, True


def _follow(task: Task, user, lookups: list, reason: str, *, event: str, verified: bool | None) -> tuple[Task, str]:
    """Every doubt is settled: move the task where the ERP says it is. Call under the row lock.
    `verified`: None when the person had the ERP checked again, else whether the outcome they
    recorded was verified by key."""
    notify_on_commit(task.pk)
    scope = f"r{task.data.get('revision', 1)}"
    current = {l.receipt.operation: l for l in lookups if l.receipt.scope == scope}
    order, requisition = current.get(erp.ISSUE_PURCHASE_ORDER), current.get(erp.CREATE_REQUISITION)
    actor, who = _actor(user), user.get_username()
    how = {"person": who, "note": reason} if verified is None else {"person": who, "verified": verified, "note": reason}
    checked = "checked" if verified is None else "recorded"
    if order is not None and order.found is not None:
        task = fire(task.pk, "confirm", actor=actor, expected_version=task.version,
                    data={"purchase_order": purchase_order_record(task, order.found.external_id)},
                    reason=say(f"{checked}_order", id=order.found.external_id, **how))
        return task, _("The ERP holds purchase order %(id)s: the request is ordered.") % {"id": order.found.external_id}
    if order is not None:  # confirmed absent: the approved order is sent again under the same key
        task = fire(task.pk, "retry_order", actor=actor, expected_version=task.version,
                    reason=say(f"{checked}_resent", **how))
        enqueue_advance(task.pk)
        return task, _("The ERP has no purchase order for it: the agent sends the approved order again, "
                       "under the same key.")
    data, step, said = {}, None, _("Nothing of this request's current version was in doubt: the agent goes on.")
    if requisition is not None and requisition.found is not None:
        found = requisition.found
        data = {"requisition": {"id": found.external_id, "key": requisition.receipt.idempotency_key}}
        step, said = "open_approval", _("The ERP holds ERP requisition %(id)s: the request goes on to approval.") % {
            "id": found.external_id}
    elif requisition is not None:
        said = _("The ERP has no requisition for it: the agent creates it again, under the same key.")
    if step is None:
        event = RETRY_EVENTS.get(task.step, event)  # an order or a compensation runs where it belongs
    task = fire(task.pk, event, actor=actor, expected_version=task.version, data=data, step=step,
                reason=say(checked, **how))
    enqueue_advance(task.pk)
    return task, said

"""The receipt protocol for every call that changes another system (DESIGN §6).

1. receipt_plan: a committed `planned` row with a stable idempotency key.
2. receipt_perform: mark `sent`, call with the key.
3. A clear answer is recorded (`confirmed`/`failed`) and the caller's on_outcome fires the
   transition in the same transaction.
4. An unclear one is looked up by key: found → confirmed; confirmed absent → resend with
   the same key (bounded: `max_sends` since the receipt's `sends_counted_from`); cannot tell →
   `unknown`, and the task is flagged for review.
5. A person's retry renews the bound (receipt_renew_budget): the step then looks the key up once
   more and, if the other side still has nothing, sends again.
"""
import hashlib
import logging

from django.db import transaction
from django.db.models import F

from . import sql
from .actors import Actor
from .errors import Conflict, DomainError
from .external import ExternalClient, Indeterminate, Outcome
from .kinds import get_kind
from .models import Receipt
from .said import say

log = logging.getLogger(__name__)
MAX_SENDS = 3
OPEN = (Receipt.Status.PLANNED, Receipt.Status.SENT, Receipt.Status.UNKNOWN)


def idempotency_key(task_id, operation: str, scope: str) -> str:
    return f"{task_id}:{operation}:{scope}"


def fingerprint(request: dict) -> str:
    return hashlib.sha256(sql.dumps(request).encode()).hexdigest()


def receipt_plan(*, task, operation: str, scope: str, request: dict) -> Receipt:
    """The planned receipt for (task, operation, scope); the same one on every retry."""
    key = idempotency_key(task.pk, operation, scope)
    receipt, created = Receipt.objects.get_or_create(
        idempotency_key=key,
        defaults={"task_id": task.pk, "operation": operation, "scope": scope, "request": request,
                  "fingerprint": fingerprint(request)})
    if not created and receipt.fingerprint != fingerprint(request):
        raise Conflict(f"Receipt {key} was planned with a different request; a changed request needs a new scope.")
    return receipt


def receipt_perform(*, receipt: Receipt, client: ExternalClient, on_outcome=None,
                    max_sends: int = MAX_SENDS, fence=None) -> Receipt:
    """Steps 2–4. Safe to run twice: a decided receipt is returned as it is.

    `fence()`, if given, runs in the transaction that marks the receipt `sent`, after the mark
    (receipt row first, then whatever it locks: the order receipt_record takes), before every
    send; it raises to refuse the send (the caller's lease was reclaimed, its task moved on),
    and then nothing is marked and nothing is sent.
    """
    if receipt.status in (Receipt.Status.CONFIRMED, Receipt.Status.FAILED):
        return receipt
    if receipt.status == Receipt.Status.PLANNED:
        outcome = _send(receipt, client, fence)
    else:
        # Sent before (we may have crashed waiting) or unknown: never resend blindly.
        outcome = None
    if outcome is None:
        outcome = _resolve(receipt, client, max_sends, fence)
    if outcome is None:
        return receipt_mark_unknown(receipt=receipt)
    return receipt_record(receipt=receipt, outcome=outcome, on_outcome=on_outcome)


def receipt_reconcile(*, receipt: Receipt, client: ExternalClient, on_outcome=None,
                      max_sends: int = MAX_SENDS) -> Receipt:
    """Recovery: settle a `sent` or `unknown` receipt by looking its key up."""
    receipt.refresh_from_db()
    if receipt.status == Receipt.Status.PLANNED:
        return receipt  # never sent: the step that planned it will send it when it runs again
    return receipt_perform(receipt=receipt, client=client, on_outcome=on_outcome, max_sends=max_sends)


def _send(receipt: Receipt, client: ExternalClient, fence=None) -> Outcome | None:
    with transaction.atomic():
        Receipt.objects.filter(pk=receipt.pk).update(status=Receipt.Status.SENT, attempts=F("attempts") + 1)
        if fence is not None:
            fence()
    receipt.status, receipt.attempts = Receipt.Status.SENT, receipt.attempts + 1
    try:
        return client.send(receipt.operation, receipt.idempotency_key, receipt.request)
    except Indeterminate as exc:
        log.warning("receipt %s: no clear answer (%s); looking it up", receipt.idempotency_key, exc)
        receipt.error = str(exc)
        return None


def _resolve(receipt: Receipt, client: ExternalClient, max_sends: int, fence=None) -> Outcome | None:
    """Look the key up; resend only when the other side confirms it has nothing."""
    while True:
        try:
            found = client.lookup(receipt.operation, receipt.idempotency_key, receipt.request)
        except Indeterminate as exc:
            receipt.error = f"could not verify: {exc}"
            return None
        if found is not None:
            return found
        if receipt.attempts - receipt.sends_counted_from >= max_sends:
            receipt.error = f"still absent after {receipt.attempts} sends"
            return None
        outcome = _send(receipt, client, fence)
        if outcome is not None:
            return outcome


def receipt_record(*, receipt: Receipt, outcome: Outcome, on_outcome=None) -> Receipt:
    status = Receipt.Status.CONFIRMED if outcome.ok else Receipt.Status.FAILED
    with transaction.atomic():
        written = Receipt.objects.filter(pk=receipt.pk, status__in=OPEN).update(
            status=status, external_id=outcome.external_id, response=outcome.response,
            error="" if outcome.ok else outcome.reason)
        receipt.refresh_from_db()
        if written and on_outcome is not None:
            try:
                with transaction.atomic():
                    on_outcome(receipt)
            except Conflict as exc:
                # The task moved meanwhile; the receipt is kept whatever happens to its version,
                # and the task's own next step sees it and compensates.
                log.warning("receipt %s recorded, but its transition was refused: %s", receipt.pk, exc)
    return receipt


def receipt_mark_unknown(*, receipt: Receipt) -> Receipt:
    """The outcome cannot be told: say so on the receipt and send the task to review."""
    with transaction.atomic():
        Receipt.objects.filter(pk=receipt.pk, status__in=OPEN).update(
            status=Receipt.Status.UNKNOWN, error=receipt.error or "outcome could not be verified")
        receipt.refresh_from_db()
        _flag_task(receipt)
    return receipt


def _flag_task(receipt: Receipt):
    from .machine import fire

    task = receipt.task
    event = get_kind(task.kind).unknown_outcome_event
    if not event:
        return
    try:
        with transaction.atomic():
            fire(task.pk, event, actor=Actor.runtime("receipts"),
                 reason=say("pending_verification", operation=receipt.operation, error=receipt.error),
                 refs=[{"receipt": str(receipt.pk), "status": receipt.status}])
    except DomainError as exc:
        log.info("task %s not flagged for receipt %s: %s", task.pk, receipt.pk, exc)


def receipt_renew_budget(*, task_id) -> int:
    """A person retries the task's step: its receipts still open get a fresh send budget, counted
    from the sends made so far, so the step's next run looks each key up and may send again.
    Runs in the caller's transaction; answers how many receipts it renewed."""
    return Receipt.objects.filter(task_id=task_id, status__in=OPEN).update(sends_counted_from=F("attempts"))


def receipts_open():
    """Receipts whose outcome recovery must settle."""
    return Receipt.objects.filter(status__in=[Receipt.Status.SENT, Receipt.Status.UNKNOWN])

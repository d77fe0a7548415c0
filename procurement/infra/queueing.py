"""Putting agent work on the Celery queue, in one place that services, steps, recovery and the
Celery tasks all use. It names the Celery tasks instead of importing them, so no import cycle
runs between steps and tasks (DESIGN §3). Notices are written by whoever the app names at start
(`notices_written_by`, procurement.notices.derive), so the queue knows no notice."""
import logging

from django.db import transaction
from django.utils import timezone

from procurement.celery import app

log = logging.getLogger(__name__)
ADVANCE = "procurement.tasks.advance"
DISPATCH_OUTBOX = "procurement.tasks.dispatch_outbox"
ERP_SEND = "procurement.tasks.erp_send"
INVOICE_POST = "procurement.tasks.invoice_post"
INVOICES_MATCH = "procurement.tasks.invoices_match"
EXCEPTION_DECIDED = "procurement.tasks.invoice_exception_decided"
_write_notices = None  # task id -> how many notices were written; named by the app's ready()
_write_delegation_notices = None  # () -> how many; named by the app's ready()


def notices_written_by(writer, delegations=None) -> None:
    """Name the functions that turn a task's new events, and new or starting delegations, into
    notices (the app does, at start)."""
    global _write_notices, _write_delegation_notices
    _write_notices = writer
    _write_delegation_notices = delegations


def notify_delegations_on_commit():
    """Once the current transaction commits, tell the delegates of new delegations (the recovery
    pass does too, and on each one's first day)."""
    transaction.on_commit(_notify_delegations)


def _notify_delegations():
    try:
        written = _write_delegation_notices() if _write_delegation_notices else 0
    except Exception:
        log.exception("delegation notices not written now; the recovery pass will")
        return
    if written:
        _task(DISPATCH_OUTBOX).delay()


def _task(name: str):
    # Registered when procurement.tasks is imported (the app's ready() does), so eager mode and
    # test doubles patched onto the task object apply here too.
    return app.tasks[name]


def advance_now(task_id, *, busy: int = 0, countdown: float | None = None):
    """Queue the task's next step now (recovery, a step chaining the next one, a retry)."""
    kwargs = {"busy": busy} if busy else {}
    if countdown is None and not kwargs:
        return _task(ADVANCE).delay(str(task_id))
    return _task(ADVANCE).apply_async((str(task_id),), kwargs, countdown=countdown)


def enqueue_advance(task_id):
    """Queue the next step once the current transaction commits."""
    transaction.on_commit(lambda: advance_now(task_id))


def enqueue_erp_send(receipt_id):
    """Send a planned ERP call (a goods receipt, a close) once the current transaction commits."""
    transaction.on_commit(lambda: _task(ERP_SEND).delay(str(receipt_id)))


def enqueue_invoice_post(invoice_id):
    """Post a matched supplier invoice to the ERP once the current transaction commits."""
    transaction.on_commit(lambda: _task(INVOICE_POST).delay(str(invoice_id)))


def enqueue_invoices_match(task_id):
    """Match the task's invoices waiting for goods again once the current transaction commits
    (a goods receipt or a return was recorded)."""
    transaction.on_commit(lambda: _task(INVOICES_MATCH).delay(str(task_id)))


def enqueue_exception_decided(approval_id):
    """An invoice exception's approval was decided: post or refuse the invoice once this commits."""
    transaction.on_commit(lambda: _task(EXCEPTION_DECIDED).delay(str(approval_id)))


def dispatch_at(when):
    """Send the mail held until `when` then, once the current transaction commits (the recovery
    pass sends it too, if this is lost)."""
    delay = max(0.0, (when - timezone.now()).total_seconds()) + 1
    transaction.on_commit(lambda: _task(DISPATCH_OUTBOX).apply_async(countdown=delay))


def enqueue_outbox():
    """Send queued mail once the current transaction commits."""
    transaction.on_commit(lambda: _task(DISPATCH_OUTBOX).delay())


def notify_on_commit(task_id):
    """Once the current transaction commits, turn the task's new events into notices."""
    transaction.on_commit(lambda: notify_now(task_id))


def notify_now(task_id):
    """Notices for the task's events not yet noticed, then their mail from a worker. A failure here
    loses nothing: the recovery pass writes what is missing."""
    try:
        written = _write_notices(task_id) if _write_notices else 0
    except Exception:
        log.exception("task %s: notices not written now; the recovery pass will", task_id)
        return
    if written:
        _task(DISPATCH_OUTBOX).delay()

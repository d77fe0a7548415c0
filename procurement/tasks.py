"""Celery tasks: thin wrappers that take ids and are safe to receive twice. Queueing them is
procurement.infra.queueing's job."""
import logging
import os
import socket
import time

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from agentstate import trace
from agentstate.errors import Conflict
from agentstate.leases import lease_claim_task, lease_release
from agentstate.memory.sweeps import memory_maintenance as sweep
from agentstate.models import Approval, Task
from agentstate.retention import state_prune
from agentstate.recovery import recovery_pass
from agentstate.upgrades import task_upgrade

from procurement.infra import queueing
from procurement.purchase import retries, steps
from procurement.infra.faults import crash_point
from procurement.notices.arrivals import arrival_checks
from procurement.notices.invoices import invoice_notices_catch_up
from procurement.notices.derive import approval_reminders, notices_catch_up, notices_for_task
from procurement.notices.delegations import delegation_notices
from procurement.policy.escalation import approvals_escalate
from procurement.infra.outbox import outbox_dispatch, outbox_mark_stuck
from procurement.receiving.services import erp_receipt_send
from procurement.invoicing import exceptions, matching
from procurement.invoicing import services as invoicing_services

log = logging.getLogger(__name__)
WORKER = f"{socket.gethostname()}:{os.getpid()}"
BUSY_RETRY_SECONDS = 2
MAX_BUSY_RETRIES = 10


@shared_task(acks_late=True)
def advance(task_id: str, busy: int = 0):
    """Run the task's next step, if it has one and nobody else holds it. A step that fails is
    tried again after a back-off, until retries.gives_up: then the task goes to review. All of
    it (the ERP calls, the mail, the next message queued) is part of the task's trace. The lease
    and the task (its trace id with it) are one statement."""
    claimed = lease_claim_task(task_id=task_id, worker=WORKER, seconds=settings.AGENT_LEASE_SECONDS)
    if claimed is None:
        trace_id = Task.objects.filter(pk=task_id).values_list("trace_id", flat=True).first() or ""
        with trace.using(trace_id):
            _retry_busy(task_id, busy)
        return "busy"
    lease, task = claimed
    with trace.using(task.trace_id):
        return _advance(task, lease)


def _advance(task: Task, lease):
    """Run the task's due steps under one lease: after a step whose own move left the task runnable,
    the next step runs at once (each still its own move, conditional on the version it read and
    the lease's token), up to AGENT_STEPS_PER_CLAIM steps and while half the lease is left; then
    the lease is released and, if more is due, the next step is queued."""
    task_id = task.pk
    failures, error, moved = 0, "", None
    try:
        # A task written by an older schema is brought to the current shape before a step reads it.
        task = task_upgrade(task)
        if not task.runnable:
            return "idle"
        ran = 0
        while True:
            crash_point("holding_lease")
            error, moved = _run(task, lease)
            ran += 1
            if error or moved is None or not moved.runnable or not _may_go_on(lease, ran):
                break
            task = moved
        if error:
            failures = retries.step_failure_record(task=task, lease=lease, error=error)
            if retries.gives_up(failures) and retries.step_give_up(task=task, lease=lease, failures=failures,
                                                                   error=error):
                failures = 0
    finally:
        lease_release(lease=lease, failures=failures)
    queueing.notify_now(task_id)
    crash_point("before_enqueue")
    if failures:
        queueing.advance_now(task_id, countdown=retries.retry_delay(failures))
        return "failed"
    # The step's own move says whether more is due; anyone who moved the task since queues its
    # next step themselves (and finds the lease free once it is released, or retries while busy).
    if moved.runnable if moved is not None else Task.objects.filter(pk=task_id, runnable=True).exists():
        queueing.advance_now(task_id)
    return "done"


def _may_go_on(lease, ran: int) -> bool:
    """Another step under this lease: fewer than AGENT_STEPS_PER_CLAIM ran, and more than half the
    lease is left (a step never starts near its lease's end; recovery reclaims only an expired one)."""
    left = (lease.until - timezone.now()).total_seconds()
    return ran < settings.AGENT_STEPS_PER_CLAIM and left > settings.AGENT_LEASE_SECONDS / 2


def _run(task: Task, lease) -> tuple[str, Task | None]:
    """Run one step: the error that makes it a failure ("" when it finished or was overtaken), and
    the task as the step's own move left it (None when it did not move it)."""
    try:
        finished = steps.run(task, lease)
    except Conflict as exc:
        if Task.objects.filter(pk=task.pk, version=task.version).exists():
            return f"{type(exc).__name__}: {exc}", None  # refused, not overtaken: the step cannot go on from here
        # Someone moved the task while this step worked: its result is dropped and re-planned.
        log.info("task %s: step result discarded: %s", task.pk, exc)
        return "", None
    except steps.StepBlocked as exc:
        log.warning("task %s: %s", task.pk, exc)
        return str(exc), None
    except Exception as exc:  # noqa: BLE001 - any failure of a step counts towards giving up
        log.exception("task %s: step %s failed", task.pk, task.step)
        return f"{type(exc).__name__}: {exc}", None
    if finished.version > task.version:
        return "", finished  # the step's move committed (fire returned it; a rollback would have raised)
    if Task.objects.filter(pk=task.pk, version=task.version).exists():
        return f"step {task.step!r} finished without moving the task", None
    return "", None


def _retry_busy(task_id: str, busy: int):
    """Another worker or a person holds the task: try again shortly, a bounded number of times
    (after that, recovery finds it idle and hands it out again)."""
    if busy >= MAX_BUSY_RETRIES or not Task.objects.filter(pk=task_id, runnable=True).exists():
        return
    if advance.app.conf.task_always_eager:
        time.sleep(0.1)  # in-process runs ignore the countdown; let the holder (another thread) finish
    queueing.advance_now(task_id, busy=busy + 1, countdown=BUSY_RETRY_SECONDS)


@shared_task(acks_late=True)
def dispatch_outbox():
    return outbox_dispatch()


@shared_task
def recover():
    """The recovery pass (beat): leases, idle tasks, open receipts, approval expiry, notices (a delegation's
    first day too), outbox."""
    report = recovery_pass()
    notices_catch_up()
    invoice_notices_catch_up()
    approval_reminders()
    arrival_checks()
    delegation_notices()
    outbox_mark_stuck(older_than_seconds=settings.AGENT_LEASE_SECONDS)
    outbox_dispatch()
    return str(report)


@shared_task
def escalate_approvals():
    """Offer approval steps waiting past their escalation time to their backup (beat), and tell them."""
    escalated = approvals_escalate()
    for task_id in Approval.objects.filter(pk__in=escalated).values_list("task_id", flat=True):
        notices_for_task(task_id)
    if escalated:
        outbox_dispatch()
    return len(escalated)


@shared_task(acks_late=True)
def erp_send(receipt_id: str):
    """Send one planned receiving call to the ERP (receipts protocol: safe to receive twice)."""
    return erp_receipt_send(receipt_id=receipt_id).status


@shared_task(acks_late=True)
def invoice_post(invoice_id: str):
    """Post one matched supplier invoice to the ERP (receipts protocol: safe to receive twice)."""
    return invoicing_services.invoice_post(invoice_id=invoice_id).status


@shared_task(acks_late=True)
def invoices_match(task_id: str):
    """Goods arrived: match the task's invoices waiting for them (each posted once if matched)."""
    return [str(invoice.pk) for invoice in matching.invoices_rematch(task_id)]


@shared_task(acks_late=True)
def invoice_exception_decided(approval_id: str):
    """An invoice exception decided: approved, posted with the variance; rejected, refused and the supplier told."""
    invoice = exceptions.exception_decided(approval_id)
    return invoice.status if invoice else None


@shared_task
def memory_maintenance():
    """Expire, flag for reconfirmation and purge memory under the retention settings."""
    return str(sweep())


@shared_task
def prune_state():
    """Retention (beat, daily): old checkpoints, folded chat turns, sessions moved on by time."""
    return " ".join(state_prune().lines())

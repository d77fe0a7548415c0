"""Celery tasks: thin wrappers that take ids and are safe to receive twice. Queueing them is
procurement.queueing's job."""
import logging
import os
import socket
import time

from celery import shared_task
from django.conf import settings

from agentstate.errors import Conflict
from agentstate.leases import lease_claim, lease_release
from agentstate.models import Task
from agentstate.recovery import recovery_pass

from . import queueing, steps
from .faults import crash_point
from .notices.derive import approval_reminders, notices_catch_up
from .outbox import outbox_dispatch, outbox_mark_stuck

log = logging.getLogger(__name__)
WORKER = f"{socket.gethostname()}:{os.getpid()}"
BUSY_RETRY_SECONDS = 2
MAX_BUSY_RETRIES = 10


@shared_task(acks_late=True)
def advance(task_id: str, busy: int = 0):
    """Run the task's next step, if it has one and nobody else holds it."""
    lease = lease_claim(task_id=task_id, worker=WORKER, seconds=settings.AGENT_LEASE_SECONDS)
    if lease is None:
        _retry_busy(task_id, busy)
        return "busy"
    try:
        task = Task.objects.get(pk=task_id)
        if not task.runnable:
            return "idle"
        crash_point("holding_lease")
        steps.run(task, lease)
    except Conflict as exc:
        # Someone moved the task while this step worked: its result is dropped and re-planned.
        log.info("task %s: step result discarded: %s", task_id, exc)
    except steps.StepBlocked as exc:
        log.warning("task %s: %s", task_id, exc)
        return "blocked"
    finally:
        lease_release(lease=lease)
    queueing.notify_now(task_id)
    crash_point("before_enqueue")
    if Task.objects.filter(pk=task_id, runnable=True).exists():
        queueing.advance_now(task_id)
    return "done"


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
    """The recovery pass (beat): leases, idle tasks, open receipts, approval expiry, notices, outbox."""
    report = recovery_pass()
    notices_catch_up()
    approval_reminders()
    outbox_mark_stuck(older_than_seconds=settings.AGENT_LEASE_SECONDS)
    outbox_dispatch()
    return str(report)


@shared_task
def memory_maintenance():
    """Expire, flag for reconfirmation and purge memory under the retention settings."""
    from agentstate.memory.sweeps import memory_maintenance as sweep

    return str(sweep())

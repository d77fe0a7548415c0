"""Retries end (DESIGN §4, §14): a step that fails AGENT_MAX_ATTEMPTS times in a row sends its
task to `needs_review` with the last error, instead of being retried forever.

A failure is counted against the step and the task version it ran at: each one is a
`step_failed` event in the task's history (the step and the error in its data), so a person
sees every try, and the count starts again as soon as the task moves (the step finished, or a
person or another worker moved it). Between tries the wait doubles.
"""
from django.conf import settings
from django.db import transaction

from agentstate.actors import Actor
from agentstate.errors import Conflict, LeaseLost, StaleVersion
from agentstate.leases import Lease
from agentstate.machine import fire, task_note
from agentstate.models import Task, TaskEvent
from agentstate.said import say

STEP_FAILED = "step_failed"
MAX_ERROR = 500


def step_failure_record(*, task: Task, lease: Lease, error: str) -> int:
    """Note one failure of the task's current step; returns its failures in a row so far."""
    with transaction.atomic():
        try:
            task_note(task.pk, STEP_FAILED, actor=Actor.runtime(lease.worker), expected_version=task.version,
                      lease_token=lease.token, reason=error[:MAX_ERROR],
                      data={"step": task.step, "error": error[:MAX_ERROR]})
        except (StaleVersion, LeaseLost):
            return 0  # moved meanwhile: whoever moved it decides what comes next
        return step_failures(task)


def step_failures(task: Task) -> int:
    return TaskEvent.objects.filter(task_id=task.pk, event=STEP_FAILED, version=task.version,
                                    data__step=task.step).count()


def step_give_up(*, task: Task, lease: Lease, failures: int, error: str) -> bool:
    """Move the task to review with the last error. False if it moved meanwhile."""
    try:
        fire(task.pk, "give_up", actor=Actor.runtime(lease.worker), expected_version=task.version,
             lease_token=lease.token,
             reason=say("step_failed", step=task.step, n=failures, error=error[:MAX_ERROR]))
    except Conflict:
        return False
    return True


def retry_delay(failures: int) -> float:
    """Seconds before the next try: the base, doubled after each failure."""
    return float(settings.AGENT_RETRY_BACKOFF_SECONDS * 2 ** max(failures - 1, 0))


def gives_up(failures: int) -> bool:
    return failures >= settings.AGENT_MAX_ATTEMPTS

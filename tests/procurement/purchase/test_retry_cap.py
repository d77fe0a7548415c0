"""Retries end (DESIGN §14): on a REAL Celery worker against the ERP simulator set to fail, a step
that fails AGENT_MAX_ATTEMPTS times in a row moves its task to `needs_review` with the last
error, each failure in its history, and no further tries."""
import time

import pytest

from agentstate.models import Task, TaskEvent
from procurement.history import review
from procurement.purchase import services
from procurement.models import BudgetReservation

pytestmark = [pytest.mark.redis, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

TIMEOUT = 60
MAX_ATTEMPTS = 3


def state_of(task) -> str:
    return Task.objects.values_list("state", flat=True).get(pk=task.pk)


def failures(task) -> list[TaskEvent]:
    return list(TaskEvent.objects.filter(task_id=task.pk, event="step_failed").order_by("id"))


def test_a_compensation_failing_against_a_down_erp_gives_up_into_review_with_the_last_error(
        demo, celery_worker_proc, erp_server):
    worker = celery_worker_proc
    worker.start({"AGENT_MAX_ATTEMPTS": str(MAX_ATTEMPTS), "AGENT_RETRY_BACKOFF_SECONDS": "1"})
    task = services.request_submit(requester=demo["alice"], department="ENG", justification="new hires",
                                   lines=[{"description": "Laptop", "quantity": 2}])
    worker.wait_for(lambda: state_of(task) == "awaiting_approval", TIMEOUT, what="awaiting_approval")
    erp_server.fault(mode="down", path="/requisitions")

    services.request_cancel(task_id=task.pk, user=demo["alice"], reason="not needed")

    worker.wait_for(lambda: state_of(task) == "needs_review", TIMEOUT, interval=0.3, what="needs_review")
    tries = failures(task)
    assert len(tries) == MAX_ATTEMPTS and {e.data["step"] for e in tries} == {"compensate"}
    gave_up = TaskEvent.objects.get(task_id=task.pk, event="give_up")
    assert (gave_up.from_state, gave_up.to_state) == ("cancelled", "needs_review")
    assert f"failed {MAX_ATTEMPTS} times" in gave_up.reason and tries[-1].data["error"] in gave_up.reason
    assert Task.objects.get(pk=task.pk).runnable is False
    assert BudgetReservation.objects.filter(task_id=task.pk, status__in=["reserved", "held"]).exists(), \
        "the budget is not released while the requisition may still be live"

    time.sleep(4)  # longer than the next back-off would have been: nothing tries again
    assert len(failures(task)) == MAX_ATTEMPTS and state_of(task) == "needs_review"
    erp_server.clear_faults()
    assert [r["status"] for r in erp_server.requisitions()] == ["pending_approval"], "still live: a person must look"

    # The ERP is back: carol checks it again from the work queue, and the compensation finishes.
    in_review = Task.objects.get(pk=task.pk)
    review.review_reconcile(user=demo["carol"], task_id=task.pk, expected_version=in_review.version,
                            reason="ERP is back")
    live = BudgetReservation.objects.filter(task_id=task.pk, status__in=["reserved", "held"])
    worker.wait_for(lambda: not live.exists(),
                    TIMEOUT, interval=0.3, what="budget released")
    assert state_of(task) == "cancelled"
    assert [r["status"] for r in erp_server.requisitions()] == ["cancelled"]
    assert TaskEvent.objects.filter(task_id=task.pk, event="cancel", actor="carol").exists()


def test_a_persons_retry_on_a_real_worker_sends_again_once_the_erp_has_recovered(
        demo, celery_worker_proc, erp_server):
    """The ERP answers every requisition with 503 (the receipt's 3 sends are spent, the lookups say
    "absent"): needs_review. The ERP recovers; carol retries the step; the worker looks the key
    up once more, sends with a fresh budget and the request goes on to its approval."""
    from agentstate.models import Receipt

    worker = celery_worker_proc
    erp_server.fault(mode="error", path="/requisitions", method="POST")
    worker.start({"AGENT_MAX_ATTEMPTS": str(MAX_ATTEMPTS), "AGENT_RETRY_BACKOFF_SECONDS": "1"})
    task = services.request_submit(requester=demo["alice"], department="ENG", justification="new hires",
                                   lines=[{"description": "Laptop", "quantity": 2}])
    worker.wait_for(lambda: state_of(task) == "needs_review", TIMEOUT, interval=0.3, what="needs_review")
    [receipt] = Receipt.objects.filter(task_id=task.pk)
    assert receipt.status == "unknown" and "still absent after 3 sends" in receipt.error
    erp_server.clear_faults()

    in_review = Task.objects.get(pk=task.pk)
    review.review_retry(user=demo["carol"], task_id=task.pk, expected_version=in_review.version,
                        reason="gateway fixed")

    worker.wait_for(lambda: state_of(task) == "awaiting_approval", TIMEOUT, interval=0.3, what="awaiting_approval")
    receipt.refresh_from_db()
    assert receipt.status == "confirmed" and receipt.sends_counted_from == 3 and receipt.attempts == 4
    assert len(erp_server.requisitions()) == 1
    assert not TaskEvent.objects.filter(task_id=task.pk, event="outcome_unknown", id__gt=TaskEvent.objects.get(
        task_id=task.pk, event="retry").id).exists()

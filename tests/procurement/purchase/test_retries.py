"""Retries end (procurement.purchase.retries): a step that keeps failing, in-process, gives up into review with
its last error after AGENT_MAX_ATTEMPTS tries, each try in the history; a step that finishes without
moving the task counts as a failure rather than looping; a person's retry starts the count again."""
import pytest

from agentstate.models import Task, TaskEvent
from procurement.purchase import retries, services, steps
from procurement.history import review

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def submit(user):
    return services.request_submit(requester=user, department="ENG", justification="new hires",
                                   lines=[{"description": "Laptop", "quantity": 2}])


def failed(task) -> list[TaskEvent]:
    return list(TaskEvent.objects.filter(task_id=task.pk, event="step_failed").order_by("id"))


@pytest.fixture
def broken_quotes(monkeypatch):
    def boom(step):
        raise RuntimeError("quote service exploded")
    monkeypatch.setitem(steps.HANDLERS, "award", boom)


def test_a_step_that_keeps_raising_gives_up_into_review_with_the_last_error(demo, erp, eager, settings,
                                                                          broken_quotes):
    settings.AGENT_MAX_ATTEMPTS = 4

    task = Task.objects.get(pk=submit(demo["alice"]).pk)

    assert (task.state, task.runnable) == ("needs_review", False)
    assert [e.data["step"] for e in failed(task)] == ["award"] * 4
    gave_up = TaskEvent.objects.get(task_id=task.pk, event="give_up")
    assert "failed 4 times in a row" in gave_up.reason and "quote service exploded" in gave_up.reason


def test_a_step_that_finishes_without_moving_the_task_is_a_failure_not_a_loop(demo, erp, eager, settings,
                                                                            monkeypatch):
    settings.AGENT_MAX_ATTEMPTS = 3
    monkeypatch.setitem(steps.HANDLERS, "award", lambda step: None)

    task = Task.objects.get(pk=submit(demo["alice"]).pk)

    assert task.state == "needs_review" and len(failed(task)) == 3
    assert "without moving the task" in failed(task)[-1].reason


def test_a_persons_retry_starts_the_count_again_and_the_task_goes_on(demo, erp, eager, settings, monkeypatch,
                                                                   broken_quotes):
    settings.AGENT_MAX_ATTEMPTS = 2
    task = Task.objects.get(pk=submit(demo["alice"]).pk)
    assert task.state == "needs_review"
    monkeypatch.setitem(steps.HANDLERS, "award", steps.compare_quotes)  # fixed

    review.review_retry(user=demo["bob"], task_id=task.pk, expected_version=task.version, reason="quotes fixed")

    task = Task.objects.get(pk=task.pk)
    assert task.state == "awaiting_approval"
    assert retries.step_failures(task) == 0 and task.attempts == 0


def test_the_wait_between_tries_doubles(settings):
    settings.AGENT_RETRY_BACKOFF_SECONDS = 2
    assert [retries.retry_delay(n) for n in (1, 2, 3, 4)] == [2, 4, 8, 16]

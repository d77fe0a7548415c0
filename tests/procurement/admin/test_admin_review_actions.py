"""The work queue's actions in the Django admin (procurement/admin.py): on a task in
`needs_review`, check the ERP again, record the outcome and retry each ask why (and the ERP
reference) on a confirmation page, then go through procurement.history.review, recording who and why.
On PostgreSQL, against the ERP simulator across a real socket, steps run in-process."""
import pytest
from django.test import Client
from django.urls import reverse

from agentstate.models import Receipt, Task, TaskEvent
from procurement.infra import erp as erp_ops
from procurement.purchase import services

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

CHANGELIST = reverse("admin:agentstate_task_changelist")
WHY = "the ERP team confirmed it by phone"


@pytest.fixture
def carol(demo):
    client = Client(enforce_csrf_checks=False)
    client.force_login(demo["carol"])
    return client


def fresh(task) -> Task:
    return Task.objects.get(pk=task.pk)


def in_review(demo, erp, *, mode: str) -> Task:
    """The requisition's outcome is in doubt: the ERP was down ("down"), or took it and lost the
    answer while its lookup is down too ("drop")."""
    erp.fault(mode=mode, path="/requisitions", method="POST", times=1)
    erp.fault(mode="down", path="/requisitions", method="GET")
    task = services.request_submit(requester=demo["alice"], department="ENG", justification="new hires",
                                   lines=[{"description": "Laptop", "quantity": 2}])
    task = fresh(task)
    assert task.state == "needs_review"
    erp.clear_faults()
    return task


def choose(client, action, task, **extra):
    return client.post(CHANGELIST, {"action": action, "_selected_action": [task.pk], **extra})


def apply(client, action, task, *, version=None, **fields):
    return choose(client, action, task, apply="1", **{f"version-{task.pk}": version or task.version}, **fields)


def last_event(task) -> TaskEvent:
    """The event that moved the task from the version the admin saw."""
    return TaskEvent.objects.get(task_id=task.pk, version=task.version + 1)


@pytest.mark.parametrize("action, event", [("review_retry", "retry"), ("review_reconcile", "reconcile")])
def test_retry_and_check_again_ask_why_then_move_the_task_with_carols_name_and_reason(carol, demo, erp, eager,
                                                                                      action, event):
    task = in_review(demo, erp, mode="down")

    asked = choose(carol, action, task)
    assert asked.status_code == 200 and 'name="reason"' in asked.content.decode()
    assert (fresh(task).state, fresh(task).version) == ("needs_review", task.version), "asking moves nothing"

    done = apply(carol, action, task, reason=WHY)

    assert done.status_code == 302
    moved = last_event(task)
    assert (moved.event, moved.actor, moved.from_state) == (event, "carol", "needs_review")
    assert WHY in moved.reason
    assert fresh(task).state == "awaiting_approval", "the step ran again and the ERP answered"


def test_record_outcome_asks_for_the_erp_reference_and_records_it_with_carols_reason(carol, demo, erp, eager):
    task = in_review(demo, erp, mode="drop")
    [requisition] = erp.requisitions()

    asked = choose(carol, "review_record_outcome", task)
    assert 'name="external_id"' in asked.content.decode()
    missing = apply(carol, "review_record_outcome", task, reason=WHY)
    assert missing.status_code == 200 and 'name="external_id"' in missing.content.decode()
    assert fresh(task).version == task.version, "no reference, nothing recorded"

    apply(carol, "review_record_outcome", task, reason=WHY, external_id=requisition["id"])

    moved = last_event(task)
    assert (moved.event, moved.actor) == ("record_outcome", "carol") and WHY in moved.reason
    [receipt] = Receipt.objects.filter(task_id=task.pk, operation=erp_ops.CREATE_REQUISITION)
    assert (receipt.status, receipt.external_id) == ("confirmed", requisition["id"])
    assert fresh(task).state == "awaiting_approval"


def test_a_task_that_moved_after_the_confirmation_page_is_refused_and_stays_put(carol, demo, erp, eager):
    task = in_review(demo, erp, mode="down")

    response = apply(carol, "review_retry", task, version=task.version - 1, reason=WHY)

    assert (fresh(task).state, fresh(task).version) == ("needs_review", task.version)
    shown = [str(m) for m in response.wsgi_request._messages]
    assert any("changed since you looked" in m for m in shown), shown


def test_a_task_not_in_review_is_left_alone(carol, demo, erp, eager):
    task = fresh(services.request_submit(requester=demo["alice"], department="ENG", justification="new hires",
                                         lines=[{"description": "Monitor", "quantity": 1}]))
    assert task.state == "awaiting_approval"

    response = apply(carol, "review_retry", task, reason=WHY)

    assert fresh(task).version == task.version
    assert any("waiting in review" in str(m) for m in response.wsgi_request._messages)


def test_carol_still_cannot_write_a_state_in_the_task_form(carol, demo, erp, eager):
    task = in_review(demo, erp, mode="down")
    url = reverse("admin:agentstate_task_change", args=[task.pk])
    response = carol.post(url, {"state": "externally_confirmed", "version": 99, "data": "{}"})
    assert response.status_code == 403
    assert (fresh(task).state, fresh(task).version) == ("needs_review", task.version)


@pytest.mark.parametrize("version", [None, "", "three"])
@pytest.mark.parametrize("language, words", [("en", "the confirmation page did not say which version you saw"),
                                             ("zh-hant", "確認頁沒有帶出您看到的版本")])
def test_a_confirmation_without_a_whole_version_is_refused_in_the_readers_language_and_moves_nothing(
        carol, demo, erp, eager, version, language, words):
    task = in_review(demo, erp, mode="down")
    posted = {} if version is None else {f"version-{task.pk}": version}

    carol.cookies["django_language"] = language

    done = choose(carol, "review_retry", task, apply="1", reason=WHY, **posted)

    assert done.status_code == 302
    assert (fresh(task).state, fresh(task).version) == ("needs_review", task.version)
    assert not TaskEvent.objects.filter(task_id=task.pk, event="retry").exists()
    shown = [str(m) for m in done.wsgi_request._messages]
    assert len(shown) == 1 and shown[0].startswith(str(task.pk)) and words in shown[0], shown


def test_the_page_shown_again_carries_the_version_it_lists_and_confirming_it_moves_the_task(carol, demo, erp,
                                                                                           eager):
    task = in_review(demo, erp, mode="down")

    again = apply(carol, "review_retry", task, version=task.version - 1)  # no reason: asked again

    page = again.content.decode()
    assert again.status_code == 200 and 'name="reason"' in page
    assert f'name="version-{task.pk}" value="{task.version}"' in page, "the version listed, not the one posted"
    done = apply(carol, "review_retry", task, version=task.version, reason=WHY)
    assert done.status_code == 302 and last_event(task).event == "retry"


def test_one_task_without_its_version_refuses_the_whole_confirmation(carol, demo, erp, eager):
    first, second = in_review(demo, erp, mode="down"), in_review(demo, erp, mode="down")

    done = carol.post(CHANGELIST, {"action": "review_retry", "_selected_action": [first.pk, second.pk], "apply": "1",
                                   "reason": WHY, f"version-{first.pk}": first.version})

    assert done.status_code == 302
    assert [(fresh(t).state, fresh(t).version) for t in (first, second)] == [
        ("needs_review", first.version), ("needs_review", second.version)]
    shown = [str(m) for m in done.wsgi_request._messages]
    assert len(shown) == 1 and str(second.pk) in shown[0], shown

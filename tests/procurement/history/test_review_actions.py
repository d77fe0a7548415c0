"""The work queue's actions (procurement.history.review, DESIGN §14), each with its event, against the ERP
simulator across a real socket, steps run in-process: check the ERP again, record the outcome,
retry, cancel with compensation; 409 once the task left review; who may act."""
from decimal import Decimal

import pytest

from agentstate.errors import Conflict, DomainError, NotFound, NotPermitted, StaleVersion
from agentstate.models import Approval, Receipt, Task, TaskEvent
from procurement.infra import erp as erp_ops
from procurement.history import review
from procurement.purchase import services
from procurement.models import BudgetReservation, Department

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

LAPTOPS = [{"description": "Laptop", "quantity": 2}]
WHY = "looked at it in the ERP"


def submit(user):
    return services.request_submit(requester=user, department="ENG", lines=LAPTOPS, justification="new hires")


def fresh(task) -> Task:
    return Task.objects.get(pk=task.pk)


def history(task) -> list[tuple]:
    return list(TaskEvent.objects.filter(task_id=task.pk).values_list("event", "actor", "to_state"))


def eng_reserved() -> Decimal:
    return Department.objects.get(code="ENG").budget_reserved


def in_review_with_requisition_in_doubt(demo, erp):
    """The ERP is down when the requisition is created: result pending verification."""
    erp.fault(mode="down", path="/requisitions")
    task = fresh(submit(demo["alice"]))
    assert task.state == "needs_review", history(task)
    return task


def approve(task, user):
    approval = Approval.objects.get(task_id=task.pk, status="pending")
    services.approval_decide(approval_id=approval.pk, user=user, decision="approve",
                             state_version=approval.state_version, scope_hash=approval.scope_hash)


def in_review_with_order_in_doubt(demo, erp, *, erp_holds_it: bool):
    """Approved; the order's answer is lost (dropped after commit, or refused) and the lookup
    cannot be answered either: the task waits in review with the order in doubt."""
    task = submit(demo["alice"])
    assert fresh(task).state == "awaiting_approval"
    erp.fault(mode="drop" if erp_holds_it else "down", path="/purchase-orders", method="POST", times=1)
    erp.fault(mode="down", path="/purchase-orders", method="GET")
    approve(task, demo["bob"])
    task = fresh(task)
    assert task.state == "needs_review", history(task)
    [order] = Receipt.objects.filter(task_id=task.pk, operation=erp_ops.ISSUE_PURCHASE_ORDER)
    assert order.status == "unknown"
    erp.clear_faults()
    assert len(erp.purchase_orders()) == (1 if erp_holds_it else 0)
    return task


# -- check the ERP again -----------------------------------------------------------------

def test_check_again_while_the_erp_is_down__stays_in_review_with_a_note_of_who_checked(demo, erp, eager):
    task = in_review_with_requisition_in_doubt(demo, erp)

    after, said = review.review_reconcile(user=demo["carol"], task_id=task.pk, expected_version=task.version,
                                          reason=WHY)

    assert (fresh(task).state, fresh(task).version) == ("needs_review", task.version)
    assert "Still in doubt" in said
    note = TaskEvent.objects.filter(task_id=task.pk).last()
    assert (note.event, note.actor) == ("review.note", "carol") and WHY in note.reason


def test_check_again_once_the_erp_answers__the_task_goes_on_to_approval(demo, erp, eager):
    task = in_review_with_requisition_in_doubt(demo, erp)
    erp.clear_faults()

    review.review_reconcile(user=demo["bob"], task_id=task.pk, expected_version=task.version, reason=WHY)

    task = fresh(task)
    assert task.state == "awaiting_approval", history(task)
    assert ("reconcile", "bob", "processing") in history(task)
    assert TaskEvent.objects.get(task_id=task.pk, event="reconcile").reason.endswith(WHY)
    [requisition] = erp.requisitions()
    assert Approval.objects.get(task_id=task.pk, status="pending").scope["erp_requisition"] == requisition["id"]


# -- record the outcome ------------------------------------------------------------------

def requisition_landed_but_unverified(demo, erp):
    erp.fault(mode="drop", path="/requisitions", method="POST", times=1)
    erp.fault(mode="down", path="/requisitions", method="GET")
    task = fresh(submit(demo["alice"]))
    assert task.state == "needs_review", history(task)
    erp.clear_faults()
    [requisition] = erp.requisitions()
    return task, requisition["id"]


def test_record_outcome_with_the_reference_found__verified_by_key_and_the_task_goes_on(demo, erp, eager):
    task, requisition_id = requisition_landed_but_unverified(demo, erp)

    review.review_record_outcome(user=demo["carol"], task_id=task.pk, expected_version=task.version,
                                 reason=WHY, external_id=requisition_id)

    [receipt] = Receipt.objects.filter(task_id=task.pk, operation=erp_ops.CREATE_REQUISITION)
    assert (receipt.status, receipt.external_id) == ("confirmed", requisition_id)
    event = TaskEvent.objects.get(task_id=task.pk, event="record_outcome")
    assert event.actor == "carol" and "verified in the ERP" in event.reason and WHY in event.reason
    assert fresh(task).state == "awaiting_approval"
    assert len(erp.requisitions()) == 1, "recorded, never sent again"


def test_record_outcome_with_a_reference_the_erp_does_not_hold__refused_and_nothing_written(demo, erp, eager):
    task, requisition_id = requisition_landed_but_unverified(demo, erp)
    events = history(task)

    with pytest.raises(DomainError) as refused:
        review.review_record_outcome(user=demo["carol"], task_id=task.pk, expected_version=task.version,
                                     reason=WHY, external_id="REQ-NOT-THIS")

    assert requisition_id in str(refused.value) and "external_id" in refused.value.extra["errors"]
    assert history(task) == events and fresh(task).version == task.version
    assert Receipt.objects.get(task_id=task.pk, operation=erp_ops.CREATE_REQUISITION).status == "unknown"


# -- retry -------------------------------------------------------------------------------

def test_retry_runs_the_failed_step_again_with_who_and_why(demo, erp, eager):
    task = in_review_with_requisition_in_doubt(demo, erp)
    erp.clear_faults()

    review.review_retry(user=demo["carol"], task_id=task.pk, expected_version=task.version, reason="ERP is back")

    assert fresh(task).state == "awaiting_approval"
    event = TaskEvent.objects.get(task_id=task.pk, event="retry")
    assert (event.actor, event.to_state) == ("carol", "processing") and "ERP is back" in event.reason
    assert len(erp.requisitions()) == 1


def test_a_retry_after_the_sends_were_spent_looks_up_and_sends_again_with_a_fresh_budget(demo, erp, eager):
    erp.fault(mode="error", path="/requisitions", method="POST")  # 503 to every send; lookups answer "absent"
    task = fresh(submit(demo["alice"]))
    assert task.state == "needs_review", history(task)
    [receipt] = Receipt.objects.filter(task_id=task.pk)
    assert (receipt.status, receipt.attempts) == ("unknown", 3) and "still absent after 3 sends" in receipt.error
    erp.clear_faults()

    review.review_retry(user=demo["carol"], task_id=task.pk, expected_version=task.version, reason="gateway fixed")

    assert fresh(task).state == "awaiting_approval", history(task)
    receipt.refresh_from_db()
    assert (receipt.status, receipt.attempts, receipt.sends_counted_from) == ("confirmed", 4, 3)
    assert len(erp.requisitions()) == 1


# -- cancel with compensation ------------------------------------------------------------

def test_cancel_while_the_order_is_in_doubt_and_the_erp_holds_it__ordered_never_cancelled(demo, erp, eager):
    task = in_review_with_order_in_doubt(demo, erp, erp_holds_it=True)
    reserved = eng_reserved()
    _, preview = review.review_cancel_preview(user=demo["carol"], task_id=task.pk)
    assert preview["check_first"], "the order in doubt is checked before anything is undone"

    task, said = review.review_cancel(user=demo["carol"], task_id=task.pk, expected_version=task.version, reason=WHY)

    task = fresh(task)
    [order] = erp.purchase_orders()
    assert task.state == "externally_confirmed" and task.data["purchase_order"]["id"] == order["id"]
    late = TaskEvent.objects.get(task_id=task.pk, event="cancel_too_late")
    assert late.actor == "carol" and "too late" in late.reason and order["id"] in said
    assert not TaskEvent.objects.filter(task_id=task.pk, to_state="cancelled").exists()
    assert eng_reserved() == reserved, "the budget stays spent on the order"
    assert [r["status"] for r in erp.requisitions()] == ["ordered"], "the order's requisition stays, ordered"


def test_cancel_while_the_order_is_in_doubt_and_the_erp_lacks_it__cancelled_and_compensated(demo, erp, eager):
    task = in_review_with_order_in_doubt(demo, erp, erp_holds_it=False)
    before = eng_reserved() - Decimal(task.data["award"]["total"])

    review.review_cancel(user=demo["bob"], task_id=task.pk, expected_version=task.version, reason=WHY)

    task = fresh(task)
    assert (task.state, task.step) == ("cancelled", ""), history(task)
    assert ("cancel", "bob", "cancelled") in history(task)
    order = Receipt.objects.get(task_id=task.pk, operation=erp_ops.ISSUE_PURCHASE_ORDER)
    assert order.status == "failed", "withdrawn: nobody sends it again"
    assert erp.purchase_orders() == []
    assert [r["status"] for r in erp.requisitions()] == ["cancelled"]
    assert eng_reserved() == before
    assert not BudgetReservation.objects.filter(task_id=task.pk, status__in=["reserved", "held"]).exists()


def test_cancel_while_the_erp_still_cannot_tell__refused_and_nothing_half_written(demo, erp, eager):
    task = in_review_with_order_in_doubt(demo, erp, erp_holds_it=True)
    erp.fault(mode="down", path="/purchase-orders")
    events, reserved = history(task), eng_reserved()

    with pytest.raises(Conflict) as refused:
        review.review_cancel(user=demo["carol"], task_id=task.pk, expected_version=task.version, reason=WHY)

    assert "Nothing was cancelled" in str(refused.value)
    assert (fresh(task).state, fresh(task).version) == ("needs_review", task.version)
    assert history(task) == events and eng_reserved() == reserved
    assert Receipt.objects.get(task_id=task.pk, operation=erp_ops.ISSUE_PURCHASE_ORDER).status == "unknown"


def test_the_requesters_own_cancel_in_review_also_never_hides_the_order(demo, erp, eager):
    task = in_review_with_order_in_doubt(demo, erp, erp_holds_it=True)

    services.request_cancel(task_id=task.pk, user=demo["alice"], reason="changed my mind")

    assert fresh(task).state == "externally_confirmed"
    assert TaskEvent.objects.get(task_id=task.pk, event="cancel_too_late").actor == "alice"


# -- the task left review; who may act ---------------------------------------------------

@pytest.mark.parametrize("action", ["reconcile", "retry", "cancel"])
def test_an_action_on_a_task_that_left_review_is_a_409_saying_what_changed(demo, erp, eager, action):
    task = in_review_with_requisition_in_doubt(demo, erp)
    erp.clear_faults()
    review.review_retry(user=demo["bob"], task_id=task.pk, expected_version=task.version, reason="first")
    events = history(task)

    with pytest.raises(StaleVersion) as refused:
        getattr(review, f"review_{action}")(user=demo["carol"], task_id=task.pk, expected_version=task.version,
                                            reason="second")

    assert "Waiting for approval" in str(refused.value) and "bob" in str(refused.value)
    assert refused.value.extra["current_version"] == fresh(task).version
    assert history(task) == events


def test_who_may_act__requester_403_outsiders_404_managers_and_admins_yes(demo, erp, eager):
    task = in_review_with_requisition_in_doubt(demo, erp)
    act = dict(task_id=task.pk, expected_version=task.version, reason=WHY)
    events = history(task)

    with pytest.raises(NotPermitted):
        review.review_reconcile(user=demo["alice"], **act)
    for outsider in ("erin", "dave"):
        with pytest.raises(NotFound):
            review.review_reconcile(user=demo[outsider], **act)
    with pytest.raises(DomainError):  # a reason is required
        review.review_reconcile(user=demo["bob"], **{**act, "reason": "  "})
    assert history(task) == events and fresh(task).version == task.version
    review.review_reconcile(user=demo["bob"], **act)
    assert history(task)[-1][:2] == ("review.note", "bob")


@pytest.mark.parametrize("typed", ["<script>x</script>", "PO 000123", "採購單123"])
def test_record_outcome_with_something_no_erp_writes__refused_before_anything_is_asked(demo, erp, eager, typed):
    task, _ = requisition_landed_but_unverified(demo, erp)
    events = history(task)
    with pytest.raises(DomainError) as refused:
        review.review_record_outcome(user=demo["carol"], task_id=task.pk, expected_version=task.version,
                                     reason=WHY, external_id=typed)
    assert "letters, digits" in str(refused.value) and "external_id" in refused.value.extra["errors"]
    assert history(task) == events

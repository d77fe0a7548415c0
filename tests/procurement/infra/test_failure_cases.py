"""DESIGN §12 failure cases that belong to the workflow, each with its expected outcome.

Most run in-process (steps eager, ERP simulator across a socket); the end-to-end case runs
on a REAL Celery worker. Covered elsewhere:
- the service dies before a step starts: test_crash_points.py, point `holding_lease`
  (and every other crash point): recovery resumes it, one requisition, one order;
- two managers / two windows approve at once, amend after the approval page was opened:
  test_workflow.py and the agentstate engine tests.
"""
import threading
from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import connections
from django.utils import timezone

from agentstate.errors import Conflict, LeaseLost, NotFound, NotPermitted, StaleVersion
from agentstate.leases import lease_claim, lease_release
from agentstate.models import Approval, Receipt, Task
from agentstate.recovery import recovery_pass
from procurement.infra import erp as erp_ops
from procurement.purchase import services, steps
from procurement import tasks
from procurement.models import BudgetReservation, Department, Notification

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

LAPTOPS = [{"description": "Laptop", "quantity": 2}]
ONE_LAPTOP = [{"description": "Laptop", "quantity": 1}]
TIMEOUT = 30


def submit(user, lines=LAPTOPS):
    return services.request_submit(requester=user, department="ENG", lines=lines, justification="new hires")


def pending_approval(task) -> Approval:
    return Approval.objects.get(task_id=task.pk, status="pending")


def approve(task, user):
    approval = pending_approval(task)
    return services.approval_decide(approval_id=approval.pk, user=user, decision="approve",
                                    state_version=approval.state_version, scope_hash=approval.scope_hash)


def eng_reserved() -> Decimal:
    return Department.objects.get(code="ENG").budget_reserved


def create_receipts(task):
    return list(Receipt.objects.filter(task_id=task.pk, operation=erp_ops.CREATE_REQUISITION))


def live_requisitions(erp):
    return [r for r in erp.requisitions() if r["status"] != "cancelled"]


# -- the ERP commits but the answer is lost ----------------------------------------

def test_erp_commits_but_the_answer_is_lost__found_by_key_one_requisition_awaiting_approval(demo, erp, eager):
    erp.fault(mode="drop", path="/requisitions", method="POST", times=1)

    task = submit(demo["alice"])

    task.refresh_from_db()
    assert task.state == "awaiting_approval", list(task.events.values_list("event", "reason"))
    [receipt] = create_receipts(task)
    assert receipt.status == "confirmed" and receipt.attempts == 1, "found by its key, never resent"
    [requisition] = erp.requisitions()
    assert receipt.external_id == requisition["id"] == pending_approval(task).scope["erp_requisition"]


# -- the ERP is down: the outcome cannot be told -----------------------------------

def test_erp_down__needs_review_with_an_unverified_receipt__recovery_resends_once_and_resumes(demo, erp, eager):
    erp.fault(mode="down", path="/requisitions")

    task = submit(demo["alice"])

    task.refresh_from_db()
    assert task.state == "needs_review"
    assert "result pending verification" in task.events.last().reason
    [receipt] = create_receipts(task)
    assert receipt.status == "unknown" and receipt.external_id == ""
    assert "requisition" not in task.data, "nothing may be shown as created"
    assert not Approval.objects.filter(task_id=task.pk).exists()

    erp.clear_faults()
    assert erp.requisitions() == [], "the ERP really has nothing: a 503 before any work"
    for _ in range(5):
        recovery_pass(stale_seconds=0, receipt_grace_seconds=0)
        task.refresh_from_db()
        if task.state == "awaiting_approval":
            break
    assert task.state == "awaiting_approval", list(task.events.values_list("event", "reason"))
    receipt.refresh_from_db()
    assert receipt.status == "confirmed"
    assert receipt.attempts == 2, "confirmed absent by key, then resent exactly once"
    [requisition] = erp.requisitions()
    assert receipt.external_id == requisition["id"] == pending_approval(task).scope["erp_requisition"]
    assert task.events.filter(event="recovery.receipt").exists()


# -- an approval waits past its expiry ---------------------------------------------

@pytest.mark.usefixtures("hard_holds")
def test_approval_past_its_expiry__task_expired_requisition_cancelled_budget_released(demo, erp, eager):
    before = eng_reserved()
    task = submit(demo["alice"])
    assert eng_reserved() > before
    approval = pending_approval(task)
    Approval.objects.filter(pk=approval.pk).update(expires_at=timezone.now() - timedelta(minutes=1))

    for _ in range(5):
        recovery_pass(stale_seconds=0)
        task.refresh_from_db()
        if task.state == "expired" and task.step == "":
            break
    assert (task.state, task.step) == ("expired", ""), list(task.events.values_list("event", "reason"))
    approval.refresh_from_db()
    assert approval.status == "expired"
    assert [r["status"] for r in erp.requisitions()] == ["cancelled"]
    assert eng_reserved() == before
    assert not BudgetReservation.objects.filter(task_id=task.pk, status="reserved").exists()

    with pytest.raises(Conflict):  # an expired approval can never be used again
        services.approval_decide(approval_id=approval.pk, user=demo["bob"], decision="approve",
                                 state_version=approval.state_version, scope_hash=approval.scope_hash)
    assert erp.purchase_orders() == []


# -- another worker or person moved the task in between ------------------------------


@pytest.fixture
def hard_holds(settings):
    """Budget reserved hard when the agent reaches it, before anyone approves (BUDGET_HOLD=cap
    with no practical cap): these cases watch that reservation's life, release included.
    The default soft holds are tests/procurement/purchase/test_budget_holds.py's."""
    settings.BUDGET_HOLD, settings.BUDGET_HOLD_CAP = "cap", 10**12


@pytest.fixture
def manual(eager, monkeypatch):
    """Steps do not chain by themselves: the test runs them one at a time, as workers would."""
    queued = []
    monkeypatch.setattr(services, "enqueue_advance", queued.append)
    return queued


def run_until(task, step_name: str) -> Task:
    """Run steps (each under its own lease) until the task's cursor is `step_name`."""
    for _ in range(10):
        current = Task.objects.get(pk=task.pk)
        if current.step == step_name:
            return current
        lease = lease_claim(task_id=task.pk, worker="test-worker", seconds=60)
        try:
            steps.run(current, lease)
        finally:
            lease_release(lease=lease)
    raise AssertionError(f"never reached step {step_name!r}")


def assert_one_live_requisition_for_the_amended_request(task, erp):
    task.refresh_from_db()
    assert task.state == "awaiting_approval", list(task.events.values_list("event", "reason"))
    approval = pending_approval(task)
    assert approval.scope["lines"][0]["quantity"] == 1
    live = live_requisitions(erp)
    assert [r["id"] for r in live] == [approval.scope["erp_requisition"]], erp.requisitions()
    reserved = BudgetReservation.objects.filter(task_id=task.pk, status="reserved")
    assert [r.amount for r in reserved] == [Decimal(task.data["award"]["total"])]


@pytest.mark.usefixtures("hard_holds")
def test_stale_worker_after_an_amendment__its_result_is_discarded_and_nothing_doubles(demo, erp, manual):
    """A worker holds the task at `award`; alice amends; the worker's late result is refused."""
    before = eng_reserved()
    task = submit(demo["alice"])
    old_task = run_until(task, "award")
    old_lease = lease_claim(task_id=task.pk, worker="old-worker", seconds=60)

    services.request_amend(task_id=task.pk, user=demo["alice"], lines=ONE_LAPTOP)
    amended = Task.objects.get(pk=task.pk)
    assert (amended.state, amended.step) == ("processing", "revise")

    with pytest.raises(StaleVersion):
        steps.run(old_task, old_lease)
    lease_release(lease=old_lease)
    after_refusal = Task.objects.get(pk=task.pk)
    assert (after_refusal.version, after_refusal.step) == (amended.version, "revise"), "the late result moved nothing"

    tasks.advance(str(task.pk))  # the next worker re-plans from what is there now

    assert_one_live_requisition_for_the_amended_request(task, erp)
    assert len(erp.requisitions()) == 1, "the old request never reached the ERP"
    assert eng_reserved() == before + Decimal(task.data["award"]["total"])


@pytest.mark.usefixtures("hard_holds")
def test_stale_worker_about_to_send_after_an_amendment__is_fenced_and_sends_nothing(demo, erp, manual):
    """The worker held the task at `create_requisition` (lease still valid) when alice amended:
    the send is refused under the task's row lock (the version moved), so the old request never
    reaches the ERP; the next worker re-plans: one requisition, for the amended request."""
    before = eng_reserved()
    task = submit(demo["alice"])
    old_task = run_until(task, "create_requisition")
    old_lease = lease_claim(task_id=task.pk, worker="old-worker", seconds=60)

    services.request_amend(task_id=task.pk, user=demo["alice"], lines=ONE_LAPTOP)
    amended = Task.objects.get(pk=task.pk)

    with pytest.raises(StaleVersion):
        steps.run(old_task, old_lease)
    lease_release(lease=old_lease)
    late = Task.objects.get(pk=task.pk)
    assert (late.state, late.version, late.step) == ("processing", amended.version, "revise")
    assert [(r.scope, r.status) for r in create_receipts(task)] == [("r1", "planned")], "planned, never sent"
    assert erp.requisitions() == []

    tasks.advance(str(task.pk))

    assert_one_live_requisition_for_the_amended_request(task, erp)
    assert len(erp.requisitions()) == 1
    assert eng_reserved() == before + Decimal(task.data["award"]["total"])


@pytest.mark.usefixtures("hard_holds")
def test_worker_whose_lease_was_reclaimed_cannot_send_or_write_late(demo, erp, manual):
    """A worker stalls past its lease at `create_requisition`; alice amends; recovery fences the
    lease and another worker takes the task to a fresh approval. The stalled worker then wakes
    up: it is refused before its send (LeaseLost), so nothing reaches the ERP or the task and
    there is no second live requisition."""
    task = submit(demo["alice"])
    old_task = run_until(task, "create_requisition")
    old_lease = lease_claim(task_id=task.pk, worker="old-worker", seconds=60)
    services.request_amend(task_id=task.pk, user=demo["alice"], lines=ONE_LAPTOP)
    Task.objects.filter(pk=task.pk).update(lease_until=timezone.now() - timedelta(seconds=1))

    recovery_pass(stale_seconds=0)  # fences the lease, hands the task to a (here: eager) worker
    assert_one_live_requisition_for_the_amended_request(task, erp)
    settled = Task.objects.get(pk=task.pk)

    with pytest.raises(LeaseLost):
        steps.run(old_task, old_lease)
    assert not lease_release(lease=old_lease), "a fenced lease releases nothing"

    task.refresh_from_db()
    assert (task.state, task.version) == ("awaiting_approval", settled.version)
    assert_one_live_requisition_for_the_amended_request(task, erp)
    assert len(erp.requisitions()) == 1
    assert sorted((r.scope, r.status) for r in create_receipts(task)) == [("r1", "planned"), ("r2", "confirmed")]


# -- two requests race for the last of the budget ----------------------------------

@pytest.mark.usefixtures("hard_holds")
def test_two_requests_racing_for_the_last_budget__one_awaits_approval_the_other_is_asked(demo, erp, eager):
    eng = Department.objects.get(code="ENG")
    Department.objects.filter(pk=eng.pk).update(budget_reserved=eng.budget_total - Decimal("80000"))
    start = threading.Barrier(2)
    made, errors = [], []

    def request():
        try:
            start.wait(timeout=10)
            made.append(submit(demo["alice"]))
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=request) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(TIMEOUT)
    assert not errors, errors
    assert len(made) == 2

    by_state = {t.state: t for t in Task.objects.filter(pk__in=[t.pk for t in made])}
    assert sorted(by_state) == ["awaiting_approval", "awaiting_input"]
    assert "budget" in by_state["awaiting_input"].data["question"]
    eng.refresh_from_db()
    assert eng.budget_reserved <= eng.budget_total
    winner_total = Decimal(by_state["awaiting_approval"].data["award"]["total"])
    assert eng.budget_reserved == eng.budget_total - Decimal("80000") + winner_total
    assert len(erp.requisitions()) == 1
    assert not BudgetReservation.objects.filter(task=by_state["awaiting_input"], status="reserved").exists()


# -- a manager of another department -----------------------------------------------

def test_manager_of_another_department_cannot_decide_and_nothing_moves(demo, erp, eager):
    task = submit(demo["alice"])
    task.refresh_from_db()
    approval = pending_approval(task)

    with pytest.raises((NotFound, NotPermitted)):
        services.approval_decide(approval_id=approval.pk, user=demo["dave"], decision="approve",
                                 state_version=approval.state_version, scope_hash=approval.scope_hash)

    approval.refresh_from_db()
    assert approval.status == "pending" and approval.decided_by is None
    after = Task.objects.get(pk=task.pk)
    assert (after.state, after.version) == ("awaiting_approval", task.version)
    assert erp.purchase_orders() == []
    assert [r["status"] for r in erp.requisitions()] == ["pending_approval"]


# -- end to end on a real worker ------------------------------------------------------

@pytest.mark.redis
def test_real_worker_end_to_end__one_requisition_one_order_approver_notified(demo, celery_worker_proc, erp_server):
    worker = celery_worker_proc
    worker.start()

    task = submit(demo["alice"])
    worker.wait_for(lambda: Task.objects.filter(pk=task.pk, state="awaiting_approval").exists(), TIMEOUT,
                    what="awaiting_approval")
    worker.wait_for(lambda: Notification.objects.filter(task_id=task.pk, to="bob@example.com",
                                                        status="sent").exists(), TIMEOUT, what="bob notified")
    approve(task, demo["bob"])
    worker.wait_for(lambda: Task.objects.filter(pk=task.pk, state="externally_confirmed").exists(), TIMEOUT,
                    what="externally_confirmed")

    task.refresh_from_db()
    [requisition] = erp_server.requisitions()
    [order] = erp_server.purchase_orders()
    assert order["requisition_id"] == requisition["id"] == task.data["requisition"]["id"]
    assert task.data["purchase_order"]["id"] == order["id"]
    assert sorted(Receipt.objects.filter(task_id=task.pk).values_list("operation", "status")) == [
        (erp_ops.ISSUE_PURCHASE_ORDER, "confirmed"), (erp_ops.CREATE_REQUISITION, "confirmed")]
    assert worker.proc.poll() is None, "the worker is still alive"

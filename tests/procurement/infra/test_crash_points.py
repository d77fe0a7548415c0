"""Crash points on a REAL Celery worker (DESIGN §5, §6, §12 "the service dies").

Each case starts a worker with `AGENT_CRASH_AT=<point>`: the worker SIGKILLs itself at that
boundary of a step (procurement.infra.faults). The Redis message it held is not redelivered for an
hour (visibility timeout), so progress must come from the database: a fresh worker plus the
recovery pass (expired lease fenced, idle runnable task resumed, doubtful receipt looked up
by its key).

Expected outcome for every point: the task reaches `awaiting_approval` with exactly ONE
requisition in the ERP and one confirmed CREATE receipt; after bob approves, it reaches
`externally_confirmed` with exactly ONE purchase order. Recovery leaves an event a person
can read.
"""
import signal

import pytest

from agentstate.models import Approval, Receipt, Task
from agentstate.recovery import recovery_pass
from procurement.infra import erp, faults
from procurement.purchase import services

pytestmark = [pytest.mark.redis, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

LAPTOPS = [{"description": "Laptop", "quantity": 2}]
TIMEOUT = 30

# point -> what is true right after the crash, before any recovery:
# (the CREATE receipt's status or None if none was planned, requisitions in the ERP, task state)
DURING_PROCESSING = {
    "holding_lease": (None, 0, "received"),
    "receipt_planned": ("planned", 0, "processing"),
    "receipt_sent": ("sent", 0, "processing"),
    "erp_answered": ("sent", 1, "processing"),
    "before_enqueue": (None, 0, "processing"),
}
assert set(DURING_PROCESSING) == set(faults.POINTS)

# The points a purchase-order step passes -> the ISSUE receipt's status and POs right after the crash.
DURING_PURCHASE_ORDER = {
    "receipt_planned": ("planned", 0),
    "receipt_sent": ("sent", 0),
    "erp_answered": ("sent", 1),
}


@pytest.fixture
def fast_recovery(settings):
    settings.RECOVERY_STALE_SECONDS = 1


def recover():
    recovery_pass(stale_seconds=1, receipt_grace_seconds=1)


def state_of(task) -> str:
    return Task.objects.values_list("state", flat=True).get(pk=task.pk)


def receipt_statuses(task, operation) -> list[str]:
    return list(Receipt.objects.filter(task_id=task.pk, operation=operation).values_list("status", flat=True))


def submit(alice) -> Task:
    return services.request_submit(requester=alice, department="ENG", lines=LAPTOPS, justification="new hires")


def approve(task, bob):
    approval = Approval.objects.get(task_id=task.pk, status="pending")
    services.approval_decide(approval_id=approval.pk, user=bob, decision="approve",
                             state_version=approval.state_version, scope_hash=approval.scope_hash)


def assert_one_requisition_awaiting_approval(task, erp_server):
    task.refresh_from_db()
    assert task.state == "awaiting_approval"
    requisitions = erp_server.requisitions()
    assert len(requisitions) == 1, requisitions
    assert receipt_statuses(task, erp.CREATE_REQUISITION) == ["confirmed"]
    receipt = Receipt.objects.get(task_id=task.pk, operation=erp.CREATE_REQUISITION)
    assert receipt.external_id == requisitions[0]["id"] == task.data["requisition"]["id"]
    assert Approval.objects.filter(task_id=task.pk, status="pending").count() == 1


def assert_one_purchase_order(task, erp_server):
    task.refresh_from_db()
    assert task.state == "externally_confirmed"
    orders = erp_server.purchase_orders()
    assert len(orders) == 1, orders
    assert len(erp_server.requisitions()) == 1
    assert receipt_statuses(task, erp.ISSUE_PURCHASE_ORDER) == ["confirmed"]
    assert task.data["purchase_order"]["id"] == orders[0]["id"]


@pytest.mark.parametrize("point", list(DURING_PROCESSING))
def test_worker_killed_while_processing_recovers_to_one_requisition_and_one_order(
        point, demo, celery_worker_proc, erp_server, fast_recovery, tmp_path):
    worker = celery_worker_proc
    marker = tmp_path / "crashed-once"
    # A claim runs two steps here, so the crash before enqueueing loses the message of a step still due
    # (with the default, the first claim runs every step up to the approval and nothing is due after it).
    worker.start({"AGENT_CRASH_AT": point, "AGENT_CRASH_ONCE": marker, "AGENT_STEPS_PER_CLAIM": "2"})

    task = submit(demo["alice"])
    assert worker.wait_dead(TIMEOUT) == -signal.SIGKILL, worker.tail()
    assert marker.read_text() == point

    # What is left behind: nothing shown as done, the doubtful step visible as it is.
    receipt_status, erp_count, task_state = DURING_PROCESSING[point]
    assert state_of(task) == task_state
    assert receipt_statuses(task, erp.CREATE_REQUISITION) == ([receipt_status] if receipt_status else [])
    assert len(erp_server.requisitions()) == erp_count
    assert not Approval.objects.filter(task_id=task.pk).exists()

    worker.start()
    worker.wait_for(lambda: state_of(task) == "awaiting_approval", TIMEOUT, interval=0.3, between=recover,
                    what=f"awaiting_approval after a crash at {point}")
    assert_one_requisition_awaiting_approval(task, erp_server)
    assert task.events.filter(event__startswith="recovery.").exists(), "recovery left no trace"

    approve(task, demo["bob"])
    worker.wait_for(lambda: state_of(task) == "externally_confirmed", TIMEOUT, what="externally_confirmed")
    assert_one_purchase_order(task, erp_server)


@pytest.mark.parametrize("point", list(DURING_PURCHASE_ORDER))
def test_worker_killed_while_issuing_the_purchase_order_recovers_to_exactly_one_order(
        point, demo, celery_worker_proc, erp_server, fast_recovery, tmp_path):
    """The crash hits the purchase-order step (the requisition step ran on a healthy worker)."""
    worker = celery_worker_proc
    worker.start()
    task = submit(demo["alice"])
    worker.wait_for(lambda: state_of(task) == "awaiting_approval", TIMEOUT, what="awaiting_approval")
    assert_one_requisition_awaiting_approval(task, erp_server)
    # Let the healthy worker give its lease back, so the next one starts at once.
    worker.wait_for(lambda: Task.objects.filter(pk=task.pk, lease_until__isnull=True).exists(), TIMEOUT,
                    what="the lease released")
    worker.kill()

    marker = tmp_path / "crashed-once"
    worker.start({"AGENT_CRASH_AT": point, "AGENT_CRASH_ONCE": marker})
    approve(task, demo["bob"])
    assert worker.wait_dead(TIMEOUT) == -signal.SIGKILL, worker.tail()
    assert marker.read_text() == point

    receipt_status, po_count = DURING_PURCHASE_ORDER[point]
    assert state_of(task) == "submitted", "an order whose outcome is open must not look confirmed"
    assert receipt_statuses(task, erp.ISSUE_PURCHASE_ORDER) == [receipt_status]
    assert len(erp_server.purchase_orders()) == po_count

    worker.start()
    worker.wait_for(lambda: state_of(task) == "externally_confirmed", TIMEOUT, interval=0.3, between=recover,
                    what=f"externally_confirmed after a crash at {point}")
    assert_one_purchase_order(task, erp_server)
    assert task.events.filter(event__startswith="recovery.").exists(), "recovery left no trace"

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from agentstate.leases import lease_claim
from agentstate.models import Receipt, Task
from agentstate.receipts import receipt_plan
from agentstate.recovery import recovery_pass

from tests.agentstate.sample_kind import RECOVERED, Clients
from tests.agentstate.test_receipts import RecordingClient


@pytest.fixture(autouse=True)
def _clean():
    RECOVERED.clear()
    yield
    Clients.client = None


@pytest.mark.django_db
def test_an_expired_lease_is_fenced_and_its_task_handed_back(make_task):
    task = make_task("working")
    lease = lease_claim(task_id=task.pk, worker="dead-worker", seconds=60)
    Task.objects.filter(pk=task.pk).update(lease_until=timezone.now() - timedelta(seconds=1))
    report = recovery_pass()
    row = Task.objects.get(pk=task.pk)
    assert report.leases_reclaimed == [task.pk] and RECOVERED == [str(task.pk)]
    assert row.lease_token == lease.token + 1 and row.leased_by == "" and row.version == task.version
    assert row.events.filter(event="recovery.lease_expired").count() == 1


@pytest.mark.django_db
def test_a_runnable_task_nobody_picked_up_is_resumed_but_a_waiting_one_is_not(make_task):
    idle = make_task("queued")
    waiting = make_task("waiting")
    Task.objects.update(updated_at=timezone.now() - timedelta(hours=1))
    Task.objects.filter(pk=idle.pk).update(runnable=True)
    report = recovery_pass(stale_seconds=60)
    assert report.tasks_resumed == [idle.pk] and str(waiting.pk) not in RECOVERED
    assert recovery_pass(stale_seconds=60).tasks_resumed == []  # touched: not handed out twice at once


@pytest.mark.django_db
def test_a_sent_receipt_is_settled_by_key_and_an_undecidable_one_flags_the_task(make_task):
    found, doubtful = make_task("working"), make_task("working")
    r1 = receipt_plan(task=found, operation="other.create", scope="v1", request={"n": 1})
    r2 = receipt_plan(task=doubtful, operation="other.create", scope="v1", request={"n": 2})
    Receipt.objects.update(status="sent", attempts=1, updated_at=timezone.now() - timedelta(hours=1))
    client = RecordingClient(lookup_fails=1)  # the first lookup (r1 or r2, by order) cannot tell
    client.store[r1.idempotency_key] = "EXT-1"
    Clients.client = client
    recovery_pass(receipt_grace_seconds=60)
    statuses = {r.pk: r.status for r in Receipt.objects.all()}
    assert sorted(statuses.values()) == ["confirmed", "unknown"] or statuses[r1.pk] == "confirmed"
    assert client.sends == 0 or statuses[r2.pk] == "confirmed"
    unknown = [pk for pk, status in statuses.items() if status == "unknown"]
    for pk in unknown:
        assert Receipt.objects.get(pk=pk).task.state == "needs_review"


@pytest.mark.django_db
def test_recover_command_prints_one_pass(make_task, capsys):
    call_command("recover")
    assert "leases reclaimed: 0" in capsys.readouterr().out


@pytest.mark.django_db
def test_a_task_made_runnable_by_a_settled_receipt_is_handed_back_in_the_same_pass(make_task):
    task = make_task("working")
    Task.objects.filter(pk=task.pk).update(runnable=True, step="next")
    receipt = receipt_plan(task=task, operation="other.create", scope="v1", request={"n": 1})
    Receipt.objects.filter(pk=receipt.pk).update(status="sent", attempts=1,
                                                 updated_at=timezone.now() - timedelta(hours=1))
    client = RecordingClient()
    client.store[receipt.idempotency_key] = "EXT-7"
    Clients.client = client
    report = recovery_pass(stale_seconds=3600, receipt_grace_seconds=60)
    assert report.receipts_settled == [receipt.pk] and RECOVERED == [str(task.pk)]

"""Retention on real purchase tasks: after pruning, a finished request keeps its receipts,
approvals and events, its page still shows its history, and what is left of its checkpoints
still loads, including the one at its approval (where a fork or a rewind would start)."""
from datetime import timedelta

import pytest
from django.utils import timezone

from agentstate.machine import checkpoint_latest, checkpoint_load
from agentstate.models import Approval, Checkpoint, Receipt, Task, TaskEvent
from agentstate.retention import state_prune
from procurement.purchase import services
from procurement.receiving.services import purchase_order_close_short

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_pruned_finished_request_keeps_its_audit_and_still_loads(demo, erp, eager, client, settings):
    settings.CHECKPOINT_KEEP_LATEST = 2
    task = services.request_submit(requester=demo["alice"], department="ENG",
                                   lines=[{"description": "Laptop", "quantity": 1}], justification="new hire")
    approval = Approval.objects.get(task=task, status="pending")
    services.approval_decide(approval_id=approval.pk, user=demo["bob"], decision="approve",
                             state_version=approval.state_version, scope_hash=approval.scope_hash)
    task = Task.objects.get(pk=task.pk)
    assert task.state == "externally_confirmed"  # ordered, not finished: goods and invoice to come
    purchase_order_close_short(task_id=task.pk, user=demo["bob"], reason="the supplier stopped the model")
    task = Task.objects.get(pk=task.pk)
    assert task.state == "closed"
    audit = [Model.objects.filter(task=task).count() for Model in (Receipt, Approval, TaskEvent)]
    before = Checkpoint.objects.filter(task=task).count()
    Task.objects.filter(pk=task.pk).update(updated_at=timezone.now() - timedelta(days=31))

    report = state_prune()

    kept = list(Checkpoint.objects.filter(task=task).order_by("version"))
    assert 0 < report.checkpoints == before - len(kept)
    assert [Model.objects.filter(task=task).count() for Model in (Receipt, Approval, TaskEvent)] == audit
    assert checkpoint_latest(task, tenant="ENG").snapshot["state"] == "closed"
    at_approval = [c for c in kept if c.snapshot["state"] == "awaiting_approval"]
    assert at_approval and all(checkpoint_load(task, c.pk, tenant="ENG") for c in kept)
    client.force_login(demo["alice"])
    page = client.get(f"/tasks/{task.pk}/", HTTP_ACCEPT_LANGUAGE="zh-hant")
    assert page.status_code == 200 and task.purchase_request.number in page.content.decode()


def test_beat_runs_the_pruning_daily_and_says_what_it_did(settings):
    from procurement.tasks import prune_state

    assert settings.CELERY_BEAT_SCHEDULE["prune-state"] == {"task": "procurement.tasks.prune_state",
                                                            "schedule": 24 * 3600.0}
    assert "Deleted 0 checkpoints" in prune_state()

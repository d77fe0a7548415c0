"""Escalation on a real beat schedule: a worker process runs beat (every second here) and the
manager's step of a two-step chain, with an escalation time of two seconds, is offered to the
director, who and bob are both told."""
from datetime import timedelta

import pytest

from agentstate.models import Approval
from procurement.purchase import services
from procurement.models import Notice, PolicyStep
from procurement.policy.rules import policy_publish

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]


def test_a_waiting_step_is_offered_to_the_director_by_the_beat_schedule(celery_worker_proc, demo):
    PolicyStep.objects.filter(rule__name__startswith="ENG: manager then director", position=1).update(
        escalate_after=timedelta(seconds=2))
    policy_publish(by=demo["carol"])
    worker = celery_worker_proc
    worker.start({"ESCALATION_INTERVAL_SECONDS": "1", "RECOVERY_INTERVAL_SECONDS": "3600"}, beat=True)
    task = services.request_submit(requester=demo["alice"], department="ENG", justification="lab laptops",
                                   lines=[{"description": "Laptop", "quantity": 14}])
    approval = worker.wait_for(lambda: Approval.objects.filter(task=task, status="pending").first(), timeout=60,
                               what="the approval to open")
    assert approval.chain[0]["usernames"] == ["bob"]
    worker.wait_for(lambda: Notice.objects.filter(recipient=demo["frank"], kind="approval_escalated").exists(),
                    timeout=60, what="beat to escalate the manager's step")
    approval.refresh_from_db()
    assert approval.chain[0]["offered_ids"] == [demo["frank"].pk] and approval.status == "pending"
    assert Notice.objects.filter(recipient=demo["bob"], kind="approval_escalated").exists()

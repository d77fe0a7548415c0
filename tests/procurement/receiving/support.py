"""An ordered request to receive against: alice's three monitors, approved by bob, PO issued."""
from rest_framework.test import APIClient

from agentstate.models import Approval
from procurement.purchase import services

MONITORS = [{"description": "Monitor", "quantity": 3}]


def ordered(demo, lines=MONITORS, requester="alice", department="ENG", approver="bob"):
    task = services.request_submit(requester=demo[requester], department=department, lines=lines,
                                   justification="new hires")
    approval = Approval.objects.get(task=task, status="pending")
    services.approval_decide(approval_id=approval.pk, user=demo[approver], decision="approve",
                             state_version=approval.state_version, scope_hash=approval.scope_hash)
    task.refresh_from_db()
    assert task.state == "externally_confirmed", list(task.events.values_list("event", "reason"))
    return task


def client_for(user, language="en") -> APIClient:
    client = APIClient(HTTP_ACCEPT_LANGUAGE=language)
    client.force_authenticate(user)
    return client


def receipts_url(task) -> str:
    return f"/api/v1/tasks/{task.pk}/receipts/"


def close_url(task) -> str:
    return f"/api/v1/tasks/{task.pk}/close/"

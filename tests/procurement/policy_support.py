"""Shared helpers for the approval-policy tests: submit a request of a given size, decide over
the API as a person would, read the approval's body."""
from rest_framework.test import APIClient

from agentstate.models import Approval, Task

APPROVALS = "/api/v1/approvals/"
# Laptops at NT$34,900 untaxed, NT$36,645 each incl. 5% tax.
SMALL = [{"description": "Laptop", "quantity": 2}]      # NT$73,290: the manager alone
MIDDLE = [{"description": "Laptop", "quantity": 14}]    # NT$513,030: manager, then director
LARGE = [{"description": "Laptop", "quantity": 33}]     # NT$1,209,285: manager, director, finance


def api(user, language="en") -> APIClient:
    client = APIClient(HTTP_ACCEPT_LANGUAGE=language)
    client.force_authenticate(user)
    return client


def submit(user, lines, department="ENG") -> Task:
    response = api(user).post("/api/v1/tasks/", {"department": department, "lines": lines,
                                                 "justification": "team equipment"}, format="json")
    assert response.status_code == 201, response.json()
    return Task.objects.get(pk=response.json()["id"])


def pending(task) -> Approval:
    return Approval.objects.get(task=task, status="pending")


def body(user, approval):
    return api(user).get(f"{APPROVALS}{approval.pk}/")


def decide(user, approval, decision="approve", comment="", version=None):
    approval.refresh_from_db()
    return api(user).post(f"{APPROVALS}{approval.pk}/decision/", {
        "decision": decision, "state_version": version or approval.state_version, "scope_hash": approval.scope_hash,
        "comment": comment}, format="json")

"""A status answer reads State in a fixed number of queries, however many requests the
requester has: 1 or 500, the same count."""
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from agentstate.models import Receipt, Task, TaskEvent
from procurement.infra import erp
from procurement import workflow
from procurement.people.language import user_language_set
from procurement.models import Department, PurchaseRequest, RequestLine
from tests.procurement.chat.support import no_memory_store, open_session, talk  # noqa: F401

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("no_memory_store")]


def requests_for(user, n: int, start: int = 0):
    """`n` requests waiting for approval, written straight into State (no steps to run)."""
    department = Department.objects.get(code="ENG")
    tasks = Task.objects.bulk_create(Task(kind=workflow.KIND, initiator=user, tenant="ENG",
                                          state=workflow.AWAITING_APPROVAL, version=1, data={"revision": 1})
                                     for _ in range(n))
    # Every (task, version) has its event, as the database's change guard requires.
    TaskEvent.objects.bulk_create(TaskEvent(task=task, actor=user.username, event="create", from_state="",
                                            to_state=task.state, version=1) for task in tasks)
    requests = PurchaseRequest.objects.bulk_create(
        PurchaseRequest(task=task, department=department, requester=user, justification="QA",
                        number=f"REQ-2026-{start + i:05d}") for i, task in enumerate(tasks))
    RequestLine.objects.bulk_create(RequestLine(request=r, position=1, description="Laptop", quantity=2)
                                    for r in requests)
    Receipt.objects.bulk_create(
        Receipt(task=task, operation=erp.CREATE_REQUISITION, idempotency_key=f"k-{start + i}", fingerprint="f",
                status="confirmed", external_id=f"REQ-{start + i:06d}") for i, task in enumerate(tasks))


def status_queries(user) -> tuple[int, str]:
    session = open_session(user)
    with CaptureQueriesContext(connection) as queries:
        result = talk(session, user, "where does my last request stand?")
    return len(queries), result.reply


def test_a_status_answer_costs_the_same_queries_for_1_and_500_requests(demo):
    alice = demo["alice"]
    user_language_set(user=alice, language="en")  # else the first conversation also saves her language
    requests_for(alice, 1)
    one, reply = status_queries(alice)
    assert "REQ-2026-00000" in reply and "Laptop × 2" in reply
    requests_for(alice, 499, start=1)
    many, reply = status_queries(alice)
    assert many == one, f"{one} queries for 1 request, {many} for 500"
    assert Task.objects.filter(initiator=alice).count() == 500 and "Laptop × 2" in reply

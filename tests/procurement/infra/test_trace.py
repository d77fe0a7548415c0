"""One trace (DESIGN §13): a W3C trace id is born with the request that starts a purchase and is
carried by its chat turns, its events, its Celery steps, its ERP calls (as the simulator saw them),
its mail and its memory use; it shows on the task page and in the task API, and in the logs."""
import json
import logging
import re

import pytest
from django.core import mail
from rest_framework.test import APIClient

from agentstate import trace
from agentstate.memory.events import record
from agentstate.memory.models import MemoryEvent
from agentstate.memory.services import memory_create
from agentstate.models import Session, Task, TaskEvent, Turn
from procurement.infra.outbox import outbox_dispatch
from procurement.infra.telemetry import JsonLines
from tests.procurement.chat.support import no_memory_store  # noqa: F401

TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT = f"00-{TRACE}-00f067aa0ba902b7-01"


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("no_memory_store")
def test_one_requests_trace_is_on_its_turns_events_erp_requests_and_mail(demo, erp, eager):
    session = Session.objects.create(owner=demo["alice"])
    client = client_for(demo["alice"])
    url = f"/api/v1/sessions/{session.pk}/messages/"
    client.post(url, {"text": "我需要 2 台筆電，給新人"}, format="json", HTTP_TRACEPARENT=PARENT)
    body = client.post(url, {"text": "好"}, format="json").json()  # a later request: still the same trace
    assert body["task"]["state"] == "awaiting_approval"
    outbox_dispatch()
    task = Task.objects.get()
    assert task.trace_id == TRACE
    assert {t.data["trace_id"] for t in Turn.objects.filter(session=session)} == {TRACE}
    assert set(TaskEvent.objects.filter(task=task).values_list("trace_id", flat=True)) == {TRACE}
    seen = erp.requests_seen()
    assert seen and all(trace.trace_id_of(r["traceparent"]) == TRACE for r in seen), seen
    to_bob = [m for m in mail.outbox if "bob@example.com" in m.to]
    assert to_bob and all(trace.trace_id_of(m.extra_headers["traceparent"]) == TRACE for m in to_bob)
    assert all(m.extra_headers["X-Trace-Id"] == TRACE for m in to_bob)
    assert client.get(f"/api/v1/tasks/{task.pk}/").json()["trace_id"] == TRACE


@pytest.mark.django_db
def test_the_task_page_shows_its_trace_id_to_copy(demo, client):
    from procurement.purchase import services

    with trace.using(TRACE):
        task = services.request_submit(requester=demo["alice"], department="ENG",
                                       lines=[{"description": "Laptop", "quantity": 1}], justification="new hire")
    # The trace id is for whoever follows a request through the logs: the admin on call, not the requester.
    client.force_login(demo["carol"])
    page = client.get(f"/tasks/{task.pk}/", HTTP_ACCEPT_LANGUAGE="zh-hant").content.decode()
    assert re.search(rf"<code data-trace-id>{TRACE}</code>", page)
    client.force_login(demo["alice"])
    assert TRACE not in client.get(f"/tasks/{task.pk}/", HTTP_ACCEPT_LANGUAGE="zh-hant").content.decode()


@pytest.mark.django_db
def test_a_request_without_traceparent_starts_a_new_trace_and_a_bad_one_is_not_trusted(demo):
    client = client_for(demo["alice"])
    lines = [{"description": "Laptop", "quantity": 1}]
    first = client.post("/api/v1/tasks/", {"department": "ENG", "lines": lines, "justification": "a"}, format="json")
    bad = client.post("/api/v1/tasks/", {"department": "ENG", "lines": lines, "justification": "b"}, format="json",
                      HTTP_TRACEPARENT="00-" + "0" * 32 + "-00f067aa0ba902b7-01")
    ids = [first.json()["trace_id"], bad.json()["trace_id"]]
    assert all(trace.is_trace_id(i) for i in ids) and len(set(ids)) == 2


@pytest.mark.django_db
def test_a_memory_use_is_recorded_in_the_trace_of_the_task_it_was_used_for(demo):
    entry = memory_create(by=demo["carol"], scope="user", subject="alice", kind="preference",
                          content="prefers 14-inch laptops")
    task = Task.objects.create(kind="purchase", initiator=demo["alice"], tenant="ENG", state="draft",
                               trace_id=TRACE)
    TaskEvent.objects.create(task=task, actor="alice", event="create", from_state="", to_state="draft", version=1)
    record(entry, MemoryEvent.Action.USE, task=task)
    assert MemoryEvent.objects.get(entry=entry, action="use").trace_id == TRACE


def test_log_lines_are_json_with_the_trace_of_the_work():
    record_ = logging.LogRecord("procurement.tasks", logging.WARNING, __file__, 1, "step %s failed", ("award",), None)
    with trace.using(TRACE):
        line = json.loads(JsonLines().format(record_))
    assert (line["message"], line["trace_id"], line["level"]) == ("step award failed", TRACE, "WARNING")


def test_a_celery_message_carries_the_trace_and_the_worker_runs_the_task_in_it():
    from types import SimpleNamespace

    from procurement.celery import _enter_trace, _leave_trace, _send_trace

    headers = {}
    with trace.using(TRACE):
        _send_trace(headers=headers)
    assert trace.trace_id_of(headers["traceparent"]) == TRACE
    received = SimpleNamespace(request=SimpleNamespace(traceparent=headers["traceparent"], is_eager=False))
    _enter_trace(task_id="t-1", task=received)
    try:
        assert trace.current() == TRACE
    finally:
        _leave_trace(task_id="t-1")
    assert trace.current() != TRACE

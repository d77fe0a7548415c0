"""`POST /api/v1/sessions/{id}/messages/` `{"text"}`: one chat turn over the REST API.
Routed here by a test URLconf until the API's urls.py includes the view."""
import io
import uuid

import pytest
from django.core.management import call_command
from procurement.people.tokens import token_issue
from rest_framework.test import APIClient

from agentstate.models import Session, Task
from procurement.chat.runtime import CHAT_MAX_CHARS
from tests.procurement.chat.support import no_memory_store  # noqa: F401

pytestmark = pytest.mark.usefixtures("no_memory_store")


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def url(session_id) -> str:
    return f"/api/v1/sessions/{session_id}/messages/"


@pytest.fixture
def session(demo):
    return Session.objects.create(owner=demo["alice"])


@pytest.mark.django_db
def test_a_message_answers_201_with_the_reply_the_task_the_turn_and_the_action(demo, session):
    response = client_for(demo["alice"]).post(url(session.pk), {"text": "I need 2 laptops for QA"}, format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    task = Task.objects.get()
    assert body.keys() == {"reply", "task", "turn", "action"}
    assert body["task"] == {"id": str(task.pk), "state": "draft", "version": 1}
    assert (body["turn"], body["action"]) == (2, "update_draft") and "Shall I submit it?" in body["reply"]


@pytest.mark.django_db
def test_no_task_yet_answers_task_null(demo, session):
    body = client_for(demo["alice"]).post(url(session.pk), {"text": "hello"}, format="json").json()
    assert body["task"] is None and body["action"] == "none"


@pytest.mark.django_db(transaction=True)
def test_confirming_by_token_moves_the_task_on(demo, session, erp, eager):
    _token, key = token_issue(user=demo["alice"])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    client.post(url(session.pk), {"text": "我需要 2 台筆電，給新人"}, format="json")
    body = client.post(url(session.pk), {"text": "好"}, format="json").json()
    assert body["action"] == "submit" and body["task"]["state"] == "awaiting_approval"


@pytest.mark.django_db
def test_without_credentials_401(session):
    assert APIClient().post(url(session.pk), {"text": "hi"}, format="json").status_code == 401


@pytest.mark.django_db
@pytest.mark.parametrize("payload", [{"text": ""}, {"text": "   "}, {}, {"text": None}, {"text": ["hi"]}])
def test_an_empty_message_is_400(demo, session, payload):
    response = client_for(demo["alice"]).post(url(session.pk), payload, format="json")
    assert response.status_code == 400 and response.json()["detail"] == "Message is empty."
    assert session.turns.count() == 0


@pytest.mark.django_db
def test_a_message_over_the_limit_is_400_naming_the_limit(demo, session):
    response = client_for(demo["alice"]).post(url(session.pk), {"text": "a" * (CHAT_MAX_CHARS + 1)}, format="json")
    assert response.status_code == 400
    assert str(CHAT_MAX_CHARS) in response.json()["detail"] and response.json()["errors"]["text"]


@pytest.mark.django_db
def test_someone_elses_session_a_locked_one_or_an_unknown_id_is_404(demo, session):
    for name in ("erin", "bob", "carol"):
        response = client_for(demo[name]).post(url(session.pk), {"text": "hi"}, format="json")
        assert response.status_code == 404 and response.json() == {"detail": "No such session."}
    alice = client_for(demo["alice"])
    assert alice.post(url(uuid.uuid4()), {"text": "hi"}, format="json").status_code == 404
    assert alice.post(url("not-an-id"), {"text": "hi"}, format="json").status_code == 404
    Session.objects.filter(pk=session.pk).update(locked=True)
    assert alice.post(url(session.pk), {"text": "hi"}, format="json").status_code == 404
    assert session.turns.count() == 0


@pytest.mark.django_db
def test_html_is_stored_and_returned_as_the_text_written(demo, session):
    text = "<img src=x onerror=alert(1)> I need a <script>x</script>"
    body = client_for(demo["alice"]).post(url(session.pk), {"text": text}, format="json").json()
    assert session.turns.get(seq=1).text == text
    assert body["action"] == "ask" and "<script>x</script>" in body["reply"]  # JSON carries text; pages escape it


@pytest.mark.django_db
def test_the_view_is_described_in_the_schema_without_warnings():
    out = io.StringIO()
    call_command("spectacular", "--fail-on-warn", "--validate", stdout=out)
    assert "/api/v1/sessions/{id}/messages/:" in out.getvalue() and "ChatMessageOut" in out.getvalue()

"""The input layer (DESIGN §15): hostile input answers a 400 or 413 that says what was wrong,
as JSON to API callers and as HTML to browsers; never a 500, and nothing is stored."""
import json

import pytest
from django.test import Client
from rest_framework.test import APIClient

from agentstate.models import Session, Turn
from procurement.infra.limits import MAX_JSON_DEPTH
from tests.procurement.chat.support import no_memory_store  # noqa: F401

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("no_memory_store")]
DEEP = "[" * 1500 + "]" * 1500


@pytest.fixture
def session(demo):
    return Session.objects.create(owner=demo["alice"])


def api(user) -> APIClient:
    client = APIClient(raise_request_exception=False)
    client.force_authenticate(user)
    return client


def browser(user) -> Client:
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client


def messages_url(session) -> str:
    return f"/api/v1/sessions/{session.pk}/messages/"


@pytest.mark.parametrize("path", ["/api/v1/tasks/", "/api/v1/sessions/", "/api/v1/memory/",
                                  "/api/v1/approvals/00000000-0000-0000-0000-000000000000/decision/"])
def test_json_nested_1500_levels_is_refused_with_400_on_every_json_endpoint(demo, path):
    response = api(demo["alice"]).post(path, DEEP, content_type="application/json")
    assert response.status_code == 400
    assert f"nested more than {MAX_JSON_DEPTH} levels" in response.json()["detail"]


def test_nesting_just_inside_the_limit_reaches_the_view(demo, session):
    body = {"text": "hello", "x": json.loads("[" * (MAX_JSON_DEPTH - 2) + "]" * (MAX_JSON_DEPTH - 2))}
    response = api(demo["alice"]).post(messages_url(session), body, format="json")
    assert response.status_code == 201


def test_a_nul_in_chat_text_over_the_api_is_refused_and_nothing_is_stored(demo, session):
    response = api(demo["alice"]).post(messages_url(session), {"text": "two laptops\u0000"}, format="json")
    assert response.status_code == 400
    assert response.json()["errors"] == {"text": [response.json()["detail"]]}
    assert "NUL" in response.json()["detail"]
    assert not Turn.objects.exists()


def test_a_lone_surrogate_in_json_is_refused(demo, session):
    raw = b'{"text": "laptop \\ud800 please"}'
    response = api(demo["alice"]).post(messages_url(session), raw, content_type="application/json")
    assert response.status_code == 400 and "surrogate" in response.json()["detail"]
    assert not Turn.objects.exists()


def test_a_nul_in_a_json_key_is_refused(demo):
    response = api(demo["alice"]).post("/api/v1/tasks/", b'{"de\\u0000pt": "ENG"}', content_type="application/json")
    assert response.status_code == 400 and "NUL" in response.json()["detail"]


def test_a_5000_digit_json_number_is_refused(demo):
    raw = b'{"department": "ENG", "justification": "x", "lines": [{"description": "Laptop", "quantity": ' + \
        b"9" * 5000 + b"}]}"
    response = api(demo["alice"]).post("/api/v1/tasks/", raw, content_type="application/json")
    assert response.status_code == 400 and "5000 characters" in response.json()["detail"]


def test_a_nul_in_chat_text_on_the_page_is_refused_as_html(demo, session):
    response = browser(demo["alice"]).post(f"/chat/{session.pk}/messages/", {"text": "monitors\x00"})
    assert response.status_code == 400
    assert response["Content-Type"].startswith("text/html")
    assert "NUL character" in response.content.decode()
    assert not Turn.objects.exists()


def test_htmx_gets_only_the_message_fragment(demo, session):
    response = browser(demo["alice"]).post(f"/chat/{session.pk}/messages/", {"text": "x\x00"},
                                           HTTP_HX_REQUEST="true")
    assert response.status_code == 400
    html = response.content.decode()
    assert "NUL character" in html and "<html" not in html


def test_a_nul_in_a_query_parameter_is_refused(demo):
    response = browser(demo["carol"]).get("/memory/?subject=al%00ice")
    assert response.status_code == 400 and "subject" in response.content.decode()


def test_a_nul_in_an_api_query_parameter_answers_json(demo):
    response = api(demo["alice"]).get("/api/v1/tasks/?page=1%00")
    assert response.status_code == 400 and response.json()["errors"] == {"page": [response.json()["detail"]]}


def test_a_5000_digit_number_on_an_html_form_is_refused(demo):
    entry_page = "/memory/00000000-0000-0000-0000-000000000000/confirm/"
    response = browser(demo["carol"]).post(entry_page, {"version": "9" * 5000})
    assert response.status_code == 400 and "5000 characters" in response.content.decode()


def test_a_5mb_body_answers_413_saying_the_limit(demo, session, settings):
    body = json.dumps({"text": "a" * (5 * 1024 * 1024)})
    response = api(demo["alice"]).post(messages_url(session), body, content_type="application/json")
    assert response.status_code == 413
    assert f"{settings.INPUT_MAX_BODY_BYTES:,}" in response.json()["detail"]


def test_a_5mb_form_answers_413_as_html(demo, session):
    response = browser(demo["alice"]).post(f"/chat/{session.pk}/messages/", {"text": "a" * (5 * 1024 * 1024)})
    assert response.status_code == 413 and "limit" in response.content.decode()


def test_ordinary_text_with_numbers_and_chinese_passes(demo, session):
    response = browser(demo["alice"]).post(f"/chat/{session.pk}/messages/", {"text": "我需要 2 台筆電，預算 70 萬"})
    assert response.status_code in (200, 302)
    assert Turn.objects.filter(session=session).count() == 2


def test_refusals_speak_the_users_language(demo, session):
    client = browser(demo["alice"])
    response = client.post(f"/chat/{session.pk}/messages/", {"text": "x\x00"}, HTTP_ACCEPT_LANGUAGE="zh-hant")
    assert response.status_code == 400 and "NUL 字元" in response.content.decode()

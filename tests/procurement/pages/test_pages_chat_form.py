"""The chat page's post (procurement/pages/chat.py): a Django form with the API's rules (empty,
too long, NUL), and the API's chat throttle (same rate, one count per person whether the turn
came through the page or the API), refused in the page's language, nothing stored, never 500."""
import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from agentstate.models import Session, Turn
from procurement.api.throttles import ChatThrottle
from procurement.infra.limits import MAX_CHAT_CHARS
from tests.procurement.chat.support import no_memory_store  # noqa: F401

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("no_memory_store")]
HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def session(demo):
    return Session.objects.create(owner=demo["alice"])


def page_client(user, language="en"):
    client = Client()
    client.force_login(user)
    client.cookies["django_language"] = language
    return client


def post(client, session, text, **extra):
    return client.post(reverse("chat-message", args=[session.pk]), {"text": text}, **extra)


def api_post(user, session, text):
    client = APIClient()
    client.force_authenticate(user)
    return client.post(f"/api/v1/sessions/{session.pk}/messages/", {"text": text}, format="json")


def test_a_message_over_the_limit_gets_the_apis_refusal_and_keeps_what_was_typed(session, demo):
    text = "x" * (MAX_CHAT_CHARS + 1)
    page = post(page_client(demo["alice"]), session, text)
    api = api_post(demo["alice"], session, text)
    body = page.content.decode()
    assert page.status_code == api.status_code == 400
    assert api.json()["detail"] in body, "the same words as the API"
    assert f">{text}</textarea>" in body, "what she typed is still in the box"
    assert Turn.objects.filter(session=session).count() == 0


def test_an_empty_message_is_refused_in_traditional_chinese_on_a_zh_hant_page(session, demo):
    page = post(page_client(demo["alice"], "zh-hant"), session, "  ", **HX)
    assert page.status_code == 400
    assert "訊息是空的" in page.content.decode() or "空白" in page.content.decode(), page.content.decode()
    assert Turn.objects.filter(session=session).count() == 0


def test_a_nul_character_is_refused_with_a_400_never_a_500(session, demo):
    page = post(page_client(demo["alice"]), session, "two laptops\x00")
    assert page.status_code == 400 and "NUL" in page.content.decode()
    assert Turn.objects.filter(session=session).count() == 0


@pytest.mark.parametrize("language, words", [("en", "faster than the agent takes them"), ("zh-hant", "太快")])
def test_the_page_is_throttled_like_the_api_with_a_clear_message(session, demo, monkeypatch, language, words):
    monkeypatch.setattr(ChatThrottle, "THROTTLE_RATES", {"chat": "2/min"})
    alice = page_client(demo["alice"], language)
    answers = [post(alice, session, "hello", **HX) for _ in range(3)]
    assert [a.status_code for a in answers] == [200, 200, 429]
    refused = answers[-1]
    assert words in refused.content.decode() and int(refused["Retry-After"]) > 0
    assert "<html" not in refused.content.decode(), "htmx gets the fragment with the message"
    assert Turn.objects.filter(session=session, role="user").count() == 2
    full_page = post(alice, session, "hello again")
    assert full_page.status_code == 429 and words in full_page.content.decode()


def test_page_and_api_turns_are_one_count_per_person(session, demo, monkeypatch):
    monkeypatch.setattr(ChatThrottle, "THROTTLE_RATES", {"chat": "2/min"})
    assert api_post(demo["alice"], session, "hello").status_code == 201
    assert post(page_client(demo["alice"]), session, "hello").status_code == 302
    assert api_post(demo["alice"], session, "hello").status_code == 429
    assert post(page_client(demo["alice"]), session, "hello").status_code == 429
    erin_session = Session.objects.create(owner=demo["erin"])
    assert post(page_client(demo["erin"]), erin_session, "hello").status_code == 302, "erin has her own count"

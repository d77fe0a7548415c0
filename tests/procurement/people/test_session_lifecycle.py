"""A conversation's lifecycle in the product (agentstate.retention): its status in words in both
languages wherever conversations are listed, a new turn waking an idle one, an expired one
refusing new turns, and a compacted one saying what its earlier turns touched."""
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from agentstate.models import Session, Turn
from agentstate.retention import state_prune
from procurement.chat.runtime import chat_turn
from procurement.purchase import services

pytestmark = pytest.mark.django_db


def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_the_status_reads_in_words_on_the_list_the_request_page_and_the_api(demo, client):
    session = Session.objects.create(owner=demo["alice"])
    Session.objects.filter(pk=session.pk).update(updated_at=timezone.now() - timedelta(hours=2))
    state_prune()
    client.force_login(demo["alice"])
    assert "閒置" in client.get("/chat/", HTTP_ACCEPT_LANGUAGE="zh-hant").content.decode()
    assert ">Idle<" in client.get("/chat/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    body = api(demo["alice"]).get(f"/api/v1/sessions/{session.pk}/", HTTP_ACCEPT_LANGUAGE="zh-Hant").json()
    assert (body["status"], body["status_label"]) == ("idle", "閒置")


def test_a_turn_wakes_an_idle_conversation_and_an_expired_one_refuses_new_turns(demo):
    session = Session.objects.create(owner=demo["alice"], status=Session.Status.IDLE)
    chat_turn(session=session, user=demo["alice"], text="hello")
    session.refresh_from_db()
    assert session.status == "active"
    Session.objects.filter(pk=session.pk).update(status=Session.Status.EXPIRED)
    turns = session.turns.count()
    response = api(demo["alice"]).post(f"/api/v1/sessions/{session.pk}/messages/", {"text": "still there?"},
                                       format="json", HTTP_ACCEPT_LANGUAGE="zh-Hant")
    assert response.status_code == 409 and response.json()["detail"] == "這段對話已過期，請開始新的對話。"
    assert session.turns.count() == turns and Session.objects.get(pk=session.pk).status == "expired"


def test_a_compacted_conversation_says_how_many_earlier_turns_it_folded_and_which_requests(demo, client, settings):
    settings.SESSION_COMPACT_AFTER_TURNS, settings.SESSION_KEEP_RECENT_TURNS = 4, 2
    task = services.request_submit(requester=demo["alice"], department="ENG",
                                   lines=[{"description": "Laptop", "quantity": 1}], justification="new hire")
    session = Session.objects.create(owner=demo["alice"], task=task)
    for seq in range(1, 8):
        Turn.objects.create(session=session, seq=seq, role="agent" if seq % 2 == 0 else "user", text=f"line {seq}",
                            data={"task": str(task.pk), "did": "none"} if seq % 2 == 0 else {})
    state_prune()
    client.force_login(demo["alice"])
    page = client.get(f"/chat/{session.pk}/", HTTP_ACCEPT_LANGUAGE="zh-hant").content.decode()
    number = task.purchase_request.number
    assert "較早的 5 則訊息" in page and number in page
    assert "line 7" in page and "line 6" in page

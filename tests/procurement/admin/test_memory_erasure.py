"""Deletion that leaves nothing (DESIGN §15): alice states a standing preference in chat, carol
deletes the memory on its page after the preview says what happens to the turn, and then no
text or JSON column of any table, nor the mail folder, holds her words or the entry's text."""
import re
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from agentstate.memory.models import MemoryEntry
from agentstate.memory.services import memory_confirm
from agentstate.models import Session, Turn
from procurement.chat.runtime import chat_turn
from tests.agentstate.memory_support import where_text_is

pytestmark = pytest.mark.django_db
SAID = "from now on always deliver to the Zq7 warehouse in Hsinchu"


@pytest.fixture
def learned(demo, settings, tmp_path):
    settings.MAILERS = {"default": {"BACKEND": "django.core.mail.backends.filebased.EmailBackend",
                                    "OPTIONS": {"file_path": str(tmp_path / "mail")}}}
    alice = demo["alice"]
    session = Session.objects.create(owner=alice)
    for text in ("I need 2 laptops for the QA lab", SAID):
        chat_turn(session=session, user=alice, text=text)
    entry = MemoryEntry.objects.get()
    memory_confirm(entry=entry, by=alice)
    # Used later in another conversation, so it reaches that task's context too.
    chat_turn(session=Session.objects.create(owner=alice), user=alice, text="I need 3 monitors for the lab")
    return entry


def carol(demo) -> Client:
    client = Client()
    client.force_login(demo["carol"])
    return client


def test_deleting_a_memory_learned_in_chat_leaves_its_text_nowhere(demo, learned, tmp_path):
    assert "Zq7" in learned.content and where_text_is("Zq7")
    client = carol(demo)
    preview = client.get(reverse("memory-delete", args=[learned.pk])).content.decode()
    note = f"[removed: memory deleted by carol on {timezone.localdate().isoformat()}]"
    assert "The chat turn it was learned from will read" in preview and note in preview
    client.post(reverse("memory-delete", args=[learned.pk]), {"reason": "alice asked us to forget it"})

    assert where_text_is("Zq7") == [] and where_text_is("warehouse in Hsinchu") == []
    assert Turn.objects.filter(text=note).count() == 1
    mail = [p.read_text(errors="replace") for p in Path(tmp_path / "mail").glob("*")] if (tmp_path / "mail").exists() \
        else []
    assert not any("Zq7" in message for message in mail)
    tomb = MemoryEntry.objects.get(pk=learned.pk)
    assert (tomb.status, tomb.content, tomb.delete_reason) == ("deleted", "", "alice asked us to forget it")


def test_a_reason_quoting_a_few_words_of_the_memory_keeps_none_of_them(demo, learned):
    carol(demo).post(reverse("memory-delete", args=[learned.pk]), {"reason": "the Zq7 Warehouse closed"})
    tomb = MemoryEntry.objects.get(pk=learned.pk)
    assert tomb.status == "deleted" and tomb.delete_reason == "[…]closed"
    assert where_text_is("Zq7") == [] and where_text_is("Warehouse") == []


def test_a_reason_that_quotes_the_memory_is_refused_on_the_page(demo, learned):
    response = carol(demo).post(reverse("memory-delete", args=[learned.pk]),
                                {"reason": "wrong: always deliver to the Zq7 warehouse"})
    assert response.status_code == 400
    assert re.search("repeats what the entry says", response.content.decode())
    assert MemoryEntry.objects.get(pk=learned.pk).status == "active"
    assert Turn.objects.filter(text=SAID).exists()


def test_the_api_preview_names_the_turn_replacement(demo, learned):
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(demo["carol"])
    body = client.get(f"/api/v1/memory/{learned.pk}/delete-preview/").json()
    assert body["source_turns"] == 1 and body["source_replacement"].startswith("[removed: memory deleted by carol")


def test_a_reason_that_quotes_the_memory_is_refused_in_traditional_chinese_for_a_zh_hant_reader(demo, learned):
    client = carol(demo)
    client.cookies["django_language"] = "zh-hant"
    page = client.post(reverse("memory-delete", args=[learned.pk]), {"reason": "wrong: always deliver to the Zq7 "
                                                                               "warehouse"}, HTTP_HX_REQUEST="true")
    html = page.content.decode()
    assert page.status_code == 400 and "原因" in html and "引用" in html
    assert "repeats what the entry says" not in html

    from rest_framework.test import APIClient

    api = APIClient()
    api.force_authenticate(demo["carol"])
    answer = api.delete(f"/api/v1/memory/{learned.pk}/?reason=always+deliver+to+the+Zq7+warehouse",
                        HTTP_ACCEPT_LANGUAGE="zh-hant")
    body = answer.json()
    assert answer.status_code == 400 and "引用" in body["detail"] and "引用" in body["errors"]["reason"][0]
    assert "code" not in body
    assert MemoryEntry.objects.get(pk=learned.pk).status == "active"


def test_the_removed_turn_reads_in_traditional_chinese_on_her_chat_page(demo, learned):
    source = Turn.objects.get(text=SAID).session
    carol(demo).post(reverse("memory-delete", args=[learned.pk]), {"reason": "alice asked us to forget it"})
    alice = Client()
    alice.force_login(demo["alice"])
    alice.cookies["django_language"] = "zh-hant"
    page = alice.get(reverse("chat-page", args=[source.pk])).content.decode()
    assert f"［已移除：carol 於 {timezone.localdate().isoformat()} 刪除了這則記憶］" in page
    assert "[removed" not in page

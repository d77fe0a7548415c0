"""A draft started in chat is discarded by a button on its page, and leaves her lists."""
import pytest
from django.test import Client
from django.urls import reverse

from agentstate.models import Session, Task
from procurement.chat.runtime import chat_turn
from tests.procurement.chat.support import no_memory_store  # noqa: F401

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("no_memory_store")]


def test_a_draft_is_discarded_by_its_button_and_leaves_her_lists(demo, erp, eager):
    alice = demo["alice"]
    draft = chat_turn(session=Session.objects.create(owner=alice), user=alice, text="2 monitors please").task
    client = Client()
    client.force_login(alice)
    page = client.get(reverse("task-page", args=[draft.pk]), headers={"accept-language": "zh-hant"}).content.decode()
    assert "捨棄草稿" in page and "取消請購" not in page
    link = reverse("task-page", args=[draft.pk])
    assert link in client.get(reverse("my-requests")).content.decode()
    assert client.post(reverse("task-cancel", args=[draft.pk])).status_code in (200, 302)
    assert Task.objects.get(pk=draft.pk).state == "cancelled"
    assert link not in client.get(reverse("my-requests")).content.decode()


def test_a_draft_discarded_in_chat_is_said_discarded_and_leaves_her_conversations(demo, erp, eager):
    alice = demo["alice"]
    session = Session.objects.create(owner=alice)
    kept = Session.objects.create(owner=alice)
    chat_turn(session=kept, user=alice, text="2 monitors please")
    draft = chat_turn(session=session, user=alice, text="我要一台筆電給新人").task
    reply = chat_turn(session=session, user=alice, text="這張不要了").reply
    assert "捨棄" in reply and "已取消" not in reply
    assert Task.objects.get(pk=draft.pk).state == "cancelled"
    client = Client()
    client.force_login(alice)
    conversations = client.get(reverse("chat-sessions"), headers={"accept-language": "zh-hant"}).content.decode()
    assert reverse("chat-page", args=[session.pk]) not in conversations
    assert reverse("chat-page", args=[kept.pk]) in conversations  # her other draft's conversation stays
    assert reverse("task-page", args=[draft.pk]) not in client.get(reverse("my-requests")).content.decode()


@pytest.mark.parametrize("lang, discard, words", [
    ("zh-hant", "這張不要了", ("草稿已捨棄", "已結束：草稿已捨棄")),
    ("en", "scrap this draft", ("Draft discarded", "Ended: its draft was discarded"))])
def test_a_discarded_draft_reads_discarded_on_its_page_and_in_its_conversation(demo, erp, eager, lang, discard, words):
    """Opened again from her notices or history, the draft and its conversation say it was thrown
    away, not that a request was cancelled or closed."""
    alice = demo["alice"]
    session = Session.objects.create(owner=alice)
    draft = chat_turn(session=session, user=alice, text="2 monitors please").task
    chat_turn(session=session, user=alice, text=discard)
    client = Client()
    client.force_login(alice)
    task_page = client.get(reverse("task-page", args=[draft.pk]), headers={"accept-language": lang}).content.decode()
    chat_page = client.get(reverse("chat-page", args=[session.pk]), headers={"accept-language": lang}).content.decode()
    assert f">{words[0]}</span>" in task_page  # the state badge, not 「已取消」
    assert words[1] in chat_page and ("請購單已結案" if lang == "zh-hant" else "its request ended") not in chat_page

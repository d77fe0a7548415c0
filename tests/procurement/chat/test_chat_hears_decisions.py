"""She hears the decision where she asked: the approval (with the approver's comment), the order
and a rejection are told in the conversation she made the request in, in that conversation's
language; a request made without the chat gets no conversation opened for it."""
import pytest

from agentstate.models import Session, Task

from tests.procurement.chat.support import agent_turns, no_memory_store, open_session, talk  # noqa: F401
from tests.procurement.policy_support import SMALL, decide, pending, submit

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("no_memory_store")]


def requested_in_chat(user, *texts):
    session = open_session(user)
    result = talk(session, user, *texts)
    assert result.task.state != "draft", result.reply
    return session, Task.objects.get(pk=result.task.pk)


def test_the_approval_and_the_order_are_told_in_her_chinese_conversation(demo, erp, eager):
    session, task = requested_in_chat(demo["alice"], "我要兩台筆電，給新進工程師", "好")
    assert decide(demo["bob"], pending(task), comment="請先給阿明").status_code == 200
    said = [turn.text for turn in agent_turns(session)][-2:]
    assert "Bob Wang 已核准您的請購" in said[0] and "「請先給阿明」" in said[0]
    assert "採購單" in said[1]
    assert all("approved" not in text for text in said)
    assert talk(session, demo["alice"], "謝謝").reply.startswith("不客氣")  # the conversation stays Chinese


def test_a_rejection_is_told_in_her_english_conversation(demo, erp, eager):
    session, task = requested_in_chat(demo["alice"], "I need 2 laptops for the new engineers", "yes")
    assert decide(demo["bob"], pending(task), "reject", comment="No budget this quarter").status_code == 200
    last = agent_turns(session)[-1].text
    assert "Bob Wang rejected your request" in last and "No budget this quarter" in last


def test_a_request_made_over_the_api_gets_no_conversation_opened(demo, erp, eager):
    task = submit(demo["alice"], SMALL)
    assert decide(demo["bob"], pending(task)).status_code == 200
    assert not Session.objects.filter(task=task).exists()


def test_her_conversations_are_listed_by_the_request_they_are_about(demo, erp, eager, django_assert_max_num_queries):
    from django.test import Client
    from django.urls import reverse

    from tests.procurement.page_text import visible_text
    _session, task = requested_in_chat(demo["alice"], "我要兩台筆電，給新進工程師", "好")
    requested_in_chat(demo["alice"], "我要一台螢幕，給新進工程師", "好")
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hant")
    client.force_login(demo["alice"])
    with django_assert_max_num_queries(12):
        text = visible_text(client.get(reverse("chat-sessions")).content.decode())
    assert f"{task.purchase_request.number} · 筆電 × 2" in text and "螢幕 × 1" in text
    assert text.count("進行中") == 2
    # Once a request ends its conversation reads closed, before the retention pass records it.
    assert decide(demo["bob"], pending(task), "reject", comment="本季預算已用完").status_code == 200
    text = visible_text(client.get(reverse("chat-sessions")).content.decode())
    assert text.count("進行中") == 1 and "已結束：請購單已結案" in text


@pytest.mark.parametrize("language, now, earlier", [("zh-hant", "剛剛", "12 分鐘前"), ("en", "just now", "12 minutes ago")])
def test_her_conversations_say_how_long_ago_each_was_last_used(demo, language, now, earlier):
    from datetime import timedelta

    from django.test import Client
    from django.urls import reverse
    from django.utils import timezone

    from tests.procurement.page_text import visible_text

    open_session(demo["alice"])
    old = open_session(demo["alice"])
    Session.objects.filter(pk=old.pk).update(updated_at=timezone.now() - timedelta(minutes=12, seconds=20))
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(demo["alice"])
    text = visible_text(client.get(reverse("chat-sessions")).content.decode()).replace("\xa0", " ")
    assert now in text and earlier in text


@pytest.mark.parametrize("account, said, asked, answer", [
    ("zh-hant", "I need 2 laptops for the new engineers", "Bob Wang returned", "make it 1 laptop"),
    ("en", "我要兩台筆電，給新進工程師", "退回修改", "改成一台"),
])
def test_a_return_asks_in_the_language_of_her_conversation_not_her_accounts(demo, erp, eager, account, said,
                                                                           asked, answer):
    from procurement.people.language import user_language_set

    user_language_set(user=demo["alice"], language=account)
    session, task = requested_in_chat(demo["alice"], said, "yes" if said.isascii() else "好")
    assert decide(demo["bob"], pending(task), "return", comment="Why two?").status_code == 200
    question = agent_turns(session)[-1].text
    assert asked in question and "Why two?" in question
    talk(session, demo["alice"], answer)
    task.refresh_from_db()
    assert task.state == "awaiting_approval"
    assert [line.quantity for line in task.purchase_request.lines.all()] == [1]

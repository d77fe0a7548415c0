"""Sentences a requester types that no transcript had: asked from her side, answered from State,
and none of them files a request or turns into a purpose."""
import pytest

from procurement.purchase import services
from tests.procurement.chat.support import no_memory_store, open_session, talk  # noqa: F401

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("no_memory_store")]


@pytest.fixture
def waiting(demo, erp, eager):
    """alice's two monitors, waiting for bob or frank."""
    task = services.request_submit(requester=demo["alice"], department="ENG",
                                   lines=[{"description": "Monitor", "quantity": 2}], justification="new hires")
    task.refresh_from_db()
    assert task.state == "awaiting_approval"
    return task


@pytest.mark.parametrize("question", ["誰在審我的單？", "我上週送的那張單子呢？", "我的單子呢", "那筆請購單呢？",
                                      "who is approving it?", "who's reviewing my monitors?", "who has my request?"])
def test_where_is_it_and_who_has_it_get_the_status_with_the_approvers(demo, waiting, question):
    result = talk(open_session(demo["alice"]), demo["alice"], question)
    assert result.action == "status" and waiting.purchase_request.number in result.reply
    assert ("等待核准" in result.reply or "waiting for approval" in result.reply) and "Bob Wang" in result.reply \
        and "Frank Chang" in result.reply
    assert "無法從系統紀錄得知" not in result.reply and "can't tell" not in result.reply and "not sure" not in result.reply
    assert "版" not in result.reply and "version" not in result.reply


def test_a_question_nobody_can_place_says_so_and_gives_where_it_stands(demo, waiting):
    result = talk(open_session(demo["alice"]), demo["alice"], "那個怎麼弄？")
    assert result.reply.startswith("我不太確定您問的是什麼；您的請購目前是這樣：")
    assert "等待核准" in result.reply and "無法從系統紀錄得知" not in result.reply
    assert talk(open_session(demo["erin"]), demo["erin"], "那個怎麼弄？").reply == \
        "我不太確定您問的是什麼，而您目前還沒有請購。請問要買什麼？"


def test_the_delivery_date_is_still_what_the_records_cannot_tell(demo, waiting):
    result = talk(open_session(demo["alice"]), demo["alice"], "螢幕什麼時候會到？")
    assert "無法從系統紀錄得知" in result.reply


@pytest.mark.parametrize("thanks, reply", [("謝謝", "不客氣。"), ("謝謝你！", "不客氣。"), ("thanks!", "You're welcome.")])
def test_thanks_is_answered_and_never_becomes_the_purpose(demo, thanks, reply):
    session = open_session(demo["alice"])
    asked = talk(session, demo["alice"], "I need a chair" if thanks.startswith("thanks") else "我要買一張椅子")
    assert "What are they for" in asked.reply or "用途" in asked.reply
    result = talk(session, demo["alice"], thanks)
    assert result.reply.startswith(reply) and result.action != "update_draft"
    session.refresh_from_db()
    draft = session.task.data.get("draft") or {}
    assert not draft.get("justification"), "thanks is no purpose"
    follow = talk(session, demo["alice"], "給新進同仁用" if not thanks.startswith("thanks") else "for the new hire")
    assert "確認送出" in follow.reply or "Submit" in follow.reply or "submit" in follow.reply


def test_yes_with_thanks_still_submits(demo, erp, eager):
    session = open_session(demo["alice"])
    talk(session, demo["alice"], "我需要兩台螢幕給新人")
    result = talk(session, demo["alice"], "好，謝謝")
    assert result.task.state != "draft" and "已送出" in result.reply


@pytest.mark.parametrize("aside", ["我上週送的那張單子呢？", "謝謝", "嗯？", "🤔"])
def test_an_aside_while_the_draft_waits_for_yes_leaves_one_yes_to_submit(demo, waiting, aside):
    """She asks about an earlier request, thanks, or wonders while a new draft waits for her 好:
    the aside submits nothing, and the next 好 submits the draft, once, with no second summary."""
    session = open_session(demo["alice"])
    shown = talk(session, demo["alice"], "我需要一張椅子給新人")
    assert "確認送出" in shown.reply
    aside_reply = talk(session, demo["alice"], aside)
    assert aside_reply.task.state == "draft" and "已送出" not in aside_reply.reply
    result = talk(session, demo["alice"], "好")
    assert result.task.state != "draft" and "已送出" in result.reply


def test_the_status_of_another_request_reminds_her_of_the_draft_waiting(demo, waiting):
    session = open_session(demo["alice"])
    talk(session, demo["alice"], "I need a chair for the new hire")
    result = talk(session, demo["alice"], "where is my monitor request?")
    assert waiting.purchase_request.number in result.reply
    assert result.reply.endswith('Your draft (Office chair × 1) is still waiting: reply "yes" to submit it.')
    assert talk(session, demo["alice"], "yes").task.state != "draft"


def test_a_draft_alone_is_called_a_draft_not_an_id(demo):
    session = open_session(demo["alice"])
    talk(session, demo["alice"], "我需要一張椅子給新人")
    result = talk(session, demo["alice"], "我的單子呢")
    assert result.reply.startswith("您的草稿（辦公椅 × 1）還沒送出。") and "您的申請" not in result.reply
    assert "還在等您" not in result.reply, "the status is the draft's own: no reminder about itself"


def test_a_status_question_beside_a_draft_is_about_the_submitted_request(demo, waiting):
    session = open_session(demo["alice"])
    talk(session, demo["alice"], "我需要一張椅子給新人")
    result = talk(session, demo["alice"], "我上週送的那張單子呢？")
    assert waiting.purchase_request.number in result.reply and "等待核准" in result.reply
    assert "您的申請" not in result.reply

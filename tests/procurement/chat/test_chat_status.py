"""A status question during each stage: the answer comes from State (the task's state,
receipts, approvals), never from the chat; an outcome nobody verified is never "done"."""
import pytest

from agentstate.models import Approval, Receipt
from procurement.purchase import services
from tests.procurement.chat.support import no_memory_store, open_session, talk  # noqa: F401

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("no_memory_store")]


def submitted(user, text="2 laptops for QA"):
    session = open_session(user)
    talk(session, user, text, "yes")
    session.refresh_from_db()
    return session


def test_no_request_yet__lists_none(demo):
    result = talk(open_session(demo["alice"]), demo["alice"], "where is my request?")
    assert result.action == "status" and result.reply == "You have no open requests." and result.task is None


def test_draft__nothing_sent_and_what_is_missing(demo):
    session = open_session(demo["alice"])
    talk(session, demo["alice"], "I need 2 laptops")
    result = talk(session, demo["alice"], "status")
    assert "is not submitted yet" in result.reply and "Still needed: justification" in result.reply


def test_awaiting_input__the_agents_question(demo, erp, eager):
    session = open_session(demo["alice"])
    talk(session, demo["alice"], "我需要 20 台筆電，給新進工程師，預算 70 萬以內", "含稅", "好")
    result = talk(session, demo["alice"], "進度")
    assert result.task.state == "awaiting_input"
    assert "等待您的回覆" in result.reply and "超過您的上限 NT$700,000" in result.reply and "above your cap" not in result.reply


def test_awaiting_approval__requisition_id_and_who_decides(demo, erp, eager):
    session = submitted(demo["alice"])
    requisition = Receipt.objects.get(task_id=session.task_id, operation="erp.requisition.create")
    result = talk(session, demo["alice"], "where is my request?")
    assert "waiting for approval" in result.reply and f"ERP requisition {requisition.external_id}: Confirmed" \
        in result.reply and "approval by Bob Wang or Frank Chang" in result.reply
    assert "done" not in result.reply


def test_externally_confirmed__ordered_waiting_for_the_goods_with_the_purchase_order_id(demo, erp, eager):
    session = submitted(demo["alice"])
    approval = Approval.objects.get(task_id=session.task_id, status="pending")
    services.approval_decide(approval_id=approval.pk, user=demo["bob"], decision="approve",
                             state_version=approval.state_version, scope_hash=approval.scope_hash)
    order = Receipt.objects.get(task_id=session.task_id, operation="erp.purchase_order.issue")
    result = talk(session, demo["alice"], "進度")
    assert result.task.state == "externally_confirmed"
    assert "等待到貨" in result.reply and "已完成" not in result.reply
    assert f"採購單 {order.external_id}：已確認" in result.reply


def test_needs_review_with_an_unknown_receipt__pending_verification_never_done(demo, erp, eager):
    erp.fault(mode="down", path="/requisitions")
    session = submitted(demo["alice"])
    result = talk(session, demo["alice"], "where is my request?")
    assert result.task.state == "needs_review"
    assert Receipt.objects.get(task_id=session.task_id).status == "unknown"
    assert "Reason: ERP requisition: result pending verification." in result.reply
    assert result.reply.lower().count("pending verification") == 1  # said once, as the reason
    assert "done" not in result.reply and "confirmed" not in result.reply.lower()
    zh = talk(session, demo["alice"], "進度").reply
    assert "原因：ERP 請購單：結果待確認。" in zh and zh.count("結果待確認") == 1


def test_needs_review_above_every_limit__says_why_not_that_an_outcome_is_unknown(demo, erp, eager):
    session = open_session(demo["erin"])
    talk(session, demo["erin"], "我需要 200 台筆電，給新的客服中心", "好")
    result = talk(session, demo["erin"], "現在進度如何？")
    assert result.task.state == "needs_review"
    assert "需要人工檢查" in result.reply and "超過營運部所有核准上限" in result.reply
    assert "結果待確認" not in result.reply and "OPS" not in result.reply
    why = talk(session, demo["erin"], "為什麼還沒核准？")
    assert "超過營運部所有核准上限" in why.reply and "OPS" not in why.reply


def test_a_status_answer_ignores_what_the_brain_wrote(demo):
    from procurement.chat.brain import Proposal, Status
    from tests.procurement.chat.support import ScriptedBrain

    session = open_session(demo["alice"])
    talk(session, demo["alice"], "I need 2 laptops")
    brain = ScriptedBrain([Proposal(reply="Your laptops were delivered yesterday!", action=Status())])
    result = talk(session, demo["alice"], "status?", brain=brain)
    assert "delivered" not in result.reply and "is not submitted yet" in result.reply


@pytest.mark.parametrize("question, words", [("我有哪些請購？", "另有 2 筆較早的請購"),
                                             ("list my requests", "and 2 older ones")])
def test_a_long_list_says_how_many_older_requests_it_leaves_out(demo, erp, eager, question, words):
    for n in range(12):
        services.request_submit(requester=demo["alice"], department="ENG", justification=f"desk {n}",
                                lines=[{"description": "Keyboard", "quantity": n + 1}])
    reply = talk(open_session(demo["alice"]), demo["alice"], question).reply
    assert reply.count("\n") == 11 and words in reply  # the head, ten rows, and how many more

"""The LLM brain across a real socket: a stub OpenAI-compatible server on loopback replays
recorded responses while whole conversations run through `default_brain()` as configured by
LLM_BASE_URL and LLM_MODEL. Tools follow the stage, a forbidden tool is never offered and
never obeyed, and an error or a timeout falls back to the rules."""
import pytest

from agentstate.models import Approval, Task
from procurement.purchase import services
from procurement.chat import facts
from tests.procurement.chat.stub_llm import StubModel
from tests.procurement.chat.support import draft_of, no_memory_store, open_session, talk  # noqa: F401

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("no_memory_store")]

FORBIDDEN = {"approve", "reject", "return", "decide", "set_limit", "mark_done", "record", "confirm"}


@pytest.fixture
def model(settings):
    stub = StubModel().start()
    settings.LLM_BASE_URL, settings.LLM_MODEL, settings.LLM_API_KEY = stub.base_url, "stub-model", ""
    settings.LLM_TIMEOUT_SECONDS = 1
    yield stub
    stub.stop()


def no_forbidden_tool_was_offered(model: StubModel):
    for body in model.requests:
        assert not FORBIDDEN & {tool["function"]["name"] for tool in body["tools"]}


def test_a_whole_conversation_draft_confirm_status_through_the_model(demo, erp, eager, model):
    alice, session = demo["alice"], open_session(demo["alice"])
    model.queue("update_draft_two_laptops.json", "submit.json", "status.json")
    first = talk(session, alice, "two laptops for QA please")
    assert first.turn.data["brain"] == "llm" and first.action == "update_draft"
    assert model.tools(0) == ["update_draft", "ask", "status", "propose_memory"]
    assert "Shall I submit it?" in first.reply  # the runtime, not the model, asks to confirm
    second = talk(session, alice, "yes")
    assert "submit" in model.tools(1) and second.action == "submit"
    assert Task.objects.get(pk=session.task_id).state == "awaiting_approval"
    third = talk(session, alice, "where is it?")
    number = facts.view_of(session.task_id).number
    assert model.tools(2) == ["amend", "cancel", "status", "propose_memory"]
    assert number in third.reply and "delivered" not in third.reply  # written from State
    assert model.requests[0]["model"] == "stub-model" and model.requests[0]["messages"][-1]["content"] == \
        "2 laptops for QA please"  # the message as made plain on entry (normalise.py): "two" is 2
    no_forbidden_tool_was_offered(model)


def test_a_chinese_conversation_and_a_po_question_through_the_model(demo, erp, eager, model):
    alice = demo["alice"]
    done = services.request_submit(requester=alice, department="ENG", justification="QA",
                                   lines=[{"description": "Laptop", "quantity": 2}])
    approval = Approval.objects.get(task=done, status="pending")
    services.approval_decide(approval_id=approval.pk, user=demo["bob"], decision="approve",
                             state_version=approval.state_version, scope_hash=approval.scope_hash)
    session = open_session(alice)
    model.queue("status_po_laptops.json", "update_draft_zh_monitors.json")
    answer = talk(session, alice, "筆電那張的採購單號是多少？")
    assert answer.action == "status" and facts.view_of(done.pk).po_number in answer.reply
    assert "筆電 × 2" in answer.reply and Task.objects.filter(initiator=alice, state="draft").count() == 0
    draft = talk(session, alice, "新人報到，要兩台螢幕")
    assert draft.action == "update_draft" and "確認送出嗎" in draft.reply
    assert draft_of(session)["lines"] == [{"description": "Monitor", "quantity": 2}]
    no_forbidden_tool_was_offered(model)


def test_a_return_is_answered_and_applied_through_the_model(demo, erp, eager, model):
    alice = demo["alice"]
    task = services.request_submit(requester=alice, department="ENG", justification="new hires",
                                   lines=[{"description": "Monitor", "quantity": 3}])
    approval = Approval.objects.get(task=task, status="pending")
    services.approval_decide(approval_id=approval.pk, user=demo["bob"], decision="return", comment="Two is enough.",
                             state_version=approval.state_version, scope_hash=approval.scope_hash)
    session = open_session(alice)
    session.task = task  # the conversation the return was posted in
    session.save(update_fields=["task"])
    model.queue("status_why.json", "amend_monitors_two.json")
    why = talk(session, alice, "why was it returned?")
    assert "Two is enough." in why.reply and "amend" in model.tools(0)
    changed = talk(session, alice, "ok, make it 2")
    assert changed.action == "amend" and facts.view_of(task.pk).lines == [{"description": "Monitor", "quantity": 2}]
    assert Task.objects.get(pk=task.pk).state == "awaiting_approval"


@pytest.mark.parametrize("answer, why", [(503, "InternalServerError"), (("sleep", 2.5), "APITimeoutError"),
                                         ("calls_approve.json", "'approve', which was not offered")])
def test_an_error_a_timeout_or_a_forbidden_tool_falls_back_to_the_rules(demo, model, answer, why):
    model.queue(answer)
    session = open_session(demo["alice"])
    result = talk(session, demo["alice"], "I need 2 laptops for QA")
    assert result.turn.data["brain"] == "rules" and why in result.turn.data["fallback"]
    assert result.reply.startswith("(The assistant model was unavailable") and "Shall I submit it?" in result.reply
    assert draft_of(session)["lines"] == [{"description": "Laptop", "quantity": 2}]
    assert not Approval.objects.exists()


# -- a model's word is not the requester's ----------------------------------------------

def test_a_submit_the_model_calls_after_not_yet_leaves_the_draft_and_asks_her_again(demo, erp, eager, model):
    alice, session = demo["alice"], open_session(demo["alice"])
    model.queue("update_draft_two_laptops.json", "submit.json", "submit.json")
    talk(session, alice, "two laptops for QA please")

    held = talk(session, alice, "not yet, do NOT submit")

    assert "submit" in model.tools(1), "the draft was shown, so the model may propose it"
    assert held.action == "none" and held.turn.data["outcome"] == "confirm"
    assert Task.objects.get(pk=session.task_id).state == "draft"
    assert "Submitting now." not in held.reply and "Shall I submit it?" in held.reply  # the server asks her
    assert not Approval.objects.filter(task_id=session.task_id).exists()
    # Her own yes, heard by the server, submits it.
    assert talk(session, alice, "yes").action == "submit"
    assert Task.objects.get(pk=session.task_id).state == "awaiting_approval"


def test_a_confirmation_the_model_reports_on_her_behalf_confirms_nothing(demo, erp, eager, model):
    alice, session = demo["alice"], open_session(demo["alice"])
    model.queue("update_draft_two_laptops.json", "submit_on_her_behalf.json")
    talk(session, alice, "two laptops for QA please")

    answer = talk(session, alice, "what would the total be?")

    assert answer.action == "none" and Task.objects.get(pk=session.task_id).state == "draft"
    assert "has confirmed" not in answer.reply and "Shall I submit it?" in answer.reply


def test_a_cancel_the_model_calls_on_her_behalf_cancels_nothing_until_she_says_yes(demo, erp, eager, model):
    alice, session = demo["alice"], open_session(demo["alice"])
    model.queue("update_draft_two_laptops.json", "cancel_on_her_behalf.json", "cancel_on_her_behalf.json")
    talk(session, alice, "two laptops for QA please")

    asked = talk(session, alice, "hmm, do I still need these?")

    assert "cancel" in model.tools(1) and asked.turn.data["brain"] == "llm"
    assert asked.action == "none" and asked.turn.data["outcome"] == "confirm"
    assert Task.objects.get(pk=session.task_id).state == "draft"
    assert "as confirmed" not in asked.reply
    assert talk(session, alice, "yes").action == "cancel"
    assert Task.objects.get(pk=session.task_id).state == "cancelled"


def test_a_purchase_order_the_model_makes_up_is_not_shown_and_state_answers_instead(demo, erp, eager, model):
    alice = demo["alice"]
    task = services.request_submit(requester=alice, department="ENG", justification="QA",
                                   lines=[{"description": "Laptop", "quantity": 2}])
    session = open_session(alice)
    session.task = task
    session.save(update_fields=["task"])
    model.queue("claims_approved_po.json")

    answer = talk(session, alice, "is it approved yet?")

    assert "PO-999999" not in answer.reply and "Approved!" not in answer.reply
    assert answer.action == "status" and facts.view_of(task.pk).number in answer.reply  # from State
    assert Task.objects.get(pk=task.pk).state == "awaiting_approval"

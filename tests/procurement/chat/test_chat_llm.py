"""The optional LLM brain, replayed from recorded chat-completions responses through an
httpx2 MockTransport (no network): the tools offered per stage, schema-checked output, and
the fall back to the rules on a broken answer."""
import json

import httpx2
import openai
import pytest

from agentstate.models import Task
from procurement.chat.llm import LlmBrain, WithFallback
from procurement.chat.rules import RuleBrain
from procurement.chat.runtime import default_brain
from tests.procurement.chat.support import (RECORDED, draft_of, fake_memory, no_memory_store,  # noqa: F401
                                            open_session, talk)

pytestmark = pytest.mark.django_db(transaction=True)

FALLBACK = "(The assistant model was unavailable; answered by the built-in rules.)"
NEVER = {"approve", "reject", "return", "decide", "set_limit", "mark_done", "confirm", "record"}


class RecordedModel:
    """Answers each request with the next recorded response (a file name, a status code, or
    an exception to raise) and keeps every request body."""

    def __init__(self, *answers):
        self.answers, self.requests = list(answers), []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(json.loads(request.content))
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        if isinstance(answer, int):
            return httpx2.Response(answer, json={"error": {"message": "model server error"}})
        if answer.startswith(("json:", "html:")):
            kind = "application/json" if answer.startswith("json:") else "text/html"
            return httpx2.Response(200, text=answer[5:], headers={"content-type": kind})
        return httpx2.Response(200, json=json.loads((RECORDED / answer).read_text(encoding="utf-8")))

    def brain(self):
        client = openai.DefaultHttpx2Client(transport=httpx2.MockTransport(self))
        return WithFallback(LlmBrain(base_url="http://llm.test/v1", model="test-model", api_key="k",
                                     timeout=2, http_client=client), RuleBrain())

    def tools(self, n=-1) -> list[str]:
        return [tool["function"]["name"] for tool in self.requests[n]["tools"]]


def test_a_recorded_tool_call_updates_the_draft_and_the_runtime_asks_to_confirm(demo, fake_memory):
    fake_memory.add(5, "Prefers 14-inch laptops", version=3)
    model = RecordedModel("update_draft_two_laptops.json")
    session = open_session(demo["alice"])
    result = talk(session, demo["alice"], "two laptops for QA please", brain=model.brain())
    assert result.action == "update_draft" and result.turn.data["brain"] == "llm"
    assert draft_of(session) == {"department": "ENG", "lines": [{"description": "Laptop", "quantity": 2}],
                                 "justification": "QA"}
    assert result.reply.startswith("Got it: two laptops for QA.") and "Shall I submit it?" in result.reply
    assert result.turn.data["memory_used"] == [{"id": 5, "version": 3}]
    body = model.requests[0]
    assert body["model"] == "test-model" and body["messages"][-1] == {"role": "user",
                                                                     "content": "2 laptops for QA please"}  # made plain on entry
    assert '"id": "5"' in body["messages"][1]["content"] and "Prefers 14-inch laptops" in body["messages"][1]["content"]


def test_tools_offered_per_stage__submit_only_once_confirmed__never_approve(demo, erp, eager, no_memory_store):
    alice = demo["alice"]
    session = open_session(alice)
    model = RecordedModel("update_draft_laptops_only.json", "reply_only.json", "update_draft_two_laptops.json",
                          "reply_only.json", "reply_only.json", "submit.json", "status.json", "reply_only.json")
    brain = model.brain()
    talk(session, alice, "2 laptops", brain=brain)
    assert model.tools() == ["update_draft", "ask", "status", "propose_memory"]  # no task yet
    talk(session, alice, "hmm", brain=brain)
    assert model.tools() == ["update_draft", "cancel", "ask", "status", "propose_memory"]  # draft, incomplete
    talk(session, alice, "for QA", brain=brain)
    talk(session, alice, "is that everything?", brain=brain)
    assert "submit" in model.tools(), "complete, and the runtime just asked to confirm"
    talk(session, alice, "wait", brain=brain)
    assert "submit" not in model.tools(), "the last agent turn did not ask to confirm"
    talk(session, alice, "for QA", brain=RuleBrain())  # the rules re-show the draft for confirmation
    talk(session, alice, "yes", brain=brain)
    assert "submit" in model.tools()
    assert Task.objects.get(pk=session.task_id).state == "awaiting_approval"
    talk(session, alice, "status?", brain=brain)
    assert model.tools() == ["amend", "cancel", "status", "propose_memory"]  # awaiting_approval
    for body in model.requests:
        assert not NEVER & {tool["function"]["name"] for tool in body["tools"]}


def test_tools_when_awaiting_input_and_after_the_order_is_confirmed(demo, erp, eager, no_memory_store):
    from agentstate.models import Approval
    from procurement.purchase import services

    alice = demo["alice"]
    session = open_session(alice)
    talk(session, alice, "我需要 20 台筆電，給新進工程師，預算 70 萬以內", "含稅", "好")
    model = RecordedModel("reply_only.json", "reply_only.json")
    talk(session, alice, "what now?", brain=model.brain())
    assert model.tools() == ["amend", "cancel", "ask", "status", "propose_memory"]  # awaiting_input

    other = open_session(alice)
    talk(other, alice, "2 laptops for QA", "yes")
    approval = Approval.objects.get(task_id=other.task_id, status="pending")
    services.approval_decide(approval_id=approval.pk, user=demo["bob"], decision="approve",
                             state_version=approval.state_version, scope_hash=approval.scope_hash)
    talk(other, alice, "thanks", brain=model.brain())
    assert model.tools() == ["update_draft", "attach", "ask", "status", "propose_memory"], "done: start or continue"


def test_a_recorded_amend_moves_the_task_through_the_services(demo, erp, eager, no_memory_store):
    alice, session = demo["alice"], open_session(demo["alice"])
    talk(session, alice, "2 laptops for QA", "yes")
    model = RecordedModel("amend_quantity.json")
    result = talk(session, alice, "only one laptop please", brain=model.brain())
    assert result.action == "amend" and result.task.purchase_request.lines.get().quantity == 1


def test_a_status_answer_is_written_from_state_not_by_the_model(demo, no_memory_store):
    session = open_session(demo["alice"])
    talk(session, demo["alice"], "I need 2 laptops")
    result = talk(session, demo["alice"], "where is it?", brain=RecordedModel("status.json").brain())
    assert "delivered" not in result.reply and result.reply.startswith("Your draft (Laptop × 2) is not submitted yet.")


@pytest.mark.parametrize("answer, why", [
    (500, "InternalServerError"),
    (httpx2.ReadTimeout("model too slow"), "APITimeoutError"),
    (httpx2.ConnectError("refused"), "APIConnectionError"),
    ("json:{not json", "JSONDecodeError"),
    ("html:<html>gateway</html>", "AttributeError"),
    ("calls_approve.json", "'approve', which was not offered"),
    ("two_actions.json", "one is allowed"),
    ("arguments_not_json.json", "invalid arguments for update_draft"),
    ("arguments_break_schema.json", "invalid arguments for update_draft"),
    ("empty_answer.json", "neither a reply nor an action"),
])
def test_a_broken_model_answer_falls_back_to_the_rules_and_says_so(demo, no_memory_store, answer, why):
    session = open_session(demo["alice"])
    result = talk(session, demo["alice"], "I need 2 laptops for QA", brain=RecordedModel(answer).brain())
    assert result.reply.startswith(FALLBACK) and "Shall I submit it?" in result.reply
    assert result.action == "update_draft" and draft_of(session)["lines"] == [{"description": "Laptop",
                                                                                "quantity": 2}]
    assert result.turn.data["brain"] == "rules" and why in result.turn.data["fallback"]


def test_a_fallback_status_answer_still_says_the_model_was_unavailable(demo, no_memory_store):
    result = talk(open_session(demo["alice"]), demo["alice"], "進度", brain=RecordedModel(503).brain())
    assert result.reply.startswith("（語言模型暫時無法使用") and "您目前沒有進行中的申請" in result.reply


def test_the_llm_brain_is_used_only_when_base_url_and_model_are_set(settings):
    settings.LLM_BASE_URL, settings.LLM_MODEL, settings.LLM_API_KEY = "http://llm.test/v1", "", ""
    assert isinstance(default_brain(), RuleBrain)
    settings.LLM_MODEL = "qwen2.5"
    brain = default_brain()
    assert isinstance(brain, WithFallback) and brain.primary.model == "qwen2.5"
    assert str(brain.primary.client.base_url).startswith("http://llm.test/v1")

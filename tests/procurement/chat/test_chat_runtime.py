"""chat_turn, the runtime: who may post, what text is accepted, and how a proposal is checked
before anything happens (the model proposes, the runtime disposes)."""
from dataclasses import dataclass
from typing import ClassVar

import pytest

from agentstate.errors import DomainError, NotFound
from agentstate.models import Session, Task
from procurement.purchase import services
from procurement.chat.brain import Action, Attach, NoAction, Submit, UpdateDraft
from procurement.chat.runtime import CHAT_MAX_CHARS
from tests.procurement.chat.support import (ScriptedBrain, agent_turns, draft_of, no_memory_store,  # noqa: F401
                                            open_session, talk)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("no_memory_store")]

COMPLETE = {"department": "ENG", "lines": [{"description": "Laptop", "quantity": 2}], "justification": "QA"}


def test_only_the_owner_may_post__anyone_else_gets_404_and_nothing_is_stored(demo):
    session = open_session(demo["alice"])
    for intruder in (demo["erin"], demo["bob"], demo["carol"]):
        with pytest.raises(NotFound):
            talk(session, intruder, "I need 2 laptops for QA")
    assert session.turns.count() == 0 and not Task.objects.exists()


def test_a_locked_session_is_404_for_its_owner__an_admin_owner_may_still_post(demo):
    session = open_session(demo["alice"])
    Session.objects.filter(pk=session.pk).update(locked=True)
    session.refresh_from_db()
    with pytest.raises(NotFound):
        talk(session, demo["alice"], "hello")
    admin_session = Session.objects.create(owner=demo["carol"], locked=True)
    assert talk(admin_session, demo["carol"], "hello").action == "none"


@pytest.mark.parametrize("text", ["", "   ", "\n\t", None, 42])
def test_an_empty_message_is_refused_with_400(demo, text):
    session = open_session(demo["alice"])
    with pytest.raises(DomainError) as refused:
        talk(session, demo["alice"], text)
    assert refused.value.http_status == 400 and str(refused.value) == "Message is empty."
    assert session.turns.count() == 0


def test_a_message_over_the_limit_is_refused_naming_the_limit__at_the_limit_is_fine(demo):
    session = open_session(demo["alice"])
    with pytest.raises(DomainError) as refused:
        talk(session, demo["alice"], "x" * (CHAT_MAX_CHARS + 1))
    assert refused.value.http_status == 400 and f"limit is {CHAT_MAX_CHARS}" in str(refused.value)
    assert session.turns.count() == 0
    assert talk(session, demo["alice"], "y" * CHAT_MAX_CHARS).turn.seq == 2


def test_html_and_script_are_stored_as_the_text_written(demo):
    session = open_session(demo["alice"])
    text = '<script>alert("hi")</script> 2 laptops for <b>QA</b>'
    result = talk(session, demo["alice"], text)
    assert session.turns.get(seq=1).text == text
    assert draft_of(session)["justification"] == "<b>QA</b>" and result.action == "update_draft"


def test_turns_are_numbered_user_then_agent(demo):
    session = open_session(demo["alice"])
    talk(session, demo["alice"], "hello", "I need a keyboard")
    assert list(session.turns.values_list("seq", "role")) == [(1, "user"), (2, "agent"), (3, "user"), (4, "agent")]


# -- the runtime disposes ------------------------------------------------------------

def test_submit_without_a_confirmation_shows_the_draft_and_submits_nothing(demo):
    alice, session = demo["alice"], open_session(demo["alice"])
    brain = ScriptedBrain([UpdateDraft(fields=COMPLETE), NoAction(), Submit()])
    talk(session, alice, "2 laptops for QA", "hmm", "submit", brain=brain)
    last = agent_turns(session)[-1]
    assert last.data["did"] == "none" and last.data["outcome"] == "confirm"
    assert "Shall I submit it?" in last.text and Task.objects.get(pk=session.task_id).state == "draft"


def test_a_confirmation_binds_to_the_draft_version_it_showed(demo):
    alice, session = demo["alice"], open_session(demo["alice"])
    talk(session, alice, "2 laptops for QA")  # shown for confirmation at this version
    task = Task.objects.get(pk=session.task_id)
    services.request_draft_save(requester=alice, fields={"justification": "changed elsewhere"}, draft=task)
    result = talk(session, alice, "yes")
    assert result.action == "none" and Task.objects.get(pk=task.pk).state == "draft"


def test_submit_of_an_incomplete_draft_is_refused(demo):
    alice, session = demo["alice"], open_session(demo["alice"])
    brain = ScriptedBrain([UpdateDraft(fields={"lines": [{"description": "Laptop", "quantity": 2}]}), Submit()])
    result = talk(session, alice, "2 laptops", "submit", brain=brain)
    assert result.action == "none" and "missing: purpose" in result.reply
    assert Task.objects.get(pk=session.task_id).state == "draft"


def test_a_brain_cannot_attach_someone_elses_task(demo):
    erins = services.request_draft_save(requester=demo["erin"], fields={"department": "OPS"})
    session = open_session(demo["alice"])
    result = talk(session, demo["alice"], "continue", brain=ScriptedBrain([Attach(task_id=str(erins.pk))]))
    session.refresh_from_db()
    assert result.action == "none" and "No such task" in result.reply and session.task_id is None


@dataclass(frozen=True)
class Approve(Action):
    name: ClassVar[str] = "approve"


def test_an_action_that_does_not_exist_is_refused_plainly(demo):
    session = open_session(demo["alice"])
    result = talk(session, demo["alice"], "approve it", brain=ScriptedBrain([Approve()]))
    assert result.action == "none" and result.turn.data["outcome"] == "refused"
    assert "approvals are decided by the managers on the approval page" in result.reply


@pytest.mark.parametrize("fields, why", [
    ({"lines": [{"description": "Laptop", "quantity": -3}]}, "less than the minimum of 1"),
    ({"lines": [{"description": "Laptop", "quantity": 2}], "approved": True}, "'approved' was unexpected"),
    ({"lines": [{"description": "flux capacitor", "quantity": 1}]}, 'no quote for "flux capacitor"'),
    ({"department": "OPS", "lines": [{"description": "Laptop", "quantity": 1}]}, "not a member of Operations"),
    ({"needed_by": "2020-01-06", "lines": [{"description": "Laptop", "quantity": 1}]}, "has already passed"),
    ({"needed_by": "2030-02-30", "lines": [{"description": "Laptop", "quantity": 1}]}, "is not a day"),
    ({"needed_by": "next week", "lines": [{"description": "Laptop", "quantity": 1}]}, "does not match"),
])
def test_draft_fields_that_do_not_fit_are_refused_and_no_task_is_made(demo, fields, why):
    session = open_session(demo["alice"])
    result = talk(session, demo["alice"], "...", brain=ScriptedBrain([UpdateDraft(fields=fields)]))
    # The turn's record says why; she reads it too, unless it is the schema's own words.
    assert result.action == "none" and why in result.turn.data["reason"] and not Task.objects.exists()
    assert "Nothing was changed" in result.reply or "nothing was changed" in result.reply


def test_a_proposal_made_for_an_older_version_is_refused(demo):
    alice, session = demo["alice"], open_session(demo["alice"])
    talk(session, alice, "I need 2 laptops")

    class Meddling(ScriptedBrain):
        def propose(self, ctx):  # the draft moves on while the brain thinks
            services.request_draft_save(requester=alice, fields={"justification": "x"},
                                        draft=Task.objects.get(pk=session.task_id))
            return super().propose(ctx)

    result = talk(session, alice, "for QA", brain=Meddling([UpdateDraft(fields={"justification": "QA"})]))
    assert result.action == "none" and "changed while we were talking" in result.reply
    assert draft_of(session)["justification"] == "x"


def test_the_requesters_own_department_is_used_and_another_is_refused_in_words(demo):
    session = open_session(demo["alice"])
    result = talk(session, demo["alice"], "2 laptops for the OPS team")
    assert "not a member of Operations" in result.reply and draft_of(session)["department"] == "ENG"


def test_sessions_and_tasks_are_separate__two_sessions_reach_one_task(demo):
    alice = demo["alice"]
    first, second = open_session(alice), open_session(alice)
    talk(first, alice, "I need 2 laptops")
    result = talk(second, alice, "continue my last request")
    first.refresh_from_db()
    second.refresh_from_db()
    assert result.action == "attach" and first.task_id == second.task_id == result.task.pk
    assert "What are they for?" in result.reply  # the draft's next question, asked in the new session
    talk(second, alice, "for QA")
    assert draft_of(first)["justification"] == "QA"
    assert Task.objects.get(pk=first.task_id).sessions.count() == 2


@pytest.mark.parametrize("text, words", [("兩台筆電", "這個變更無法處理"), ("2 laptops", "I couldn't make that change")])
def test_an_action_that_breaks_its_schema_is_refused_in_her_words_with_the_schemas_kept_in_the_record(
        demo, text, words):
    session = open_session(demo["alice"])
    result = talk(session, demo["alice"], text, brain=ScriptedBrain([UpdateDraft(fields={"lines": []})]))
    assert result.action == "none" and words in result.reply and "schema" not in result.reply
    assert "does not fit its schema" in agent_turns(session)[-1].data["reason"]

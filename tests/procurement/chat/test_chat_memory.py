"""Memory through its seam: one-off instructions stay in the task, standing ones are
proposed (never applied until confirmed), entries used are cited by id and version."""
import json
import sys

import pytest

from agentstate.models import Task
from procurement.chat import memory_seam
from tests.procurement.chat.support import draft_of, fake_memory, no_memory_store, open_session, talk  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_one_off_instruction_stays_in_the_task_and_is_not_proposed_as_memory(demo, fake_memory):
    session = open_session(demo["alice"])
    talk(session, demo["alice"], "2 laptops for QA", "this time, deliver to the Hsinchu office")
    assert draft_of(session)["notes"] == ["deliver to the Hsinchu office"]
    assert fake_memory.proposed == []


def test_a_standing_instruction_is_proposed_and_the_draft_is_untouched(demo, fake_memory):
    alice, session = demo["alice"], open_session(demo["alice"])
    talk(session, alice, "2 laptops for QA")
    before = Task.objects.get(pk=draft_of(session) and session.task_id).version
    result = talk(session, alice, "以後都送到新竹辦公室")
    assert result.action == "propose_memory" and "確認後才會生效" in result.reply
    assert "「以後都送到新竹辦公室」" in result.reply, "the proposal is named by its words, not an id"
    [proposal] = fake_memory.proposed
    assert proposal["content"] == "以後都送到新竹辦公室" and proposal["kind"] == "preference"
    assert proposal["by"] == alice and proposal["scope"] == "user" and proposal["subject"] == "alice"
    assert proposal["turn"].seq == result.turn.seq - 1 and proposal["turn"].role == "user"
    assert Task.objects.get(pk=session.task_id).version == before and "notes" not in draft_of(session)
    session.refresh_from_db()
    assert "新竹" not in json.dumps(result.turn.data, ensure_ascii=False) and "新竹" not in session.summary, \
        "the words stay in the user's turn only"


def test_without_a_memory_store_a_standing_instruction_is_answered_honestly(demo, no_memory_store):
    result = talk(open_session(demo["alice"]), demo["alice"], "from now on, always deliver to Taipei")
    assert result.action == "none" and "can't save standing preferences yet" in result.reply


def test_a_budget_preference_fills_a_new_draft_and_the_turn_cites_it(demo, fake_memory):
    fake_memory.add(7, "Keep my requests under 50k", version=2)
    fake_memory.add(8, "Prefers Hsinchu deliveries", kind="fact")
    session = open_session(demo["alice"])
    result = talk(session, demo["alice"], "I need 2 monitors for the lab")
    assert draft_of(session)["budget"] == "50000.00"
    assert '"Keep my requests under 50k"' in result.reply, "she reads which preference, by its words"
    assert "memory entry" not in result.reply and " 7" not in result.reply, "never by its id"
    assert result.turn.data["memory_used"] == [{"id": 7, "version": 2}]


def test_the_budget_preference_is_named_by_its_words_in_chinese_too(demo, fake_memory):
    fake_memory.add("cf75f1c5-0000-0000-0000-000000000000", "預算請控制在五萬以內", version=1)
    session = open_session(demo["alice"])
    result = talk(session, demo["alice"], "實驗室需要 2 台螢幕")
    assert draft_of(session)["budget"] == "50000.00"
    assert "「預算請控制在五萬以內」" in result.reply and "cf75f1c5" not in result.reply


def test_memory_in_scope_is_in_the_context_but_cited_only_when_used(demo, fake_memory):
    fake_memory.add(8, "Prefers Hsinchu deliveries", kind="fact")
    result = talk(open_session(demo["alice"]), demo["alice"], "I need 2 monitors for the lab")
    assert result.turn.data["memory_used"] == []


def test_the_seam_without_a_store_retrieves_nothing_and_proposes_nothing(demo, monkeypatch):
    for name in memory_seam.MODULES:
        monkeypatch.setitem(sys.modules, name, None)  # as if the module did not exist
    assert memory_seam.retrieve(demo["alice"], task=None, turn=None) == []
    assert memory_seam.propose(demo["alice"], content="x", kind="preference", session=None, turn=None) is None


def test_the_seam_with_the_real_store__proposal_from_a_turn_then_used_once_confirmed(demo):
    services = pytest.importorskip("agentstate.memory.services")
    alice, session = demo["alice"], open_session(demo["alice"])
    result = talk(session, alice, "from now on keep my budget under 60k")
    assert result.action == "propose_memory", result.reply
    entry = services.MemoryEntry.objects.get(source_turn__session=session)
    assert entry.status == "proposed" and entry.scope == "user" and entry.subject == "alice"
    assert talk(open_session(alice), alice, "2 monitors for the lab").turn.data["memory_used"] == []

    services.memory_confirm(entry=entry, by=alice)
    fresh = open_session(alice)
    used = talk(fresh, alice, "2 monitors for the lab")
    assert draft_of(fresh)["budget"] == "60000.00"
    assert used.turn.data["memory_used"] == [{"id": str(entry.pk), "version": entry.version}]


@pytest.mark.parametrize("said", ["記住我習慣用27吋的螢幕", "請記得我都用 27 吋螢幕", "remember that I prefer 27-inch monitors"])
def test_asked_to_remember_it_proposes_memory_and_starts_no_purchase(demo, fake_memory, said):
    result = talk(open_session(demo["alice"]), demo["alice"], said)
    assert result.action == "propose_memory" and result.task is None
    assert [p["content"] for p in fake_memory.proposed] == [said]
    assert "申請" not in result.reply and "request" not in result.reply, "no request to say is unchanged"

"""The context a brain gets stays bounded however long the session grows; the running
summary is deterministic and short."""
import pytest

from agentstate.models import Turn
from procurement.chat.context import RECENT_TURNS, SUMMARY_CHARS, TURN_CHARS, build_context, summarize
from tests.procurement.chat.support import fake_memory, no_memory_store, open_session, talk  # noqa: F401

pytestmark = pytest.mark.django_db


def grow(session, turns: int, text="I need 2 laptops for the new hires in the Hsinchu office " * 40):
    start = session.turns.count()
    Turn.objects.bulk_create(Turn(session=session, seq=start + n, role=("user", "agent")[n % 2], text=text[:2000])
                             for n in range(1, turns + 1))


def context_at(session, user):
    last = Turn.objects.create(session=session, seq=session.turns.count() + 1, role="user", text="status")
    return build_context(session=session, user=user, message="status", user_turn=last)


def test_context_size_is_bounded_as_the_session_grows_to_500_turns(demo, fake_memory):
    for n in range(30):
        fake_memory.add(n, "A preference worth keeping. " * 30)
    alice, session = demo["alice"], open_session(demo["alice"])
    talk(session, alice, "I need 2 laptops")
    sizes = {}
    for total in (10, 100, 500):
        grow(session, total - session.turns.count())
        ctx = context_at(session, alice)
        sizes[total] = ctx.size()
        assert len(ctx.turns) == min(RECENT_TURNS, total) and all(len(text) <= TURN_CHARS for _, text in ctx.turns)
        assert len(ctx.memory) == 20 and len(ctx.summary) <= SUMMARY_CHARS
    assert sizes[500] <= sizes[100] * 1.05, sizes  # a full window of turns costs the same at 100 and 500
    assert sizes[500] < 20_000, sizes


def test_the_last_agent_turn_says_what_is_expected_even_after_many_turns(demo, no_memory_store):
    alice, session = demo["alice"], open_session(demo["alice"])
    grow(session, 300, text="hello")
    result = talk(session, alice, "I need 2 laptops")
    assert result.turn.data["expects"] == "justification"
    assert talk(session, alice, "onboarding").turn.data["expects"] == "confirm_submit"


def test_the_summary_keeps_the_task_line_and_drops_the_oldest_decisions(demo, no_memory_store):
    alice, session = demo["alice"], open_session(demo["alice"])
    talk(session, alice, "I need 2 laptops", "for QA")
    for n in range(80):
        talk(session, alice, f"change quantity to {n % 5 + 1}")
    session.refresh_from_db()
    head, *decisions = session.summary.splitlines()
    assert len(session.summary) <= SUMMARY_CHARS
    assert head.startswith("Request ") and "draft" in head and "for: QA" in head
    assert decisions[-1].endswith("update_draft done") and not any(d.startswith("turn 2:") for d in decisions)
    again = summarize(session.summary, None, seq=999, action="status", outcome="done")
    assert again.splitlines()[1:] == decisions, "a status question is not a decision"

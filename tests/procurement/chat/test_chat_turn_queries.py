"""A chat turn reads and writes in a bounded number of queries, flat however long the conversation
(0 or 500 turns before it, less the first turn's one language look-up) and however many requests the requester has (1 or 500): the context
holds the last turns, a summary and her newest requests, never all of them (DESIGN §2).

Counted: the statements a turn sends, less SAVEPOINT / RELEASE SAVEPOINT (a test runs inside a
transaction, so each atomic block inside the turn is a savepoint here and a BEGIN/COMMIT in
production, which Django does not capture either)."""
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from agentstate.models import Turn
from procurement.people.language import user_language_set
from tests.procurement.chat.support import open_session, talk
from tests.procurement.chat.test_chat_status_queries import requests_for

pytestmark = pytest.mark.django_db

STATUS, NEW = "where does my last request stand?", "I need 2 monitors for the new hires"


def said_before(session, n: int):
    """`n` turns already said in the session, hers and the agent's in turn, written straight."""
    Turn.objects.bulk_create(Turn(session=session, seq=i + 1, role=Turn.Role.USER if i % 2 == 0 else Turn.Role.AGENT,
                                  text=f"turn {i}", data={} if i % 2 == 0 else {"lang": "en", "action": "none"})
                             for i in range(n))


def queries_of_a_turn(user, text: str, *, before: int) -> tuple[int, str]:
    session = open_session(user)
    said_before(session, before)
    with CaptureQueriesContext(connection) as captured:
        reply = talk(session, user, text).reply
    sent = [q["sql"] for q in captured.captured_queries
            if not q["sql"].startswith(("SAVEPOINT", "RELEASE SAVEPOINT"))]
    return len(sent), reply


# Today's figures (a status answer 28, a new draft 32; 37 and more before the context read her
# requests once): the bound keeps them from growing. The target is 20; most of what is left is
# the memory store's retrieval (7) and the two turns' appends (2 each).
MAX_QUERIES = {STATUS: 28, NEW: 32}


@pytest.mark.parametrize("text", [STATUS, NEW])
def test_a_turn_costs_the_same_queries_after_0_or_500_turns_and_with_1_or_500_requests(demo, text):
    alice = demo["alice"]
    user_language_set(user=alice, language="en")
    requests_for(alice, 1)

    counts = {"0 turns, 1 request": queries_of_a_turn(alice, text, before=0),
              "500 turns, 1 request": queries_of_a_turn(alice, text, before=500)}
    requests_for(alice, 499, start=1)
    counts |= {"0 turns, 500 requests": queries_of_a_turn(alice, text, before=0),
               "500 turns, 500 requests": queries_of_a_turn(alice, text, before=500)}
    # A conversation's first turn also looks up whether she ever chose a language (once per
    # conversation, to keep the one she writes in); past it, the same count at 1 turn or 500.
    first, later = counts["0 turns, 1 request"][0], counts["500 turns, 1 request"][0]
    assert first == later + 1 and counts["0 turns, 500 requests"][0] == first, counts
    assert counts["500 turns, 500 requests"][0] == later, counts
    if connection.vendor == "postgresql":  # the deployment's database; SQLite reads her two lists' ids apart
        assert later <= MAX_QUERIES[text], counts
    replies = [reply for _n, reply in counts.values()]
    if text == STATUS:  # her newest request, however many she has
        assert "REQ-2026-00000" in replies[0] and "REQ-2026-00499" in replies[-1], replies
    else:
        assert all("onitor" in reply for reply in replies), replies

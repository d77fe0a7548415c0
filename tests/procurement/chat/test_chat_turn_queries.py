"""A chat turn reads and writes in a bounded number of queries, flat however long the conversation
(0 or 500 turns before it) and however many requests the requester has (1 or 500): the context
holds the last turns, a summary and her newest requests, never all of them (DESIGN §2), and each
thing is read once in the turn, never kept from one turn to the next.

Counted: the statements a turn sends, less SAVEPOINT / RELEASE SAVEPOINT (a test runs inside a
transaction, so each atomic block inside the turn is a savepoint here and a BEGIN/COMMIT in
production, which Django does not capture either). The work a submitted request queues runs after
the turn commits, in a worker: it is not the turn's."""
from datetime import timedelta

import pytest
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.test.utils import CaptureQueriesContext

from agentstate.models import Approval, Task, Turn
from procurement.models.receiving import GoodsReceipt
from procurement.people.language import user_language_set
from procurement.purchase import services
from tests.procurement.chat.support import open_session, talk
from tests.procurement.chat.test_chat_status_queries import requests_for

pytestmark = pytest.mark.django_db

STATUS, NEW, CONFIRM, ARRIVAL = "status", "new draft", "confirm", "arrival"
SAID = {STATUS: "where does my last request stand?", NEW: "I need 2 monitors for the new hires",
        CONFIRM: "yes", ARRIVAL: "the monitors arrived"}

# The bound is 20 for every turn (at most; 500 turns, 1 request: a status answer 13, a new
# draft 17, a delivery 18, a submitted draft 20). Once: a status answer 28, a new draft 32, a delivery
# 32, a submitted draft 52, then 30. A submit's 20 now: the conversation's request with her others
# (4: the tasks, their lines, receipts, approvals), her last turns, her turn (2: the session made
# active, the insert), the catalogue, memory, the session's lock, the draft under it (with what
# the engine's move needs, so the move reads it no more), request_submit's 6 (the department with
# her membership in one read, the number, the request, its lines, her view grant with its
# permission's id read inside the insert, the engine's move with its event and checkpoint), the
# agent's turn, the summary (from the lines just written, not read back), the task read once committed.
MAX_QUERIES = {STATUS: 20, NEW: 20, ARRIVAL: 20, CONFIRM: 20}


def said_before(session, n: int):
    """`n` turns already said in the session, hers and the agent's in turn, written straight."""
    Turn.objects.bulk_create(Turn(session=session, seq=i + 1, role=Turn.Role.USER if i % 2 == 0 else Turn.Role.AGENT,
                                  text=f"turn {i}", data={} if i % 2 == 0 else {"lang": "en", "action": "none"})
                             for i in range(n))


def counted(captured) -> int:
    return len([q for q in captured.captured_queries if not q["sql"].startswith(("SAVEPOINT", "RELEASE SAVEPOINT"))])


def queries_of_a_turn(user, kind: str, *, before: int) -> tuple[int, str]:
    session = open_session(user)
    said_before(session, before)
    if kind == CONFIRM:  # the draft she says yes to, shown in the turn before
        assert "Shall I submit it?" in talk(session, user, SAID[NEW]).reply
    with CaptureQueriesContext(connection) as captured:
        result = talk(session, user, SAID[kind])
    return counted(captured), result.reply


def older_requests(user, n: int):
    """`n` requests of hers waiting for approval, all older than the ones she has already."""
    before = Task.objects.filter(initiator=user).order_by("created_at").values_list("created_at", flat=True).first()
    requests_for(user, n, start=10000)
    if before is not None:
        Task.objects.filter(initiator=user, purchase_request__number__gte="REQ-2026-10000").update(
            created_at=before - timedelta(days=1))


def monitors_ordered(demo, django_capture_on_commit_callbacks):
    """Her three monitors, approved by bob and ordered (the agent's steps run as each commits)."""
    with django_capture_on_commit_callbacks(execute=True):
        task = services.request_submit(requester=demo["alice"], department="ENG",
                                       lines=[{"description": "Monitor", "quantity": 3}], justification="new hires")
    approval = Approval.objects.get(task=task, status="pending")
    with django_capture_on_commit_callbacks(execute=True):
        services.approval_decide(approval_id=approval.pk, user=demo["bob"], decision="approve",
                                 state_version=approval.state_version, scope_hash=approval.scope_hash)
    task.refresh_from_db()
    assert task.state == "externally_confirmed", list(task.events.values_list("event", "reason"))
    return task


@pytest.fixture
def ordered(request, demo):
    """For a delivery: her one request, ordered from the ERP simulator."""
    if request.node.callspec.params["kind"] != ARRIVAL:
        return None
    request.getfixturevalue("erp")
    request.getfixturevalue("eager")
    return monitors_ordered(demo, request.getfixturevalue("django_capture_on_commit_callbacks"))


@pytest.mark.parametrize("kind", [STATUS, NEW, CONFIRM, ARRIVAL])
def test_a_turn_costs_the_same_queries_after_0_or_500_turns_and_with_1_or_500_requests(demo, kind, ordered):
    alice = demo["alice"]
    user_language_set(user=alice, language="en")
    ContentType.objects.get_for_model(Task)  # Django keeps the content types for the process
    if ordered is None:
        requests_for(alice, 1)
    counts = {"0 turns, 1 request": queries_of_a_turn(alice, kind, before=0),
              "500 turns, 1 request": queries_of_a_turn(alice, kind, before=500)}
    older_requests(alice, 500 - Task.objects.filter(initiator=alice).exclude(state="draft").count())
    counts |= {"0 turns, 500 requests": queries_of_a_turn(alice, kind, before=0),
               "500 turns, 500 requests": queries_of_a_turn(alice, kind, before=500)}
    # A conversation's first turn also looks up whether she ever chose a language (once per
    # conversation, to keep the one she writes in); past it, the same count at 1 turn or 500.
    first, later = counts["0 turns, 1 request"][0], counts["500 turns, 1 request"][0]
    assert first == later + (0 if kind == CONFIRM else 1) and counts["0 turns, 500 requests"][0] == first, counts
    assert counts["500 turns, 500 requests"][0] == later, counts
    # The deployment's database; on SQLite the memory read and the engine's move take several statements each.
    if connection.vendor == "postgresql":
        assert max(n for n, _reply in counts.values()) <= MAX_QUERIES[kind], counts
    replies = [reply for _n, reply in counts.values()]
    if kind == STATUS:  # her newest request, however many she has
        assert all("REQ-2026-00000" in reply for reply in replies), replies
    elif kind == NEW:
        assert all("onitor" in reply and "Shall I submit it?" in reply for reply in replies), replies
    elif kind == CONFIRM:
        assert all("Submitted" in reply for reply in replies), replies
    else:  # what came, shown for her yes, on the ordered request however many others she has
        assert all(ordered.purchase_request.number in reply and "3 accepted" in reply and "Shall I record it?" in reply
                   for reply in replies), replies
        assert not GoodsReceipt.objects.exists()

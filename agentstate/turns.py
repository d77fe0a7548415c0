"""A conversation's turns: the one way to add one (DESIGN §4). Turns are append-only; each gets
the next `seq` under the session's row lock, so two posts never clash."""
from django.db import transaction
from django.db.models import Max, Subquery
from django.db.models.functions import Coalesce

from . import trace
from .models import Session, Turn


def turn_append(*, session_id, role: str, text: str, data: dict | None = None, locked: Session | None = None
                ) -> Turn:
    """Append a turn with the next `seq`. A turn makes an idle or closed conversation active again
    (agentstate.retention moves it on by time). The turn carries the current trace id.
    `locked`: the session's row, already locked by the caller's transaction (no second lock)."""
    with transaction.atomic():
        # The update takes the row's lock (two posts never get one seq) and makes the conversation
        # active in one statement; a caller that holds the lock already skips it unless it is needed.
        if locked is None or locked.status != Session.Status.ACTIVE:
            Session.objects.filter(pk=session_id).update(status=Session.Status.ACTIVE)
        # The next seq is counted in the INSERT itself (and returned with the row), after the lock
        # is held: one statement, not a read and a write.
        data = {**(data or {}), "trace_id": trace.current()}
        return Turn.objects.create(session_id=session_id, seq=next_seq(session_id), role=role, text=text, data=data)


def next_seq(session_id):
    """The session's next turn number, as an expression for the INSERT that takes it."""
    last = Turn.objects.filter(session_id=session_id).order_by().values("session_id").annotate(last=Max("seq"))
    return Coalesce(Subquery(last.values("last")[:1]), 0) + 1


def turns_redact(*, owner, text: str) -> int:
    """Erasure: every turn of `owner`'s sessions loses its words and data (the rows and their
    order stay, so a conversation's numbering is never reused). Returns how many."""
    return Turn.objects.filter(session__owner=owner).update(text=text, data={})

"""A conversation's turns: the one way to add one (DESIGN §4). Turns are append-only; each gets
the next `seq` under the session's row lock, so two posts never clash."""
from django.db import transaction
from django.db.models import Max

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
        last = Turn.objects.filter(session_id=session_id).aggregate(last=Max("seq"))["last"] or 0
        data = {**(data or {}), "trace_id": trace.current()}
        return Turn.objects.create(session_id=session_id, seq=last + 1, role=role, text=text, data=data)


def turns_redact(*, owner, text: str) -> int:
    """Erasure: every turn of `owner`'s sessions loses its words and data (the rows and their
    order stay, so a conversation's numbering is never reused). Returns how many."""
    return Turn.objects.filter(session__owner=owner).update(text=text, data={})

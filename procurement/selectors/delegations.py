"""Today's running delegations, read once per request (DESIGN §9).

The header asks "does this person stand in for someone today" on every page, a request's
"waiting for" names who stands in for its approvers, and the inbox says whom a delegate decides
for: all three read the same few rows, so `running_delegations` reads them once and keeps them
on the request (`ReadOncePerRequest`). Outside a request (workers, the shell) every call reads
anew. Saving or ending a delegation forgets what was read."""
from contextvars import ContextVar
from typing import NamedTuple
from procurement.models.policy import Delegation

_READS = ContextVar("procurement_request_reads", default=None)


class Running(NamedTuple):
    delegator_id: int
    delegator: str
    delegate_id: int
    delegate: str


class ReadOncePerRequest:
    """Middleware: `request.reads` holds what a page reads once however often it is asked."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request.reads = {}
        token = _READS.set(request.reads)
        try:
            return self.get_response(request)
        finally:
            _READS.reset(token)


def running_delegations() -> tuple[Running, ...]:
    """Every delegation in force today (both people active), by delegator then delegate name: one
    query per request."""
    reads = _READS.get()
    if reads is not None and "delegations" in reads:
        return reads["delegations"]
    rows = tuple(Running(*row) for row in Delegation.objects.active()
                 .order_by("delegator__username", "delegate__username")
                 .values_list("delegator_id", "delegator__username", "delegate_id", "delegate__username"))
    if reads is not None:
        reads["delegations"] = rows
    return rows


def forget_delegations():
    """A delegation was saved or ended: the next question reads them again."""
    reads = _READS.get()
    if reads is not None:
        reads.pop("delegations", None)


def stands_in_for(user) -> list[Running]:
    """The delegations naming `user` as the delegate today."""
    return [row for row in running_delegations() if row.delegate_id == user.pk]

"""What the receipt protocol needs from a client of another system (DESIGN §6)."""
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Protocol

_NOTHING_LEAVES: ContextVar[str] = ContextVar("nothing_leaves", default="")


@dataclass(frozen=True)
class Outcome:
    """A clear answer from the other system: it did it (ok) or it refused (not ok)."""

    ok: bool
    external_id: str = ""
    response: dict = field(default_factory=dict)
    reason: str = ""


class Indeterminate(Exception):
    """We cannot tell whether the call took effect: timeout, lost connection, 5xx."""


class ExternalClient(Protocol):
    def send(self, operation: str, key: str, request: dict) -> Outcome:
        """Perform `operation` under idempotency `key`. Raises Indeterminate when unsure."""

    def lookup(self, operation: str, key: str, request: dict) -> Outcome | None:
        """Find what `key` did. None means confirmed absent. Raises Indeterminate when unsure."""


class SendingForbidden(Exception):
    """A real client was asked to reach another system during a dry run."""


@contextmanager
def nothing_leaves(why: str):
    """Within this block every real client refuses to reach another system (a replay's dry run).
    Clients call `refuse_if_dry_run()` before each request; the recorders a dry run passes never do."""
    token = _NOTHING_LEAVES.set(why)
    try:
        yield
    finally:
        _NOTHING_LEAVES.reset(token)


def refuse_if_dry_run(where: str):
    why = _NOTHING_LEAVES.get()
    if why:
        raise SendingForbidden(f"{where} was not sent: {why}.")

"""What the receipt protocol needs from a client of another system (DESIGN §6)."""
from dataclasses import dataclass, field
from typing import Protocol


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

"""Refusals a person can act on. Each maps to one HTTP status; none writes anything.

A refusal carries what it says as a code and its parameters (`exc.said`, agentstate.said), which
pages, the API and the chat render in the reader's language; `str(exc)` stays English, for logs."""
from .said import Said, quote


class DomainError(Exception):
    http_status = 400
    # A stable name for the refusal, which the app translates; "" for refusals read by their class.
    code = ""


    # True when the message was written in the reader's language already (gettext at the raise).
    translated = False

    def __init__(self, message: str = "", *, said: Said | None = None, **extra):
        super().__init__(message or (str(said) if said is not None else ""))
        self.extra = extra
        self._said = said

    @property
    def said(self) -> Said:
        """What the refusal says: as given at the raise; else its class's code; else its message, quoted."""
        if self._said is not None:
            return self._said
        return Said(self.code) if self.code else quote(str(self))


class NotFound(DomainError):
    http_status = 404


class NotPermitted(DomainError):
    http_status = 403


class Conflict(DomainError):
    http_status = 409


class IllegalTransition(Conflict):
    """The event is not in the table for the task's state (or is unknown)."""


class StaleVersion(Conflict):
    """The task moved since the caller read it."""


class LeaseLost(Conflict):
    """The caller's lease was reclaimed; its result must be discarded."""


class GuardRefused(Conflict):
    """The table allows the event, but its guard says not now."""


class CheckpointNotFound(NotFound):
    """No checkpoint of that id (or version) belongs to this task."""
    code = "checkpoint_not_found"


class CheckpointRefused(Conflict):
    """A checkpoint failed verification and was not used (checkpoints.checkpoint_load)."""
    code = "checkpoint_refused"


class CheckpointTampered(CheckpointRefused):
    """A stored checkpoint text does not hash to its checksum, or says another version than its row."""
    code = "checkpoint_tampered"


class CheckpointForeignTenant(CheckpointRefused):
    """The checkpoint, or the task, belongs to another tenant than the caller's."""
    code = "checkpoint_foreign_tenant"


class CheckpointChainBroken(CheckpointRefused):
    """A delta checkpoint whose chain back to a full snapshot is incomplete."""
    code = "checkpoint_chain_broken"


class SchemaTooNew(Conflict):
    """The data was written by a newer schema version than this code knows; nothing was changed."""
    code = "schema_too_new"


def said(error: DomainError) -> DomainError:
    """Mark a refusal whose message is already in the reader's language."""
    error.translated = True
    return error

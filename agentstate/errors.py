"""Refusals a person can act on. Each maps to one HTTP status; none writes anything."""


class DomainError(Exception):
    http_status = 400

    def __init__(self, message: str, **extra):
        super().__init__(message)
        self.extra = extra


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

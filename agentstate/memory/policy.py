"""Who may read, propose, write and confirm memory: decided by the app, not the engine.

The app registers one policy object at startup (procurement does it in its AppConfig).
Until then a conservative default applies: people govern their own user-scope memory,
superusers govern everything, and no department exists."""
from contextlib import contextmanager
from typing import Protocol

from django.contrib.auth import get_user_model
from django.db.models import Q

from .models import Scope


class MemoryPolicy(Protocol):
    def subjects_for(self, user, task=None) -> list[tuple[str, str]]:
        """The (scope, subject) pairs in `user`'s context, most specific first; `task` narrows it."""

    def subject_exists(self, scope: str, subject: str) -> bool: ...

    def may_read(self, user, entry) -> bool: ...

    def readable(self, user) -> Q:
        """The same rule as may_read, as a filter on MemoryEntry, for lists and retrieval."""

    def may_propose(self, user, scope: str, subject: str) -> bool: ...

    def may_write(self, user, scope: str, subject: str) -> bool:
        """May write an active entry directly, without a separate confirmation."""

    def may_confirm(self, user, entry) -> bool:
        """May confirm, correct and delete this entry."""


def is_admin(user) -> bool:
    return bool(user is not None and user.is_active and user.is_superuser)


def username_of(user) -> str:
    return user.get_username()


class OwnPolicy:
    """The fallback: each person's own user-scope memory, an organisation scope run by superusers."""

    def subjects_for(self, user, task=None):
        return [(Scope.USER, username_of(user)), (Scope.ORGANISATION, "")]

    def subject_exists(self, scope, subject):
        if scope == Scope.USER:
            return get_user_model().objects.filter(**{get_user_model().USERNAME_FIELD: subject}).exists()
        return scope == Scope.ORGANISATION and subject == ""

    def may_read(self, user, entry):
        return is_admin(user) or (user.is_active and (entry.scope, entry.subject) in self.subjects_for(user))

    def readable(self, user):
        if is_admin(user):
            return Q()
        if not user.is_active:
            return Q(pk__in=[])
        return Q(scope=Scope.USER, subject=username_of(user)) | Q(scope=Scope.ORGANISATION)

    def may_propose(self, user, scope, subject):
        return user.is_active and (is_admin(user) or (scope, subject) in self.subjects_for(user))

    def may_write(self, user, scope, subject):
        return is_admin(user)

    def may_confirm(self, user, entry):
        return is_admin(user) or (user.is_active and entry.scope == Scope.USER
                                  and entry.subject == username_of(user))


_current: list[MemoryPolicy] = [OwnPolicy()]


def register(policy: MemoryPolicy) -> MemoryPolicy:
    """Install the app's policy; returns the one it replaces."""
    previous, _current[0] = _current[0], policy
    return previous


def current() -> MemoryPolicy:
    return _current[0]


@contextmanager
def using(policy: MemoryPolicy):
    """For tests and scripts: a policy for the duration of a block."""
    previous = register(policy)
    try:
        yield policy
    finally:
        register(previous)

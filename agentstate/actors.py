"""Who fires an event: a person (with roles granted by the runtime's checks) or the runtime."""
from dataclasses import dataclass, field

from .kinds import INITIATOR, RUNTIME


@dataclass(frozen=True)
class Actor:
    user: object = None          # a User, or None for the runtime
    worker: str = ""             # the runtime's worker name, for the event log
    roles: frozenset = field(default_factory=frozenset)

    @classmethod
    def runtime(cls, worker: str = RUNTIME) -> "Actor":
        return cls(worker=worker)

    @classmethod
    def of(cls, user_or_actor) -> "Actor":
        if isinstance(user_or_actor, Actor):
            return user_or_actor
        return cls(user=user_or_actor)

    @property
    def is_runtime(self) -> bool:
        return self.user is None

    @property
    def name(self) -> str:
        if self.is_runtime:
            return self.worker or RUNTIME
        return self.user.get_username()

    def may(self, allowed: tuple[str, ...], task) -> bool:
        for who in allowed:
            if who == RUNTIME and self.is_runtime:
                return True
            if self.is_runtime:
                continue
            if who == INITIATOR and task.initiator_id == self.user.pk:
                return True
            if who in self.roles:
                return True
            # Model-wide permission, or a django-guardian permission on this very task.
            if "." in who and (self.user.has_perm(who) or self.user.has_perm(who, task)):
                return True
        return False

"""Department roles, read from memberships (DESIGN §9): who decides for which departments."""
from django.db.models import Q

from ..models import Membership

MANAGER, DIRECTOR = Membership.Role.MANAGER, Membership.Role.DIRECTOR
DECIDING = (MANAGER, DIRECTOR)


def deciding_memberships(user):
    """The manager and director memberships of `user` (a director's may span every department)."""
    return Membership.objects.filter(user=user, role__in=DECIDING)


def is_decider(user) -> bool:
    """A manager, director or finance somewhere, or standing in for one today: the inbox is theirs."""
    from ..policy.models import Delegation

    return user.is_authenticated and (
        Membership.objects.filter(user=user, role__in=(*DECIDING, Membership.Role.FINANCE)).exists()
        or Delegation.objects.active().filter(delegate=user).exists())


def decides_for(user, department_code: str) -> bool:
    """A manager or director of that department, or a director of every department."""
    return deciding_memberships(user).filter(Q(department__code=department_code) | Q(department__isnull=True)).exists()

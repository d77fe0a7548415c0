"""Department roles, read from memberships (DESIGN §9): who decides for which departments."""
from django.db.models import Q

from procurement.models import Membership
from procurement.selectors.delegations import stands_in_for
from procurement.policy.rules import current_policy
from django.contrib.auth import get_user_model

MANAGER, DIRECTOR = Membership.Role.MANAGER, Membership.Role.DIRECTOR
DECIDING = (MANAGER, DIRECTOR)
APPROVER_ROLES = (*DECIDING, Membership.Role.FINANCE)


def deciding_memberships(user):
    """The manager and director memberships of `user` (a director's may span every department)."""
    return Membership.objects.filter(user=user, role__in=DECIDING)


def roles_held(user) -> set[str]:
    """The roles `user` holds anywhere, in one query (the page header asks several questions of them)."""
    if not user.is_authenticated:
        return set()
    return set(Membership.objects.filter(user=user).values_list("role", flat=True))


def is_decider(user, roles: set[str] | None = None) -> bool:
    """A manager, director or finance somewhere, or standing in for one today: the inbox is theirs.
    `roles`: roles_held(user), when already read."""
    if not user.is_authenticated:
        return False
    if roles is not None:
        return bool(roles & set(APPROVER_ROLES)) or bool(stands_in_for(user))
    return Membership.objects.filter(user=user, role__in=APPROVER_ROLES).exists() or bool(stands_in_for(user))


def uses_delegations(user) -> bool:
    """Is the delegation page one for `user`: an admin, anyone who could decide approvals (so could
    name someone to decide them), or someone standing in for one today. A requester has nothing to
    delegate: for her the page does not exist (404)."""
    return user.is_authenticated and (user.is_superuser or is_decider(user)
                                      or approvers().filter(pk=user.pk).exists())


def decides_for(user, department_code: str) -> bool:
    """A manager or director of that department, or a director of every department."""
    return deciding_memberships(user).filter(Q(department__code=department_code) | Q(department__isnull=True)).exists()


def approvers():
    """Active people who could decide an approval: those holding a manager, director or finance
    role, and those the current approval policy names in a step of their own. Only they may stand
    in for someone (a delegate decides that person's approvals)."""

    policy = current_policy()
    named = {step["user"] for rule in (policy.rules if policy else []) for step in rule["steps"] if step["user"]}
    return get_user_model().objects.filter(is_active=True).filter(
        Q(pk__in=Membership.objects.filter(role__in=APPROVER_ROLES).values("user_id")) | Q(username__in=named))

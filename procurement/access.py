"""Who may see and decide what, read from authoritative records: memberships and limits
(DESIGN §7, §9). Never from memory, never from a session id."""
from decimal import Decimal

from django.db.models import Q

from .models import Membership

MANAGER, DIRECTOR = Membership.Role.MANAGER, Membership.Role.DIRECTOR


def _deciders(department, role):
    rows = Membership.objects.filter(role=role, user__is_active=True).select_related("user")
    if role == DIRECTOR:
        return rows.filter(Q(department=department) | Q(department__isnull=True))
    return rows.filter(department=department)


def approval_route(*, department, total: Decimal, requester) -> dict | None:
    """Who may approve this total, frozen when the approval opens; None if above every limit.

    Within the department manager's limit: the managers (and directors, who may decide
    what a manager could). Above it: the directors whose limit covers it."""
    all_managers, all_directors = list(_deciders(department, MANAGER)), list(_deciders(department, DIRECTOR))
    managers = [m for m in all_managers if m.approval_limit >= total and m.user_id != requester.pk]
    directors = [m for m in all_directors if m.approval_limit >= total and m.user_id != requester.pk]
    if managers:
        rule = "manager"
    elif directors:
        rule = "director"
    else:
        return None
    people = managers + directors
    return {"rule": rule, "user_ids": sorted({m.user_id for m in people}),
            "usernames": sorted({m.user.username for m in people}), "total": str(total),
            "department": department.code,
            # The limits the total was measured against, frozen so the page can say why it came here.
            "manager_limit": str(max((m.approval_limit for m in all_managers), default=0)),
            "director_limit": str(max((m.approval_limit for m in all_directors), default=0))}


def may_decide(user, approval) -> str | None:
    """Re-checked at the click: still a manager or director of that department with the limit."""
    from .models import Department

    department = Department.objects.get(code=approval.task.tenant)
    total = Decimal(approval.scope["total"])
    if not user.is_active:
        return "Your account is inactive."
    for role in (MANAGER, DIRECTOR):
        if _deciders(department, role).filter(user=user, approval_limit__gte=total).exists():
            return None
    return f"Your approval limit does not cover NT${total:,.0f} for {department.code}."


def may_view(user, task) -> bool:
    if not user.is_authenticated or not user.is_active:
        return False
    if user.is_superuser or task.initiator_id == user.pk:
        return True
    return Membership.objects.filter(user=user, role__in=[MANAGER, DIRECTOR]).filter(
        Q(department__code=task.tenant) | Q(department__isnull=True)).exists()


def visible_tasks(user, queryset):
    """The tasks `user` may see: their own, their departments' as a decider, or all for admins."""
    if user.is_superuser:
        return queryset
    codes = Membership.objects.filter(user=user, role__in=[MANAGER, DIRECTOR])
    if codes.filter(department__isnull=True).exists():
        return queryset
    return queryset.filter(Q(initiator=user) | Q(tenant__in=codes.values("department__code")))


def reviewers_of(user):
    """The department codes whose tasks in review `user` may act on; None means every one."""
    if user.is_superuser:
        return None
    rows = Membership.objects.filter(user=user, user__is_active=True, role__in=[MANAGER, DIRECTOR])
    if rows.filter(department__isnull=True).exists():
        return None
    return set(rows.exclude(department__isnull=True).values_list("department__code", flat=True))


def may_review(user, task) -> bool:
    """May `user` act on the task from the work queue: admins and the department's managers."""
    if not (user.is_authenticated and user.is_active):
        return False
    codes = reviewers_of(user)
    return codes is None or task.tenant in codes

"""May this person decide the waiting step of this approval, and for whom (DESIGN §7, §9):
in person, when the frozen chain names them (or escalation offered it to them) and they still
hold the role; or as the delegate of someone it names, while the delegation runs. Delegation
does not chain: only the people the step names can be stood in for.

The engine (agentstate.approvals) calls `step_decider` under the task's row lock and refuses
anyone who already decided a step of the same chain, in person or through a delegate."""
from decimal import Decimal

from django.db.models import Q

from agentstate.said import Said, say

from procurement.models import Membership
from procurement.models.policy import Delegation
from procurement.policy.routing import step_roles
from procurement.selectors.delegations import stands_in_for


def step_people(approval) -> set:
    step = approval.chain[approval.step]
    return set(step.get("user_ids", [])) | set(step.get("offered_ids", []))


def step_decider(user, approval) -> tuple[Said | None, int | None]:
    if not user.is_active:
        return say("account_inactive"), None
    step, people = approval.chain[approval.step], step_people(approval)
    if user.pk in people:
        return _still_holds(user.pk, step, approval), None
    decided = _decided(approval)
    for delegator in sorted(delegators_of(user) & (people - decided)):
        if _still_holds(delegator, step, approval) is None:
            return None, delegator
    return say("not_on_step"), None


def may_decide_step(user, approval) -> bool:
    """For the page: would a click by `user` be taken now (before the version and scope checks)?"""
    if approval.status != "pending" or not approval.chain or approval.task.initiator_id == user.pk:
        return False
    refusal, behalf = step_decider(user, approval)
    if refusal:
        return False
    return not ({user.pk, behalf} - {None}) & _decided(approval)


def _decided(approval) -> set:
    """Everyone who decided a step of it, in person or through a delegate (reads a prefetch if any)."""
    return {pk for d in approval.decisions.all() for pk in (d.decided_by_id, d.on_behalf_of_id) if pk}


def delegators_of(user, on=None) -> set:
    """The people `user` stands in for on `on` (today: read once per request)."""
    if on is None:
        return {row.delegator_id for row in stands_in_for(user)}
    return set(Delegation.objects.active(on).filter(delegate=user).values_list("delegator_id", flat=True))


def _still_holds(person_id, step: dict, approval) -> Said | None:
    """Re-checked at the click: the person still holds a role the step asks for, in that department,
    with the limit when the step says so. An escalation's backup and a named person need only be active."""
    if person_id in step.get("offered_ids", []) or not step.get("role"):
        return None
    total, code = Decimal(approval.scope["total"]), approval.task.tenant
    limits = list(Membership.objects.filter(user_id=person_id, role__in=step_roles(step, approval.chain)).filter(
        Q(department__code=code) | Q(department__isnull=True)).values_list("approval_limit", flat=True))
    if not limits:
        return say("role_lost", role=step["role"], department=code)
    if step.get("within_limit") and max(limits) < total:
        return say("limit_too_low", total=str(total), department=code)
    return None

"""A request's approval chain from the current policy version: who decides each step, frozen
when the approval opens (DESIGN §7). Memberships and limits come from the database."""
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.db.models import Q

from ..models import Membership
from .rules import current_policy, rule_for

# A manager's step is open to the directors too (they may decide what a manager could), unless
# another step of the same chain asks for a director: then they decide there, once.
SUPERIOR = {"manager": "director"}


def policy_route(*, department, total: Decimal, requester, categories: set[str], supplier: str) -> dict | None:
    """The route for the approval (its frozen chain, the policy version and the rule), None when no
    rule matches or a step would have nobody to decide it (the request then goes to review).
    Without any policy version yet, the route is the built-in one (procurement.access)."""
    policy = current_policy()
    if policy is None:
        from ..selectors.approvals import approval_route

        return approval_route(department=department, total=total, requester=requester)
    rule = rule_for(policy, department=department.code, total=total, categories=categories, supplier=supplier)
    if rule is None or not rule["steps"]:
        return None
    roles = {step["role"] for step in rule["steps"]}
    chain = [_frozen(step, department, total, requester, roles) for step in rule["steps"]]
    if any(not step["user_ids"] for step in chain):
        return None
    first = chain[0]
    return {"rule": (first["role"] or "person") if len(chain) == 1 else "chain",
            "user_ids": first["user_ids"], "usernames": first["usernames"], "total": str(total),
            "department": department.code, "policy_version": policy.version, "policy_rule": rule["name"],
            "policy_amounts": {"amount_over": rule["amount_over"], "amount_up_to": rule["amount_up_to"]},
            "manager_limit": _top_limit(department, "manager"), "director_limit": _top_limit(department, "director"),
            "chain": chain}


def _frozen(step: dict, department, total: Decimal, requester, roles: set) -> dict:
    people = sorted(((m.user_id, m.user.username) for m in _deciders(step, department, total, roles)
                     if m.user_id != requester.pk), key=lambda p: p[1])
    if step["user"]:
        people = [(u.pk, u.username) for u in get_user_model().objects.filter(username=step["user"], is_active=True)
                  .exclude(pk=requester.pk)]
    people = list(dict.fromkeys(people))
    return step | {"user_ids": [pk for pk, _ in people], "usernames": [name for _, name in people]}


def _deciders(step: dict, department, total: Decimal, roles: set):
    if not step["role"]:
        return []
    wanted = [step["role"]]
    if step["role"] in SUPERIOR and SUPERIOR[step["role"]] not in roles:
        wanted.append(SUPERIOR[step["role"]])
    rows = Membership.objects.filter(role__in=wanted, user__is_active=True).filter(
        Q(department=department) | Q(department__isnull=True)).select_related("user")
    if step.get("within_limit"):
        rows = rows.filter(approval_limit__gte=total)
    return list(rows)


def _top_limit(department, role: str) -> str:
    limits = Membership.objects.filter(role=role).filter(Q(department=department) | Q(department__isnull=True))
    return str(max(limits.values_list("approval_limit", flat=True), default=0))


def step_roles(step: dict, chain: list) -> list[str]:
    """The roles whose holders may decide `step` (its own, and a superior's when allowed)."""
    roles = {s.get("role") for s in chain}
    if not step.get("role"):
        return []
    wanted = [step["role"]]
    if step["role"] in SUPERIOR and SUPERIOR[step["role"]] not in roles:
        wanted.append(SUPERIOR[step["role"]])
    return wanted

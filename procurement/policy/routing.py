"""A request's approval chain from the current policy version: who decides each step, frozen
when the approval opens (DESIGN §7). Memberships and limits come from the database.

Nobody decides their own request. A step only the requester could decide (a manager's own
request at her manager step) goes to the next level up (LEVELS): to the directors when the chain
has no director step (`handed_to`); else to the first level above that the chain does not ask
for yet, added as a step (`in_place_of`); else it is left out and a later, higher step covers it
(`covers`). When nobody above can, the request goes to review, saying so."""
from dataclasses import dataclass
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.db.models import Q

from agentstate.said import Said, of_event, say

from procurement.models import Membership
from procurement.policy.rules import current_policy, rule_for

# A manager's step is open to the directors too (they may decide what a manager could), unless
# another step of the same chain asks for a director: then they decide there, once.
SUPERIOR = {"manager": "director"}
# The ladder of approval levels, lowest first, as the demo policy climbs it: a step only the
# requester could decide goes to the next level up.
LEVELS = ("manager", "director", "finance")


@dataclass(frozen=True)
class OnlyTheRequester:
    """No route: step `number` (of the policy's chain) could be decided by the requester alone."""
    number: int
    requester: str

    CODE = "only_the_requester_could_decide"

    @classmethod
    def said(cls, event) -> bool:
        """Whether an event's reason is this one's."""
        said = of_event(event)
        return said is not None and said.code == cls.CODE

    @property
    def reason(self) -> Said:
        # A code: procurement.words gives it in the reader's language, its English in the event log.
        return say(self.CODE, requester=self.requester, step=self.number)


def policy_route(*, department, total: Decimal, requester, categories: set[str],
                 supplier: str) -> dict | OnlyTheRequester | None:
    """The route for the approval (its frozen chain, the policy version and the rule), None when no
    rule matches or a step would have nobody to decide it, OnlyTheRequester when only the requester
    could decide a step and nobody above her can (the request then goes to review).
    Without any policy version yet, the route is the built-in one (procurement.people.access)."""
    policy = current_policy()
    if policy is None:
        return approval_route(department=department, total=total, requester=requester)
    rule = rule_for(policy, department=department.code, total=total, categories=categories, supplier=supplier)
    if rule is None or not rule["steps"]:
        return None
    roles = {step["role"] for step in rule["steps"]}
    chain = [_frozen(step, department, total, requester, roles) for step in rule["steps"]]
    chain = _without_own_steps(chain, requester, department)
    if not isinstance(chain, list):
        return chain
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
    rows = _deciders(step, department, total, roles)
    candidates = sorted(((m.user_id, m.user.username) for m in rows), key=lambda p: p[1])
    if step["user"]:
        candidates = [(u.pk, u.username) for u in get_user_model().objects.filter(username=step["user"],
                                                                                   is_active=True)]
    people = list(dict.fromkeys(p for p in candidates if p[0] != requester.pk))
    frozen = step | {"user_ids": [pk for pk, _ in people], "usernames": [name for _, name in people]}
    if len(people) < len(dict.fromkeys(candidates)):
        frozen["without_requester"] = requester.get_username()
        others = {m.role for m in rows if m.user_id != requester.pk}
        if not step["user"] and others == {SUPERIOR.get(step["role"])}:
            frozen["handed_to"] = SUPERIOR[step["role"]]  # only the next level up is left to decide it
    return frozen


def _without_own_steps(chain: list[dict], requester, department) -> list[dict] | OnlyTheRequester:
    """The chain with each step only the requester could decide handed to the next level up
    (LEVELS). The first level above hers that no step of the chain asks for yet, and that someone
    else holds, takes her step, in ladder order, so her own request gets as many approvers besides
    her as anyone's: bob's own NT$150,000 goes to the director, then finance. With every level above
    hers already on the chain, her step is left out and the next of those steps covers it. With no
    level above hers on the chain or free: OnlyTheRequester.
    (A step that could take the next level's holders already lists them: see `_deciders`.)"""
    name = requester.get_username()
    kept = list(chain)
    for number, step in enumerate(chain, start=1):
        if step["user_ids"] or not step.get("without_requester"):
            continue
        kept.remove(step)
        above = LEVELS[LEVELS.index(step["role"]) + 1:] if step["role"] in LEVELS else ()
        asked = {s["role"] for s in kept}
        extra = None
        for level in (level for level in above if level not in asked):
            extra = _level_step(level, department, requester)
            if extra is not None:
                break
        if extra is not None:
            extra["in_place_of"] = {"role": step["role"], "requester": name}
            kept.append(extra)
            kept.sort(key=lambda s: LEVELS.index(s["role"]) if s["role"] in LEVELS else len(LEVELS))
            continue
        later = next((s for s in chain[number:] if s["role"] in above), None)
        if later is None:
            return OnlyTheRequester(number=number, requester=name)
        later.setdefault("covers", []).append({"role": step["role"], "requester": name})
    return kept


def _level_step(role: str, department, requester) -> dict | None:
    """A step for the holders of `role` in the department (or all departments), the requester aside."""
    rows = (Membership.objects.filter(role=role, user__is_active=True).exclude(user=requester)
            .filter(Q(department=department) | Q(department__isnull=True)).select_related("user"))
    people = sorted({(m.user_id, m.user.username) for m in rows}, key=lambda p: p[1])
    if not people:
        return None
    return {"role": role, "user": "", "mode": "any", "within_limit": False, "backup_role": "",
            "escalate_after_seconds": None, "user_ids": [pk for pk, _ in people],
            "usernames": [n for _, n in people]}


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


def one_level_higher(route: dict, *, department, requester) -> dict:
    """The route with the next level of the ladder (LEVELS) above its highest step added as a last
    step: a price the requester gave, past the sheet's tolerance, is decided one level higher too.
    Unchanged when no level above is held by anyone else."""
    chain = list(route.get("chain") or [])
    if not chain:
        return route
    held = [LEVELS.index(s["role"]) for s in chain if s.get("role") in LEVELS]
    above = LEVELS[max(held) + 1:] if held else LEVELS
    extra = next((step for step in (_level_step(level, department, requester) for level in above
                                    if level not in {s.get("role") for s in chain}) if step is not None), None)
    if extra is None:
        return route
    extra["for_requester_prices"] = True
    # A step open to the superiors because no step asked for them (SUPERIOR) is theirs no longer:
    # they decide at their own step, once.
    chain = [_without_superiors(step, extra) for step in chain] + [extra]
    first = chain[0]
    return route | {"rule": "chain", "chain": chain, "user_ids": first["user_ids"], "usernames": first["usernames"]}


def _without_superiors(step: dict, extra: dict) -> dict:
    if SUPERIOR.get(step.get("role")) != extra["role"]:
        return step
    kept = [(pk, name) for pk, name in zip(step["user_ids"], step["usernames"]) if pk not in extra["user_ids"]]
    if not kept:
        return step
    return step | {"user_ids": [pk for pk, _ in kept], "usernames": [name for _, name in kept]}


# -- the built-in route, before any policy version is published ------------------------------

def role_holders(department, role):
    """The active members of `department` in `role`; directors of every department count for any."""
    rows = Membership.objects.filter(role=role, user__is_active=True).select_related("user")
    if role == Membership.Role.DIRECTOR:
        return rows.filter(Q(department=department) | Q(department__isnull=True))
    return rows.filter(department=department)


def approval_route(*, department, total: Decimal, requester) -> dict | None:
    """Who may approve this total, frozen when the approval opens; None if above every limit.

    Within the department manager's limit: the managers (and directors, who may decide
    what a manager could). Above it: the directors whose limit covers it."""
    all_managers, all_directors = list(role_holders(department, Membership.Role.MANAGER)), list(role_holders(department, Membership.Role.DIRECTOR))
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

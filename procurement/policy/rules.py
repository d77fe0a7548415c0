"""The policy's rules: checked as a whole before a change is saved, frozen into versions, and
matched against a request to give its chain of steps.

Amounts are tax-inclusive TWD. A rule covers totals above `amount_over` (exclusive; none: from
0) up to `amount_up_to` (inclusive; none: no end). Rules with the same department, category
and supplier (each possibly "any") form one ladder: its rungs may not overlap and may leave no
gap between 0 and the top; a total above the top rung matches nothing, which sends the request
to review. Of the rules matching a request, the most specific one applies."""
from dataclasses import dataclass
from decimal import Decimal

from django.db import transaction
from django.utils.translation import gettext as _

from ..money import ntd
from .models import ApprovalPolicy, PolicyRule


@dataclass(frozen=True)
class Collision:
    first: str
    second: str
    kind: str  # "overlap" or "gap"

    def message(self) -> str:
        if self.kind == "overlap":
            return _("Rules “%(first)s” and “%(second)s” overlap: they match the same requests for the same "
                     "amounts.") % {"first": self.first, "second": self.second}
        if self.kind == "start":
            return _("Rule “%(first)s” leaves a gap: amounts from NT$0 up to where it starts match no rule.") % {
                "first": self.first}
        return _("Rules “%(first)s” and “%(second)s” leave a gap: amounts between them match no rule.") % {
            "first": self.first, "second": self.second}


def rule_json(rule: PolicyRule, steps=None) -> dict:
    steps = list(rule.steps.all()) if steps is None else steps
    return {
        "name": rule.name, "department": rule.department.code if rule.department_id else "",
        "category": rule.category, "supplier": rule.supplier.name if rule.supplier_id else "",
        "amount_over": _text(rule.amount_over), "amount_up_to": _text(rule.amount_up_to),
        "steps": [step_json(step) for step in sorted(steps, key=lambda s: s.position)],
    }


def step_json(step) -> dict:
    return {"role": step.role, "user": step.user.get_username() if step.user_id else "", "mode": step.mode,
            "within_limit": step.within_limit, "backup_role": step.backup_role,
            "escalate_after_seconds": int(step.escalate_after.total_seconds()) if step.escalate_after else None}


def _text(amount) -> str | None:
    return None if amount is None else f"{Decimal(amount):.2f}"


def collisions(rules: list[dict]) -> list[Collision]:
    """Overlaps and gaps among rules (as rule_json gives them), each naming the two rules."""
    ladders: dict[tuple, list[dict]] = {}
    for rule in rules:
        ladders.setdefault((rule["department"], rule["category"], rule["supplier"]), []).append(rule)
    found = []
    for ladder in ladders.values():
        ladder.sort(key=lambda r: _low(r))
        if _low(ladder[0]) > 0:
            found.append(Collision(ladder[0]["name"], "", "start"))
        for lower, upper in zip(ladder, ladder[1:]):
            top = _high(lower)
            if top is None or _low(upper) < top:
                found.append(Collision(lower["name"], upper["name"], "overlap"))
            elif _low(upper) > top:
                found.append(Collision(lower["name"], upper["name"], "gap"))
    return found


def _low(rule: dict) -> Decimal:
    return Decimal(rule["amount_over"] or 0)


def _high(rule: dict) -> Decimal | None:
    return None if rule["amount_up_to"] is None else Decimal(rule["amount_up_to"])


def current_rules() -> list[dict]:
    rules = PolicyRule.objects.select_related("department", "supplier").prefetch_related("steps__user")
    return [rule_json(rule) for rule in rules]


def policy_publish(*, by=None) -> ApprovalPolicy:
    """Freeze the rules as they stand into a new version (the old ones stay, for the approvals
    that name them). Nothing is written when the rules are what the newest version holds."""
    rules = current_rules()
    with transaction.atomic():
        newest = ApprovalPolicy.objects.select_for_update().order_by("-version").first()
        if newest is not None and newest.rules == rules:
            return newest
        return ApprovalPolicy.objects.create(version=(newest.version + 1) if newest else 1, rules=rules,
                                             created_by=by)


def current_policy() -> ApprovalPolicy | None:
    return ApprovalPolicy.objects.order_by("-version").first()


def rule_for(policy: ApprovalPolicy, *, department: str, total: Decimal, categories: set[str],
             supplier: str) -> dict | None:
    """The most specific rule of `policy` matching the request; None when none does."""
    matching = [rule for rule in policy.rules
                if rule["department"] in ("", department) and (not rule["category"] or rule["category"] in categories)
                and rule["supplier"] in ("", supplier) and _low(rule) < total
                and (_high(rule) is None or total <= _high(rule))]
    return max(matching, key=_specificity, default=None)


def _specificity(rule: dict) -> tuple:
    return (bool(rule["supplier"]), bool(rule["category"]), bool(rule["department"]))


def amount_words(rule: dict) -> str:
    low, high = rule["amount_over"], rule["amount_up_to"]
    if high is None:
        return _("over %(low)s") % {"low": ntd(Decimal(low or 0))}
    if not low:
        return _("up to %(high)s") % {"high": ntd(Decimal(high))}
    return _("over %(low)s, up to %(high)s") % {"low": ntd(Decimal(low)), "high": ntd(Decimal(high))}

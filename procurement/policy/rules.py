"""The policy's rules: checked as a whole before a change is saved or rules are deleted, frozen
into versions, and matched against a request to give its chain of steps.

Amounts are tax-inclusive TWD. A rule covers totals above `amount_over` (exclusive; none: from
0) up to `amount_up_to` (inclusive; none: no end). Rules with the same department, category
and supplier (each possibly "any") form one ladder: its rungs may not overlap and may leave no
gap between 0 and the top; a total above the top rung matches nothing, which sends the request
to review. Of the rules matching a request, the most specific one applies."""
from dataclasses import dataclass
from decimal import Decimal

from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from procurement.words.money import ntd
from procurement.models.policy import ApprovalPolicy, PolicyRule


@dataclass(frozen=True)
class Collision:
    first: str
    second: str
    kind: str  # "overlap", "gap" or "start" (a gap from NT$0)
    # The amounts no rule covers, for a gap: above `gap_over` (none: from 0) up to `gap_up_to`.
    gap_over: Decimal | None = None
    gap_up_to: Decimal | None = None

    def message(self) -> str:
        if self.kind == "overlap":
            return _("Rules “%(first)s” and “%(second)s” overlap: they match the same requests for the same "
                     "amounts.") % {"first": self.first, "second": self.second}
        if self.kind == "start":
            return _("Rule “%(first)s” leaves a gap: amounts from NT$0 up to where it starts match no rule.") % {
                "first": self.first}
        return _("Rules “%(first)s” and “%(second)s” leave a gap: amounts between them match no rule.") % {
            "first": self.first, "second": self.second}

    def gap_words(self) -> str:
        """"Amounts over NT$100,000 up to NT$1,000,000 …", for a gap; empty for an overlap."""
        if self.kind == "overlap":
            return ""
        if self.gap_over is None:
            return _("Amounts up to %(high)s would match no rule: new requests for them would go to review.") % {
                "high": ntd(self.gap_up_to)}
        return _("Amounts over %(low)s, up to %(high)s would match no rule: new requests for them would go to "
                 "review.") % {"low": ntd(self.gap_over), "high": ntd(self.gap_up_to)}


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
    found = []
    for ladder in _ladders(rules).values():
        if _low(ladder[0]) > 0:
            found.append(Collision(ladder[0]["name"], "", "start", gap_up_to=_low(ladder[0])))
        for lower, upper in zip(ladder, ladder[1:]):
            top = _high(lower)
            if top is None or _low(upper) < top:
                found.append(Collision(lower["name"], upper["name"], "overlap"))
            elif _low(upper) > top:
                found.append(Collision(lower["name"], upper["name"], "gap", gap_over=top, gap_up_to=_low(upper)))
    return found


def _ladders(rules: list[dict]) -> dict[tuple, list[dict]]:
    """Rules with the same department, category and supplier, each ladder from its lowest rung up."""
    ladders: dict[tuple, list[dict]] = {}
    for rule in rules:
        ladders.setdefault((rule["department"], rule["category"], rule["supplier"]), []).append(rule)
    for ladder in ladders.values():
        ladder.sort(key=_low)
    return ladders


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


@dataclass(frozen=True)
class Removal:
    """What deleting some rules would do to the policy: the overlaps and gaps it would open among the
    rules left (then it is refused), the ladders whose top would come down (allowed: above the new
    top, requests go to review, as they already do above any ladder's top) and whether no rule is left."""
    names: tuple[str, ...]
    collisions: tuple[Collision, ...]
    lowered: tuple[tuple[str, Decimal], ...]  # (the ladder's new top rule, the amount it stops at)
    nothing_left: bool

    def refused_words(self) -> str:
        names = pgettext("list separator", ", ").join(pgettext("quoted name", "“%(name)s”") % {"name": name}
                                                      for name in self.names)
        return _("Deleting %(rules)s is refused: the rules left would not fit together.") % {"rules": names}

    def refusals(self) -> list[str]:
        return [sentences(c.message(), c.gap_words()) for c in self.collisions]

    def advice(self) -> str:
        return _("Nothing was deleted and the approval policy is unchanged. Change a neighbouring rule's amounts "
                 "first so that the rules left cover every amount once, or delete the whole ladder at once.")

    def warnings(self) -> list[str]:
        said = [_("With this deletion, “%(rule)s” is the top of its ladder and stops at %(amount)s: new requests "
                  "above %(amount)s match no rule of that ladder and go to review, unless a broader rule "
                  "covers them.") % {"rule": name, "amount": ntd(amount)} for name, amount in self.lowered]
        if self.nothing_left:
            said.append(_("With this deletion no approval rule is left: every new request goes to review."))
        return said


class RuleDeletionRefused(Exception):
    def __init__(self, removal: Removal):
        self.removal = removal
        super().__init__(sentences(removal.refused_words(), *removal.refusals()))


def sentences(*said: str) -> str:
    """Sentences one after the other, as the language writes them (English with a space, Chinese without)."""
    text, *rest = [sentence for sentence in said if sentence] or [""]
    for sentence in rest:
        text = pgettext("two sentences", "%(first)s %(second)s") % {"first": text, "second": sentence}
    return text


def removal_check(names: set[str]) -> Removal:
    """What deleting the rules named would do, checked by `collisions` on the rules left. Only
    collisions the deletion opens count: the rules are checked as a whole when saved."""
    rules = current_rules()
    left = [rule for rule in rules if rule["name"] not in names]
    before = set(collisions(rules))
    tops_before = {key: _top(ladder) for key, ladder in _ladders(rules).items()}
    lowered = []
    for key, ladder in _ladders(left).items():
        name, top = _top(ladder)
        old_top = tops_before[key][1]
        if top is not None and (old_top is None or top < old_top):
            lowered.append((name, top))
    return Removal(names=tuple(sorted(r["name"] for r in rules if r["name"] in names)),
                   collisions=tuple(c for c in collisions(left) if c not in before),
                   lowered=tuple(lowered), nothing_left=bool(rules) and not left)


def _top(ladder: list[dict]) -> tuple[str, Decimal | None]:
    """The ladder's highest rung and where it stops (None: no end)."""
    rule = max(ladder, key=lambda r: (_high(r) is None, _high(r) or 0))
    return rule["name"], _high(rule)


def policy_rules_delete(*, names: set[str], by=None) -> tuple[ApprovalPolicy, Removal]:
    """Delete the rules named and publish the policy left, unless the rules left would overlap or
    leave a gap: then nothing is deleted and RuleDeletionRefused says why. The check is made again
    here, with the rules' rows locked, so what is deleted is what was checked, whatever the
    confirmation page showed earlier."""
    with transaction.atomic():
        list(PolicyRule.objects.select_for_update().order_by("pk").values_list("pk", flat=True))
        removal = removal_check(names)
        if removal.collisions:
            raise RuleDeletionRefused(removal)
        PolicyRule.objects.filter(name__in=names).delete()
        return policy_publish(by=by), removal


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

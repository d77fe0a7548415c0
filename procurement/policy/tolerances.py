"""Match tolerances as versioned policy data (DESIGN §16): the rules admins edit are frozen
into versions, and the tolerances in force are frozen onto a PO when it is issued
(`task.data["purchase_order"]["tolerances"]`), per PO line, so a later edit changes no PO
already out. The most specific rule wins for each check: supplier and category, then supplier,
then category, then any; with no rule, DESIGN's default (procurement.invoicing.match)."""
from decimal import Decimal

from django.db import transaction

from agentstate.models import Approval

from procurement.models.tolerance import TolerancePolicy, ToleranceRule

CHECKS = ("quantity", "price", "tax", "total")
# DESIGN §16: no quantity tolerance, price within 1% or NT$10, tax within NT$1; the header against
# its lines within NT$1 (a cent's rounding per line).
DEFAULT = {"quantity": {"amount": None, "percent": None, "combine": "or"},
           "price": {"amount": "10.00", "percent": "1.00", "combine": "or"},
           "tax": {"amount": "1.00", "percent": None, "combine": "or"},
           "total": {"amount": "1.00", "percent": None, "combine": "or"}}


def _text(amount) -> str | None:
    return None if amount is None else f"{Decimal(amount):.2f}"


def rule_json(rule: ToleranceRule) -> dict:
    return {"name": rule.name, "supplier": rule.supplier.name if rule.supplier_id else "", "category": rule.category,
            "check": rule.figure, "amount": _text(rule.amount), "percent": _text(rule.percent),
            "combine": rule.combine}


def current_rules() -> list[dict]:
    return [rule_json(rule) for rule in ToleranceRule.objects.select_related("supplier").order_by("name")]


def tolerances_publish(*, by=None) -> TolerancePolicy:
    """Freeze the rules as they stand into a new version; nothing is written when they are what the
    newest version holds."""
    rules = current_rules()
    with transaction.atomic():
        newest = TolerancePolicy.objects.select_for_update().order_by("-version").first()
        if newest is not None and newest.rules == rules:
            return newest
        return TolerancePolicy.objects.create(version=(newest.version + 1) if newest else 1, rules=rules,
                                              created_by=by)


def current_tolerances() -> TolerancePolicy | None:
    return TolerancePolicy.objects.order_by("-version").first()


def _specificity(rule: dict) -> tuple:
    return (bool(rule["supplier"]), bool(rule["category"]))


def tolerances_for(rules: list[dict], *, supplier: str, category: str) -> dict:
    """{check: {"amount", "percent", "combine"}} for one PO line, from a version's rules."""
    found = dict(DEFAULT)
    for check in CHECKS:
        matching = [rule for rule in rules if rule["check"] == check and rule["supplier"] in ("", supplier)
                    and rule["category"] in ("", category)]
        best = max(matching, key=_specificity, default=None)
        if best is not None:
            found[check] = {"amount": best["amount"], "percent": best["percent"], "combine": best["combine"]}
    return found


def tolerances_frozen(scope: dict) -> dict:
    """What a PO issued from this approved scope is matched under: the version and, per line, the
    tolerances of its supplier and category."""
    policy = current_tolerances()
    rules = policy.rules if policy else []
    supplier = (scope.get("supplier") or {}).get("name", "")
    return {"version": policy.version if policy else None,
            "lines": [tolerances_for(rules, supplier=supplier, category=line.get("item") or line["description"])
                      for line in scope.get("lines") or []]}


def purchase_order_record(task, external_id: str) -> dict:
    """The PO as the task records it when the ERP confirms it: its id and the tolerances it is out
    under, from the approved scope it was issued from."""
    approval = (Approval.objects.filter(task=task, status=Approval.Status.APPROVED)
                .order_by("-decided_at").first())
    return {"id": external_id, "tolerances": tolerances_frozen(approval.scope if approval else {})}

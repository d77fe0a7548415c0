"""Prices the requester gave (segregation of duties: the first thing an auditor checks). Every
row of a quote sheet is a price the requester supplied; a row whose price she corrected in her
answer is one she changed. When such a row wins the award, the approval's scope names it: who
gave the price, the catalogue median beside it and the difference, so the approver sees it
before clicking. A price past the sheet's tolerance also sends the request one level higher
(procurement.purchase.steps.route)."""
from decimal import ROUND_HALF_UP, Decimal

from django.utils import timezone

from procurement.models import Quote
from procurement.purchase import pricing

SUPPLIED, CHANGED = "supplied", "changed"


def given_prices(task, award: dict) -> list[dict]:
    """The awarded lines whose price came from the requester's sheet, each {item, description,
    unit_price, given_by, how, sheet_unit_price, median, difference, percent, past_tolerance}."""
    sheet = task.data.get("quote_sheet") or {}
    rows = [r for r in sheet.get("rows", []) if r["status"] != "dropped" and r.get("catalogue_item")
            and r.get("listed_supplier") == award.get("supplier")]
    if not rows:
        return []
    tolerance = sheet.get("tolerance_percent", 30)
    medians = pricing.medians(Quote.objects.filter(valid_until__gte=timezone.localdate(), currency="TWD",
                                                  item__in=[r["catalogue_item"] for r in rows])
                             .values("item", "unit_price"))
    given = []
    for line in award.get("lines", []):
        row = next((r for r in rows if r["catalogue_item"] == line["item"]), None)
        if row is None or Decimal(row["unit_price"]) != Decimal(line["unit_price"]):
            continue
        price, median = Decimal(line["unit_price"]), medians.get(line["item"])
        entry = {"item": line["item"], "description": line["description"], "unit_price": str(price),
                 "given_by": task.initiator.get_username(),
                 "how": CHANGED if row.get("sheet_unit_price") else SUPPLIED,
                 "sheet_unit_price": row.get("sheet_unit_price") or row["unit_price"],
                 "median": None, "difference": None, "percent": None, "past_tolerance": False}
        if median:
            percent = ((price - median) / median * 100).quantize(Decimal("1"), rounding=ROUND_HALF_UP)
            entry |= {"median": str(median.quantize(Decimal("0.01"))), "difference": str(price - median),
                      "percent": int(percent), "past_tolerance": abs(percent) > tolerance}
        given.append(entry)
    return given


def past_tolerance(given: list[dict]) -> bool:
    return any(entry["past_tolerance"] for entry in given)

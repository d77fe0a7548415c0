"""A match exception in plain words, in the reader's language (DESIGN §16), for the approval
page, the invoice list and the supplier's mail: 「發票數量 3，已驗收 2：多 1 台，NT$6,720」."""
from decimal import Decimal

from django.utils.translation import gettext as _
from django.utils.translation import npgettext, pgettext

from procurement.words.money import ntd

# What the goods are counted in (量詞), by the item as quoted; anything else is counted in 件.
COUNTED_AS = {"Monitor": "machine", "Laptop": "machine", "Keyboard": "machine", "USB-C dock": "machine",
              "Office chair": "seat"}


def _units(count: int, description: str) -> str:
    if COUNTED_AS.get(description) == "machine":
        return npgettext("goods counted as machines (台)", "%(n)s unit", "%(n)s units", count) % {"n": count}
    if COUNTED_AS.get(description) == "seat":
        return npgettext("goods counted as chairs (張)", "%(n)s chair", "%(n)s chairs", count) % {"n": count}
    return npgettext("goods counted as pieces (件)", "%(n)s item", "%(n)s items", count) % {"n": count}


def variance_words(variance: dict) -> str:
    kind, amount = variance["kind"], ntd(Decimal(variance["amount"]))
    expected, actual = variance.get("expected", ""), variance.get("actual", "")
    if kind == "quantity_over_received":
        over = int(actual) - int(expected)
        return _("Invoiced quantity %(actual)s, accepted %(expected)s: %(over)s too many, %(amount)s") % {
            "actual": actual, "expected": expected, "over": _units(over, variance.get("description", "")),
            "amount": amount}
    if kind == "price_variance":
        return _("Unit price %(actual)s, the PO's %(expected)s: %(amount)s in all") % {
            "actual": ntd(Decimal(actual)), "expected": ntd(Decimal(expected)), "amount": amount}
    if kind == "tax_mismatch":
        return _("Business tax %(actual)s, 5%% of 未稅 is %(expected)s: %(amount)s off") % {
            "actual": ntd(Decimal(actual)), "expected": ntd(Decimal(expected)), "amount": amount}
    if kind == "supplier_mismatch":
        return _("Seller tax ID (統一編號) %(actual)s, the PO's supplier is %(expected)s") % {
            "actual": actual, "expected": expected}
    if kind == "unmatched_line":
        return _("Line %(line)s is not on the purchase order: %(amount)s") % {
            "line": (variance.get("line") or 0) + 1, "amount": amount}
    if kind == "total_mismatch":
        return _("未稅 %(actual)s, its lines add up to %(expected)s: %(amount)s off") % {
            "actual": ntd(Decimal(actual)), "expected": ntd(Decimal(expected)), "amount": amount}
    return pgettext("match exception", "%(kind)s: %(amount)s") % {"kind": kind, "amount": amount}

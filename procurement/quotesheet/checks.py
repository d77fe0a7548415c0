"""Each row of a quote sheet against the catalogue and the supplier list. Plain inputs, no DB.

An exception is one of:
- `unknown_item`: the row names nothing the catalogue quotes;
- `tax_id`: its supplier has no valid 統一編號 on the supplier list: the row's is invalid, names no
  listed supplier, or differs from the one listed for its supplier's name (a blank cell is fine
  for a listed name). Only listed suppliers receive purchase orders;
- `price`: its unit price is more than the tolerance (QUOTE_SHEET_PRICE_TOLERANCE_PERCENT) away
  from the median of the catalogue's quotes for that item, either way.
Each exception becomes one question; a row with two has two."""
from dataclasses import asdict
from decimal import ROUND_HALF_UP, Decimal

from django.core.exceptions import ValidationError

from procurement.purchase.pricing import Vocabulary, match_item
from procurement.models.taxid import validate_tax_id
from procurement.quotesheet.reader import SheetRow
from procurement.words.quotesheet import PRICE, TAX_ID, UNKNOWN_ITEM  # noqa: F401  (the kinds, named where they are worded)



def tax_id_valid(value: str) -> bool:
    try:
        validate_tax_id(value)
    except ValidationError:
        return False
    return True


class Suppliers:
    """The supplier list: by name or another name it goes by (any case), and by 統一編號."""

    def __init__(self, pairs, aliases: dict | None = None):
        pairs = list(pairs)
        self.by_name = {other.casefold(): (name, tax_id) for name, tax_id in pairs
                        for other in (aliases or {}).get(name, ())}
        self.by_name |= {name.casefold(): (name, tax_id) for name, tax_id in pairs}
        self.by_tax = {tax_id: name for name, tax_id in pairs}

    def listed(self, name: str, tax_id: str) -> str | None:
        """The listed supplier this row's quote is from, or None."""
        if tax_id and tax_id in self.by_tax:
            return self.by_tax[tax_id]
        named = self.by_name.get(name.casefold())
        return named[0] if named and not tax_id else None


def row_state(row: SheetRow, *, catalogue: dict[str, Decimal], suppliers: Suppliers, vocabulary: Vocabulary) -> dict:
    """The row as State keeps it: what it says, which catalogue item and listed supplier it is."""
    item = match_item(row.item, vocabulary, sorted(catalogue))
    item = item if item in catalogue else None
    return {**{k: str(v) if k == "unit_price" else v for k, v in asdict(row).items()},
            "catalogue_item": item, "listed_supplier": suppliers.listed(row.supplier, row.tax_id), "status": "ok"}


def exceptions(row: dict, *, catalogue: dict[str, Decimal], suppliers: Suppliers,
               tolerance_percent: int) -> list[dict]:
    """The row's exceptions, each {kind, row, ...what the question needs}."""
    found = []
    if row["catalogue_item"] is None:
        found.append({"kind": UNKNOWN_ITEM, "row": row["row"], "item": row["item"]})
    if row["listed_supplier"] is None:
        named = suppliers.by_name.get(row["supplier"].casefold())
        found.append({"kind": TAX_ID, "row": row["row"], "supplier": row["supplier"], "tax_id": row["tax_id"],
                      "known_tax_id": named[1] if named else ""})
    price_check = price_exception(row, catalogue=catalogue, tolerance_percent=tolerance_percent)
    if price_check:
        found.append(price_check)
    return found


def price_exception(row: dict, *, catalogue: dict[str, Decimal], tolerance_percent: int) -> dict | None:
    item = row["catalogue_item"]
    if item is None or not catalogue.get(item):
        return None
    med, price = catalogue[item], Decimal(row["unit_price"])
    off = (price - med) / med * 100
    if abs(off) <= tolerance_percent:
        return None
    return {"kind": PRICE, "row": row["row"], "item": item, "unit_price": str(price),
            "median": str(med.quantize(Decimal("0.01"))),
            "percent": int(off.quantize(Decimal("1"), rounding=ROUND_HALF_UP))}


def sheet_check(rows: list[SheetRow], *, catalogue: dict[str, Decimal], suppliers: Suppliers,
                tolerance_percent: int, vocabulary: Vocabulary) -> tuple[list[dict], list[dict]]:
    """(rows as State keeps them, questions), questions numbered from 1 in row order, all open.
    Items are read with the catalogue's words (`vocabulary`)."""
    states = [row_state(row, catalogue=catalogue, suppliers=suppliers, vocabulary=vocabulary) for row in rows]
    questions = []
    for state in states:
        for exception in exceptions(state, catalogue=catalogue, suppliers=suppliers,
                                    tolerance_percent=tolerance_percent):
            questions.append({"n": len(questions) + 1, "status": "open", **exception})
    return states, questions

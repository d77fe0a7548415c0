"""Prices and the award rule (DESIGN §10): match request lines to quoted items, price them,
add 5% business tax, and award the whole request to one supplier. Plain inputs, no DB.

Money follows Taiwan practice (DESIGN §7): the tax comes from `invoicing.tax.totals`, the one
place 營業稅 is computed."""
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from statistics import median
from decimal import Decimal

from agentstate.said import Said, say

from procurement.purchase.tax import cents, totals

CURRENCY = "TWD"  # quotes in another currency are not priced; the award names the one it used


@dataclass(frozen=True)
class Vocabulary:
    """The catalogue's words, as plain data (the database keeps them: procurement.purchase.catalogue).

    `items`: canonical item -> the words people use for it (English words also match their
    plurals; the item's own name always counts). `accessories`: things bought *for* an item
    ("monitor arm", 「筆電包」), which are not the item: we ask rather than buy a NT$35,000 laptop
    for someone who wanted a stand. `suppliers`: a supplier's name -> its other names."""
    items: Mapping[str, tuple] = field(default_factory=dict)
    accessories: tuple = ()
    suppliers: Mapping[str, tuple] = field(default_factory=dict)

    def words(self, item: str) -> list[str]:
        """The words an item is heard by, longest first."""
        return sorted({*(w.lower() for w in self.items.get(item, ())), item.lower()}, key=len, reverse=True)


def _mentions(text: str, word: str) -> re.Match | None:
    if word.isascii():
        return re.search(rf"(?<![a-z0-9]){re.escape(word)}(?:e?s)?(?![a-z0-9])", text)
    return re.search(re.escape(word), text)


def match_item(description: str, vocabulary: Vocabulary, items=()) -> str | None:
    """The canonical item a free-text description names, or None.

    The longest word that matches wins, so "laptop docking station" is a dock, not a laptop.
    `items` adds quoted item names outside the vocabulary (matched by their own name)."""
    text = " ".join(str(description).lower().split())
    if any(_mentions(text, word.lower()) for word in vocabulary.accessories):
        return None
    names = {item: vocabulary.words(item) for item in vocabulary.items}
    for item in items:
        names.setdefault(item, [item.lower()])
    best, best_len = None, 0
    for item, words in names.items():
        for word in words:
            if len(word) > best_len and _mentions(text, word):
                best, best_len = item, len(word)
    return best


@dataclass(frozen=True)
class PricedLine:
    description: str
    item: str
    quantity: int
    unit_price: Decimal
    amount: Decimal

    def as_json(self) -> dict:
        return {"description": self.description, "item": self.item, "quantity": self.quantity,
                "unit_price": str(self.unit_price), "amount": str(self.amount)}


@dataclass
class Award:
    supplier: str | None
    lines: list[PricedLine] = field(default_factory=list)
    subtotal: Decimal | None = None
    tax: Decimal | None = None
    total: Decimal | None = None
    lead_time_days: int | None = None
    comparison: list[dict] = field(default_factory=list)
    unquoted: list[str] = field(default_factory=list)
    question: Said | None = None  # what the requester is asked when nobody can be awarded
    currency: str = CURRENCY

    def as_json(self) -> dict:
        """The award as a purchase task stores it (schema 2 of procurement.workflow: with its currency)."""
        money = {k: None if v is None else str(v) for k, v in
                 {"subtotal": self.subtotal, "tax": self.tax, "total": self.total}.items()}
        return {"supplier": self.supplier, "lines": [line.as_json() for line in self.lines], **money,
                "currency": self.currency,
                "lead_time_days": self.lead_time_days, "comparison": self.comparison,
                "unquoted": self.unquoted, "question": str(self.question or "")}


@dataclass(frozen=True)
class _Line:
    description: str
    quantity: int
    item: str | None


@dataclass
class _Offer:
    """One supplier's standing on the request: its valid quotes and what it is missing."""
    supplier: str
    quotes: dict = field(default_factory=dict)  # item -> quote valid today
    expired: set = field(default_factory=set)


def _get(obj, name, default=None):
    return obj.get(name, default) if isinstance(obj, dict) else getattr(obj, name, default)


def _supplier_name(quote) -> str:
    supplier = _get(quote, "supplier")
    return str(getattr(supplier, "name", supplier))


def _offers(quotes, wanted: set, today: date) -> list[_Offer]:
    offers: dict[str, _Offer] = {}
    for quote in quotes:
        item = _get(quote, "item")
        if item not in wanted or _get(quote, "currency", CURRENCY) != CURRENCY:
            continue
        offer = offers.setdefault(_supplier_name(quote), _Offer(_supplier_name(quote)))
        valid_until = _get(quote, "valid_until")
        if valid_until is not None and valid_until < today:
            offer.expired.add(item)
            continue
        current = offer.quotes.get(item)
        if current is None or Decimal(_get(quote, "unit_price")) < Decimal(_get(current, "unit_price")):
            offer.quotes[item] = quote
        offer.expired.discard(item)
    return list(offers.values())


def _price(offer: _Offer, lines: list[_Line]) -> tuple[list[PricedLine], Decimal, int]:
    priced = []
    for line in lines:
        unit_price = cents(_get(offer.quotes[line.item], "unit_price"))
        priced.append(PricedLine(line.description, line.item, line.quantity, unit_price,
                                 cents(unit_price * line.quantity)))
    lead_time = max(int(_get(offer.quotes[line.item], "lead_time_days")) for line in lines)
    return priced, sum((p.amount for p in priced), Decimal("0.00")), lead_time


def _entry(offer: _Offer, wanted: list[str], priced=None) -> dict:
    missing = [name for name in wanted if name not in offer.quotes]
    entry = {"supplier": offer.supplier, "covers_all": not missing, "missing": missing,
             "expired": sorted(offer.expired & set(missing)), "awarded": False}
    if priced:
        _, subtotal, lead_time = priced
        money = dict(zip(("subtotal", "tax", "total"), map(str, totals(subtotal))))
        entry |= money | {"lead_time_days": lead_time}
    return entry


def _read_lines(lines, known_items, vocabulary: Vocabulary) -> list[_Line]:
    return [_Line(str(_get(line, "description")), int(_get(line, "quantity")),
                  match_item(_get(line, "description"), vocabulary, known_items)) for line in lines]


def award(lines, quotes, today: date, vocabulary: Vocabulary) -> Award:
    """Award the request whole to the supplier with the lowest total among those quoting
    every line with a quote valid on `today`; ties go to the shorter lead time (the
    slowest line), then the supplier name. Otherwise explain what the requester must change."""
    quotes = list(quotes)
    known_items = sorted({_get(q, "item") for q in quotes})
    request = _read_lines(lines, known_items, vocabulary)
    if not request:
        return Award(None, question=say("ask_what_to_buy"))
    items = list(dict.fromkeys(line.item for line in request if line.item))
    offers = _offers(quotes, set(items), today)
    quoted = {item for offer in offers for item in offer.quotes}

    nobody = [line.description for line in request if line.item not in quoted]
    full = {o.supplier: _price(o, request) for o in offers if not nobody and set(items) <= set(o.quotes)}
    ranked = sorted(full, key=lambda name: (full[name][1], full[name][2], name))
    # What each line needs: its item, or its own words when we know no such item.
    wanted = list(dict.fromkeys(line.item or line.description for line in request))
    comparison = [_entry(o, wanted, full.get(o.supplier)) for o in offers]
    place = {name: i for i, name in enumerate(ranked)}
    comparison.sort(key=lambda e: (place.get(e["supplier"], len(place)), e["supplier"]))
    if nobody:
        return Award(None, comparison=comparison, unquoted=nobody, question=_ask_unknown(nobody, known_items))
    if not ranked:
        split = [line.description for line in request if any(line.item not in o.quotes for o in offers)]
        return Award(None, comparison=comparison, unquoted=split, question=_ask_split(items, offers))

    winner = ranked[0]
    priced, subtotal, lead_time = full[winner]
    comparison[0]["awarded"] = True
    return Award(winner, priced, *totals(subtotal), lead_time_days=lead_time, comparison=comparison)


def asking(question: Said) -> dict:
    """The task's data for an open question: its English (logs, the model) and its code (the pages)."""
    return {"question": str(question), "asked": question.as_json()}


def _ask_unknown(descriptions: list[str], known_items: list[str]) -> Said:
    if known_items:
        return say("ask_unknown_item", quoted=list(descriptions), items=list(known_items))
    return say("ask_unknown_item_no_catalogue", quoted=list(descriptions))


def _ask_split(items: list[str], offers: list[_Offer]) -> Said:
    who = [[o.supplier, [i for i in items if i in o.quotes]] for o in sorted(offers, key=lambda o: o.supplier)
           if o.quotes]
    return say("ask_split", items=list(items), who=who)


def medians(quotes) -> dict[str, Decimal]:
    """Item -> median untaxed unit price of the catalogue's quotes (each a dict or a Quote)."""
    prices: dict[str, list[Decimal]] = {}
    for quote in quotes:
        get = quote.get if isinstance(quote, dict) else lambda name, q=quote: getattr(q, name)
        prices.setdefault(get("item"), []).append(Decimal(str(get("unit_price"))))
    return {item: Decimal(median(values)) for item, values in prices.items()}

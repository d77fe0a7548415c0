"""The three-way match (DESIGN §16): a supplier invoice against its purchase order and what
arrived, per PO line. Plain inputs, no DB: the service (procurement.invoicing.matching) reads
the rows and records the outcome.

Per PO line the invoice bills:
- the invoiced quantity against the accepted quantity net of returns (less what earlier invoices
  already billed): more than arrived waits for the goods (`waiting`) while the rest may still come
  on time (no more than ordered, nothing rejected or returned on that line); otherwise it is a
  `quantity_over_received` exception;
- the unit price against the PO's (`price_variance`);
then, for the invoice as a whole:
- the 營業稅 against 5% of its 未稅 in whole NT dollars (`tax_mismatch`, procurement.purchase.tax);
- the seller's 統一編號 against the PO supplier's (`supplier_mismatch`);
- the header 未稅 against the sum of its lines (`total_mismatch`);
- a line the PO does not have (`unmatched_line`).

Tolerances (procurement.invoicing.tolerance) say how far a figure may be off and still match:
an absolute amount and a percentage of the expected figure, combined by `and` or `or`. The
variance amount of every exception is in NT$ including tax, what the approval is routed on."""
from dataclasses import dataclass, field
from decimal import Decimal

from procurement.purchase.tax import business_tax, cents, with_tax

MATCHED, WAITING, EXCEPTION = "matched", "waiting", "exception"
QUANTITY_OVER_RECEIVED = "quantity_over_received"
PRICE_VARIANCE = "price_variance"
TAX_MISMATCH = "tax_mismatch"
SUPPLIER_MISMATCH = "supplier_mismatch"
UNMATCHED_LINE = "unmatched_line"
TOTAL_MISMATCH = "total_mismatch"
KINDS = (QUANTITY_OVER_RECEIVED, PRICE_VARIANCE, TAX_MISMATCH, SUPPLIER_MISMATCH, UNMATCHED_LINE, TOTAL_MISMATCH)
# The checks a tolerance may loosen, each measured in its own unit: quantity in units, price in NT$
# per unit, tax and total in NT$.
CHECKS = ("quantity", "price", "tax", "total")


@dataclass(frozen=True)
class Tolerance:
    """How far a figure may be off: within `amount` and/or within `percent` % of the expected
    figure. None on either side is no allowance on that side; (None, None) is exact."""
    amount: Decimal | None = None
    percent: Decimal | None = None
    combine: str = "or"  # "or": either allowance suffices; "and": both must hold

    def allows(self, difference: Decimal, expected: Decimal) -> bool:
        difference = abs(Decimal(difference))
        if difference == 0:
            return True
        by_amount = self.amount is not None and difference <= Decimal(self.amount)
        by_percent = self.percent is not None and difference * 100 <= Decimal(self.percent) * abs(Decimal(expected))
        if self.amount is None and self.percent is None:
            return False
        if self.combine == "and":
            return (by_amount or self.amount is None) and (by_percent or self.percent is None)
        return by_amount or by_percent

    def as_json(self) -> dict:
        return {"amount": None if self.amount is None else str(self.amount),
                "percent": None if self.percent is None else str(self.percent), "combine": self.combine}

    @classmethod
    def from_json(cls, data: dict | None) -> "Tolerance":
        data = data or {}
        return cls(amount=None if data.get("amount") in (None, "") else Decimal(str(data["amount"])),
                   percent=None if data.get("percent") in (None, "") else Decimal(str(data["percent"])),
                   combine=data.get("combine") or "or")


# DESIGN §16's default: no quantity tolerance, price within 1% or NT$10, tax within NT$1.
DEFAULT_TOLERANCES = {"quantity": Tolerance(), "price": Tolerance(Decimal("10"), Decimal("1"), "or"),
                      "tax": Tolerance(Decimal("1")), "total": Tolerance(Decimal("1"))}


@dataclass(frozen=True)
class OrderedLine:
    """A PO line and where it stands: what was ordered at what price, what arrived."""
    line: int
    description: str
    ordered: int
    unit_price: Decimal
    accepted: int = 0  # net of returns
    rejected: int = 0
    returned: int = 0
    invoiced_before: int = 0  # billed by other invoices still standing
    tolerances: dict = field(default_factory=lambda: dict(DEFAULT_TOLERANCES))


@dataclass(frozen=True)
class BilledLine:
    line: int
    quantity: int
    unit_price: Decimal

    @property
    def amount(self) -> Decimal:
        return cents(self.unit_price * self.quantity)


@dataclass(frozen=True)
class Billed:
    """The invoice as entered."""
    seller_tax_id: str
    lines: tuple[BilledLine, ...]
    subtotal: Decimal
    tax: Decimal
    total: Decimal


@dataclass(frozen=True)
class Variance:
    kind: str
    line: int | None  # None for the invoice as a whole
    expected: str
    actual: str
    amount: Decimal  # NT$, tax included: what the variance costs
    description: str = ""

    def as_json(self) -> dict:
        return {"kind": self.kind, "line": self.line, "expected": self.expected, "actual": self.actual,
                "amount": str(self.amount), "description": self.description}


@dataclass(frozen=True)
class Waiting:
    line: int
    invoiced: int
    accepted: int  # what is left to bill of the accepted quantity

    def as_json(self) -> dict:
        return {"line": self.line, "invoiced": self.invoiced, "accepted": self.accepted}


@dataclass(frozen=True)
class Outcome:
    status: str  # MATCHED, WAITING or EXCEPTION
    exceptions: tuple[Variance, ...] = ()
    waiting: tuple[Waiting, ...] = ()

    @property
    def variance(self) -> Decimal:
        """The exceptions' cost together, NT$ tax included (what the approval is routed on)."""
        return sum((v.amount for v in self.exceptions), Decimal("0"))


def _tolerance(line: OrderedLine | None, check: str) -> Tolerance:
    tolerances = line.tolerances if line is not None else DEFAULT_TOLERANCES
    return tolerances.get(check) or DEFAULT_TOLERANCES[check]


def _quantity(ordered: OrderedLine, billed: BilledLine) -> Variance | Waiting | None:
    left = ordered.accepted - ordered.invoiced_before  # accepted and not billed yet
    over = billed.quantity - left
    if over <= 0 or _tolerance(ordered, "quantity").allows(over, max(left, 0)):
        return None
    still_coming = (ordered.rejected == 0 and ordered.returned == 0
                    and ordered.invoiced_before + billed.quantity <= ordered.ordered)
    if still_coming:
        return Waiting(ordered.line, billed.quantity, max(left, 0))
    return Variance(QUANTITY_OVER_RECEIVED, ordered.line, expected=str(max(left, 0)), actual=str(billed.quantity),
                    amount=with_tax(over * ordered.unit_price), description=ordered.description)


def _price(ordered: OrderedLine, billed: BilledLine) -> Variance | None:
    difference = billed.unit_price - ordered.unit_price
    if _tolerance(ordered, "price").allows(difference, ordered.unit_price):
        return None
    return Variance(PRICE_VARIANCE, ordered.line, expected=str(cents(ordered.unit_price)),
                    actual=str(cents(billed.unit_price)), amount=with_tax(abs(difference) * billed.quantity),
                    description=ordered.description)


def three_way_match(lines: list[OrderedLine], billed: Billed, *, supplier_tax_id: str) -> Outcome:
    """Matched, waiting for the goods, or the exceptions with their figures. An exception
    outranks waiting: an invoice that is wrong now is not made right by goods arriving."""
    by_line = {line.line: line for line in lines}
    exceptions: list[Variance] = []
    waiting: list[Waiting] = []
    for row in billed.lines:
        ordered = by_line.get(row.line)
        if ordered is None:
            exceptions.append(Variance(UNMATCHED_LINE, row.line, expected="", actual=str(row.quantity),
                                       amount=with_tax(row.amount)))
            continue
        found = _quantity(ordered, row)
        if isinstance(found, Waiting):
            waiting.append(found)
        elif found is not None:
            exceptions.append(found)
        price = _price(ordered, row)
        if price is not None:
            exceptions.append(price)
    some_line = lines[0] if lines else None
    expected_tax = business_tax(billed.subtotal)
    if not _tolerance(some_line, "tax").allows(billed.tax - expected_tax, expected_tax):
        exceptions.append(Variance(TAX_MISMATCH, None, expected=str(expected_tax), actual=str(cents(billed.tax)),
                                   amount=cents(abs(billed.tax - expected_tax))))
    if billed.seller_tax_id != supplier_tax_id:
        exceptions.append(Variance(SUPPLIER_MISMATCH, None, expected=supplier_tax_id, actual=billed.seller_tax_id,
                                   amount=cents(billed.total)))
    line_sum = cents(sum((row.amount for row in billed.lines), Decimal("0")))
    if not _tolerance(some_line, "total").allows(billed.subtotal - line_sum, line_sum):
        exceptions.append(Variance(TOTAL_MISMATCH, None, expected=str(line_sum), actual=str(cents(billed.subtotal)),
                                   amount=with_tax(abs(billed.subtotal - line_sum))))
    if exceptions:
        return Outcome(EXCEPTION, tuple(exceptions), tuple(waiting))
    if waiting:
        return Outcome(WAITING, (), tuple(waiting))
    return Outcome(MATCHED)

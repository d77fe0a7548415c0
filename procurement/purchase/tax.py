"""營業稅 in one place: every tax figure on a page, in a mail, in the chat, in the API and on an
invoice check comes from `business_tax`. Plain inputs, no DB.

Taiwan practice (DESIGN §7): the business tax is 5% of the untaxed (未稅) subtotal, rounded
ROUND_HALF_UP to a whole NT dollar, as printed on a 統一發票; 含稅 is the subtotal plus that tax.
Money is otherwise kept to the cent."""
from decimal import ROUND_HALF_UP, Decimal

TAX_RATE = Decimal("0.05")
CENT = Decimal("0.01")
DOLLAR = Decimal("1")


def cents(amount) -> Decimal:
    return Decimal(amount).quantize(CENT, rounding=ROUND_HALF_UP)


def business_tax(subtotal) -> Decimal:
    """5% of the untaxed subtotal in whole NT dollars, half up (kept with two places, as all money)."""
    return cents((cents(subtotal) * TAX_RATE).quantize(DOLLAR, rounding=ROUND_HALF_UP))


def totals(subtotal) -> tuple[Decimal, Decimal, Decimal]:
    """(未稅, 營業稅, 含稅): the subtotal to the cent, the tax in whole NT dollars, their sum."""
    subtotal = cents(subtotal)
    tax = business_tax(subtotal)
    return subtotal, tax, subtotal + tax


def with_tax(subtotal) -> Decimal:
    """含稅 of an untaxed amount: a 未稅 cap of NT$1,001 is NT$1,051 (tax NT$50.05 -> NT$50)."""
    return totals(subtotal)[2]

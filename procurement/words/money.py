"""Money as people here read it: NT$ with thousands separators, large sums also in 萬 for a
reader of Chinese.

One formatter for pages, mail, chat and change summaries (`{{ value|ntd }}` in templates). An
amount never breaks across lines: a no-break space before 萬 and a word joiner before its
parenthesis, and on pages the `{{ value|ntd }}` filter also keeps it in a nowrap span."""
import re
from decimal import Decimal, InvalidOperation

from django.utils.translation import get_language

WAN = Decimal(10_000)
NBSP, WORD_JOINER = "\u00a0", "\u2060"
_SPACES = re.compile(r"[ \t\r\n\f\v]+")


def squeeze(text: str) -> str:
    """Runs of spaces and line breaks as one space, ends trimmed; an amount's no-break space kept
    (str.split() would take it for a space)."""
    return _SPACES.sub(" ", str(text)).strip(" ")


def ntd(value) -> str:
    """NT$73,500; cents only when there are any (NT$10.30); from 100,000 up, in Chinese, also in
    萬: 「NT$1,234,500（123.45 萬）」, where English has no such unit: "NT$1,234,500". A negative
    sum has its sign first: 「-NT$198,115（-19.81 萬）」. Nothing known is "—". The 萬 part is
    joined to the dollars (WORD_JOINER) and to its number (NBSP), so a line never breaks in it."""
    if value in (None, ""):
        return "—"
    try:
        amount = Decimal(str(value))
    except InvalidOperation:
        return str(value)
    if not amount.is_finite():
        return str(value)
    places = 0 if amount == amount.to_integral_value() else 2
    sign, amount = ("-" if amount < 0 else ""), abs(amount)
    text = f"{sign}NT${amount:,.{places}f}"
    if amount >= 100_000:
        wan = (amount / WAN).quantize(Decimal("0.01")).normalize()
        # A unit of Chinese numbers, in Chinese parentheses; English reads the sum alone.
        if (get_language() or "").lower().startswith("zh"):
            text += f"{WORD_JOINER}（{sign}{wan:,f}{NBSP}萬）"
    return text

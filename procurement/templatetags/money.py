"""Money and time as people here read them: NT$ without decimals, large sums also in 萬."""
from decimal import Decimal, InvalidOperation

from django import template
from django.utils import timezone
from django.utils.translation import gettext as _

register = template.Library()
WAN = Decimal(10_000)


@register.filter
def ntd(value) -> str:
    """NT$73,500; from 100,000 up also in 萬: NT$1,234,500 (123.45 萬)."""
    if value in (None, ""):
        return "—"
    try:
        amount = Decimal(str(value))
    except InvalidOperation:
        return str(value)
    text = f"NT${amount:,.0f}"
    if abs(amount) >= 100_000:
        wan = (amount / WAN).quantize(Decimal("0.01")).normalize()
        text += f" ({wan:f} 萬)"
    return text


@register.filter
def time_left(deadline) -> str:
    if deadline is None:
        return ""
    seconds = int((deadline - timezone.now()).total_seconds())
    if seconds <= 0:
        return _("expired")
    hours, rest = divmod(seconds, 3600)
    if hours >= 24:
        return _("%(days)d d %(hours)d h") % {"days": hours // 24, "hours": hours % 24}
    return _("%(hours)d h %(minutes)d min") % {"hours": hours, "minutes": rest // 60}

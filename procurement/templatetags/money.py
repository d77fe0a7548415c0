"""Money and time as people here read them (procurement.words.money): NT$, large sums also in 萬 in Chinese."""
from django import template
from django.utils.html import format_html
from django.utils import timezone
from django.utils.translation import gettext as _

from procurement.words import money

register = template.Library()


@register.filter(needs_autoescape=True)
def ntd(value, autoescape=True) -> str:
    """NT$73,500; from 100,000 up, in Chinese, also in 萬: 「NT$1,234,500（123.45 萬）」. On a page
    (autoescape on) in a nowrap span, so a sentence never breaks inside the amount; in mail and
    notices (autoescape off) as plain text, kept whole by its no-break characters."""
    text = money.ntd(value)
    return format_html('<span class="money">{}</span>', text) if autoescape else text


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

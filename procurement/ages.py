"""How long ago, in the reader's language: "12 minutes", "3 hours, 5 minutes"; 「12 分鐘」,
「3 小時 5 分鐘」. Django's own zh-Hant words for timesince are 「分」 and 「日」, joined by an ASCII
comma; these are the product's own, through the same timesince."""
from django.utils.timesince import timesince
from django.utils.translation import gettext, npgettext_lazy, pgettext

DJANGO_SEPARATOR = ", "
AGE_STRINGS = {
    "year": npgettext_lazy("time span", "%(num)d year", "%(num)d years", "num"),
    "month": npgettext_lazy("time span", "%(num)d month", "%(num)d months", "num"),
    "week": npgettext_lazy("time span", "%(num)d week", "%(num)d weeks", "num"),
    "day": npgettext_lazy("time span", "%(num)d day", "%(num)d days", "num"),
    "hour": npgettext_lazy("time span", "%(num)d hour", "%(num)d hours", "num"),
    "minute": npgettext_lazy("time span", "%(num)d minute", "%(num)d minutes", "num"),
}


def age(since, now=None) -> str:
    """The time from `since` to now (or `now`), in its two largest units."""
    if not since:
        return ""
    text = timesince(since, now, time_strings=AGE_STRINGS)
    # timesince joins its parts with Django's own ", " (a variable: not this catalogue's message).
    return text.replace(gettext(DJANGO_SEPARATOR), pgettext("between the parts of a time span", ", "))

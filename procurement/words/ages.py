"""How long ago, in the reader's language: "12 minutes", "3 hours, 5 minutes"; 「12 分鐘」,
「3 小時 5 分鐘」. Django's own zh-Hant words for timesince are 「分」 and 「日」, joined by an ASCII
comma; these are the product's own, through the same timesince."""
from django.utils.timesince import timesince
from django.utils import timezone
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
    """The time from `since` to now (or `now`), in its two largest units; "under a minute" at first,
    where timesince would say "0 minutes"."""
    if not since:
        return ""
    if ((now or timezone.now()) - since).total_seconds() < 60:
        return pgettext("time span", "under a minute")
    text = timesince(since, now, time_strings=AGE_STRINGS)
    # timesince joins its parts with Django's own ", " (a variable: not this catalogue's message).
    return text.replace(gettext(DJANGO_SEPARATOR), pgettext("between the parts of a time span", ", "))


def ago(since, now=None) -> str:
    """When something last happened: "just now" under a minute, else "12 minutes ago" / 「12 分鐘前」."""
    if not since:
        return ""
    if ((now or timezone.now()) - since).total_seconds() < 60:
        return pgettext("a moment ago", "just now")
    return pgettext("how long ago", "%(age)s ago") % {"age": age(since, now)}

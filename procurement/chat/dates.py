"""The day a requester needs her purchase by, read from what she wrote: 「下週要用」, 「下週三前」,
「月底前」, 「12/15 前」, "by Friday", "before Dec 15", "by the end of the month".

No date library in the locks reads Chinese relative dates, so this is one function (`need_by`)
over a short table of patterns; every phrase it knows is in tests/procurement/chat/test_chat_dates.py.
Relative words resolve against today in settings.TIME_ZONE (Asia/Taipei). A week starts on
Monday: 「這週五」 is this week's Friday, 「下週五」 and "next Friday" next week's, a bare
「週五」 / "by Friday" the coming one. 「下週」 and "next week" mean its Monday, 「下個月初」 the
1st, 「月底」 the month's last day: the reply shows the day, so she can correct it."""
import calendar
import re
from dataclasses import dataclass
from datetime import date, timedelta

from django.utils import timezone
from django.utils.dateformat import format as date_format
from django.utils.translation import pgettext_lazy

from procurement.words.phrases import language
from procurement.chat.normalise import cn_int
from procurement.chat.phrasebook import either

# How far back a day-and-month without a year is still taken as a day gone by (asked about),
# rather than that day next year.
RECENT_DAYS = 62

ZH_WEEKDAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
EN_WEEKDAYS = {"mon": 0, "tue": 1, "wed": 2, "thu": 3, "fri": 4, "sat": 5, "sun": 6}
MONTHS = {m.lower(): n for n, m in enumerate(calendar.month_abbr) if m}

# The words around a day, as tables: what ends a deadline (「前」「要用」), what opens one ("by", "before"),
# and the names of weekdays and months as people shorten them ("Wed", "Weds", "Sept").
ZH_BEFORE = ("之前", "以前", "前", "為止", "以內", "內")
ZH_USE = ("就要用", "要用", "就要", "需要用", "用")
ZH_WEEK = either("週", "周", "星期", "禮拜", "礼拜")
ZH_END = rf"(?:\s*{either(*ZH_BEFORE)})?(?:\s*{either(*ZH_USE)})?"
EN_CUE = rf"(?:{either('by', 'before', 'until', 'till', 'no later than', 'on', 'for', 'due')}\s+(?:the\s+)?)?"
EN_DAY_NAMES = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
EN_DAY_SHORT = ("tues", "weds", "thur", "thurs")
EN_WEEKDAY = rf"(?P<wd>{either(*EN_DAY_NAMES, *EN_DAY_SHORT, *(d[:3] for d in EN_DAY_NAMES))})\.?\b"
EN_MONTHS = tuple(m.lower() for m in calendar.month_name if m)
EN_MONTH = rf"(?P<mon>{either(*EN_MONTHS, *(m[:3] for m in EN_MONTHS), 'sept')})\b\.?"
ZH_NUMBER = r"\d{1,2}|十?[一二三四五六七八九]|十|二十[一二三四五六七八九]?|三十一?"
N = r"(?P<n>\d{1,2}|[一二兩三四五六七八九十]|a|one|two|three|four|five|six)"
EN_N = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}


@dataclass(frozen=True)
class NeedBy:
    day: date
    said: str      # her words, as written: shown back when the day has passed
    start: int
    end: int

    def cut(self, text: str) -> str:
        """The text without the date, so 「12/15」 is never read as a quantity."""
        return text[:self.start] + " " + text[self.end:]


def today() -> date:
    return timezone.localdate()


def _week_day(base: date, weeks: int, weekday: int) -> date:
    monday = base - timedelta(days=base.weekday()) + timedelta(weeks=weeks)
    return monday + timedelta(days=weekday)


def _coming(base: date, weekday: int) -> date:
    return base + timedelta(days=(weekday - base.weekday()) % 7)


def _month_day(base: date, months: int, part: str) -> date:
    year, month = divmod(base.month - 1 + months, 12)
    year, month = base.year + year, month + 1
    last = calendar.monthrange(year, month)[1]
    return date(year, month, {"end": last, "start": 1, "mid": 15}[part])


def _zh_int(token: str) -> int:
    return int(token) if token.isdigit() else cn_int(token) or 0


def _n(token: str) -> int:
    return EN_N.get(token.lower()) or _zh_int(token)


def _dated(base: date, year: str | None, month: int, day: int) -> date | None:
    """A day and month as written; without a year, this year's unless it is long gone."""
    try:
        found = date(int(year) if year else base.year, month, day)
    except ValueError:
        return None
    if not year and (base - found).days > RECENT_DAYS:
        found = found.replace(year=found.year + 1)
    return found


def _zh_weeks(rel: str | None) -> int | None:
    return {None: None, "這": 0, "本": 0, "下": 1, "下下": 2, "上": -1, "上上": -2}[(rel or "").replace("個", "") or None]


def _later(base: date, n: int, unit: str) -> date:
    """n days, weeks or months from today (a month on the same day, or its last)."""
    if unit in ("月", "month"):
        year, month = divmod(base.month - 1 + n, 12)
        year, month = base.year + year, month + 1
        return date(year, month, min(base.day, calendar.monthrange(year, month)[1]))
    return base + timedelta(days=n * (1 if unit in ("天", "day") else 7))


# (pattern, day from the match and today): the first pattern that matches wins, so longer
# phrases come before the words they contain.
TABLE = [
    # 2026-12-15, 2026/12/15, 12/15, 12-15
    (rf"{EN_CUE}(?<![\d/.-])(?:(?P<y>20\d\d)(?P<sep>[/-]))?(?P<m>\d{{1,2}})(?(sep)(?P=sep)|/)(?P<d>\d{{1,2}})"
     rf"(?![\d/]){ZH_END}",
     lambda m, t: _dated(t, m["y"], int(m["m"]), int(m["d"]))),
    # 2026年12月15日, 12月15號, 十二月十五日
    (rf"(?:(?P<y>20\d\d)\s*年\s*)?(?P<m>{ZH_NUMBER})\s*月\s*(?P<d>{ZH_NUMBER})\s*(?:日|號|号){ZH_END}",
     lambda m, t: _dated(t, m["y"], _zh_int(m["m"]), _zh_int(m["d"]))),
    # Dec 15, December 15th, 2026
    (rf"{EN_CUE}\b{EN_MONTH}\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+(?P<y>20\d\d))?",
     lambda m, t: _dated(t, m["y"], MONTHS[m["mon"][:3].lower()], int(m["d"]))),
    # 15 Dec, the 15th of December
    (rf"{EN_CUE}\b(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{EN_MONTH}(?:,?\s+(?P<y>20\d\d))?",
     lambda m, t: _dated(t, m["y"], MONTHS[m["mon"][:3].lower()], int(m["d"]))),
    # 今天, 明天, 後天, 大後天
    (rf"(?P<w>大後天|後天|明天|明日){ZH_END}|(?P<w2>今天|今日)(?=\s*(?:之內|以內|內|前|就要|要用|要到))"
     rf"{ZH_END}",
     lambda m, t: t + timedelta(days={"明天": 1, "明日": 1, "後天": 2, "大後天": 3}.get(m["w"] or "", 0))),
    (rf"\b(?:by|before|until|for)\s+(?P<w0>today|tonight)\b|{EN_CUE}\b(?P<w>tomorrow|the day after tomorrow)\b",
     lambda m, t: t + timedelta(days=0 if m["w0"] else 1 if m["w"].lower() == "tomorrow" else 2)),
    # 昨天前, 前天就要, "by yesterday": a day gone (asked about); only with a deadline's word, so
    # 「昨天說的筆電」 is no date at all
    (r"(?P<w>昨天|昨日|前天)(?=\s*(?:之前|以前|前|就要|要用|要到|就該|該到))"
     rf"{ZH_END}|\b(?:by|before|until)\s+(?P<en>yesterday)\b",
     lambda m, t: t - timedelta(days=2 if m["w"] == "前天" else 1)),
    # 這週五, 下週三, 下下週一, 下個禮拜五, 週五; 上週五 is a day gone (asked about)
    (rf"(?P<rel>這個?|本|下下個?|下個?|上上個?|上個?)?{ZH_WEEK}(?P<wd>[一二三四五六日天]){ZH_END}",
     lambda m, t: _coming(t, ZH_WEEKDAYS[m["wd"]]) if m["rel"] is None
     else _week_day(t, _zh_weeks(m["rel"]), ZH_WEEKDAYS[m["wd"]])),
    # this Friday, next Friday, by Friday
    (rf"{EN_CUE}\b(?:(?P<rel>this|next|coming)\s+)?{EN_WEEKDAY}",
     lambda m, t: _week_day(t, 1, EN_WEEKDAYS[m["wd"][:3].lower()]) if (m["rel"] or "").lower() == "next"
     else _coming(t, EN_WEEKDAYS[m["wd"][:3].lower()])),
    # 下週, 下個禮拜, 下下週: its Monday
    (rf"(?P<rel>下下個?|下個?){ZH_WEEK}{ZH_END}",
     lambda m, t: _week_day(t, _zh_weeks(m["rel"]), 0)),
    (rf"{EN_CUE}\b(?:(?P<rel>next|the following)\s+week|end of (?:the |this )?week)\b",
     lambda m, t: _week_day(t, 1, 0) if m["rel"] else _week_day(t, 0, 4)),
    # 月底, 這個月底, 下個月初, 下月中, 下個月, 年底
    (rf"(?P<rel>這個|本|下個|下|下下個)?月(?P<part>底|初|中){ZH_END}",
     lambda m, t: _month_day(t, {None: 0, "這個": 0, "本": 0, "下個": 1, "下": 1, "下下個": 2}[m["rel"]],
                             {"底": "end", "初": "start", "中": "mid"}[m["part"]])),
    (rf"(?P<rel>下個|下)月(?![\d一二三四五六七八九十]){ZH_END}", lambda m, t: _month_day(t, 1, "start")),
    (rf"(?:今年|年)底{ZH_END}", lambda m, t: date(t.year, 12, 31)),
    (rf"{EN_CUE}\b(?:the\s+)?(?:end of (?:the |this )?month|month[- ]end|end of month)\b",
     lambda m, t: _month_day(t, 0, "end")),
    (rf"{EN_CUE}\b(?:the\s+)?end of next month\b", lambda m, t: _month_day(t, 1, "end")),
    (rf"{EN_CUE}\b(?:(?:early|the (?:beginning|start) of|beginning of|start of)\s+)?next month\b",
     lambda m, t: _month_day(t, 1, "start")),
    (rf"{EN_CUE}\b(?:the\s+)?end of (?:the |this )?year\b", lambda m, t: date(t.year, 12, 31)),
    # 三天內, 兩週內, 一個月內; in 2 weeks, within three days
    (rf"{N}\s*(?P<unit>天|個?(?:週|周|星期|禮拜)|個?月)\s*(?:之內|以內|內){ZH_END}",
     lambda m, t: _later(t, _n(m["n"]), {"天": "天", "月": "月"}.get(m["unit"].lstrip("個"), "週"))),
    (rf"\b(?:in|within)\s+{N}\s+(?P<unit>day|week|month)s?\b",
     lambda m, t: _later(t, _n(m["n"]), m["unit"].lower())),
]
TABLE = [(re.compile(pattern, re.IGNORECASE), day) for pattern, day in TABLE]


def need_by(text: str, base: date | None = None) -> NeedBy | None:
    """The first need-by date in `text`, resolved against `base` (today in Asia/Taipei)."""
    base = base or today()
    found = []
    for pattern, day_of in TABLE:
        for match in pattern.finditer(text):
            day = day_of(match, base)
            if day is not None:
                found.append(NeedBy(day=day, said=match.group(0).strip(), start=match.start(), end=match.end()))
                break
    # 「下個月有新人，下週三前要到」: the day said as a deadline is the need-by day, not the first day named.
    deadlines = [f for f in found if DEADLINE_AFTER.match(text[f.end:]) or DEADLINE_IN.search(f.said)]
    return min(deadlines or found, key=lambda f: (f.start, -f.end)) if found else None


DEADLINE_AFTER = re.compile(rf"\s*{either('之前', '以前', '前', '要到', '要送到', '要交', '到貨')}")
DEADLINE_IN = re.compile(rf"^{either('by', 'before', 'until', 'no later than')}\b|{either('之前', '以前', '前')}$", re.IGNORECASE)


SAME_YEAR = pgettext_lazy("need-by date in this year (Django date format)", "D j M")
OTHER_YEAR = pgettext_lazy("need-by date in another year (Django date format)", "D j M Y")


def day_words(day: date, lang: str, base: date | None = None) -> str:
    """「12月8日（週二）」 / "Tue 8 Dec": the day as a requester reads it (the year only if not this one)."""
    base = base or today()
    with language(lang):
        return date_format(day, str(SAME_YEAR if day.year == base.year else OTHER_YEAR))

"""How long ago, as the inbox and the conversation list say it: 「12 分鐘」 in Chinese, not Django's 「12 分」."""
from datetime import timedelta

from django.utils import timezone, translation

from procurement.words import ages

NOW = timezone.now()


def age(since, now=None) -> str:
    return ages.age(since, now).replace("\xa0", " ")  # a number keeps its unit on one line


def test_minutes_read_as_minutes_in_chinese_and_english():
    with translation.override("zh-hant"):
        assert age(NOW - timedelta(minutes=12), NOW) == "12 分鐘"
    with translation.override("en"):
        assert age(NOW - timedelta(minutes=12), NOW) == "12 minutes"


def test_two_units_are_joined_the_way_each_language_joins_them():
    since = NOW - timedelta(hours=3, minutes=5)
    with translation.override("zh-hant"):
        assert age(since, NOW) == "3 小時 5 分鐘"
    with translation.override("en"):
        assert age(since, NOW) == "3 hours, 5 minutes"
    with translation.override("zh-hant"):
        assert age(NOW - timedelta(days=2, hours=1), NOW) == "2 天 1 小時"


def test_no_time_reads_as_nothing():
    assert ages.age(None) == ""


def test_a_span_under_a_minute_is_not_zero_minutes():
    with translation.override("zh-hant"):
        assert age(NOW - timedelta(seconds=20), NOW) == "不到 1 分鐘"
    with translation.override("en"):
        assert age(NOW - timedelta(seconds=20), NOW) == "under a minute"
        assert age(NOW - timedelta(seconds=60), NOW) == "1 minute"

"""Money reads as people here read it: NT$, cents only when there are any, and in Chinese large
sums also in 萬, a unit English does not have."""
import pytest
from django.utils import translation

from procurement.words.money import ntd


@pytest.mark.parametrize("value, english, chinese", [
    ("73500.00", "NT$73,500", "NT$73,500"),
    ("10.30", "NT$10.30", "NT$10.30"),
    ("10.50", "NT$10.50", "NT$10.50"),  # never silently rounded to a whole dollar
    ("99999", "NT$99,999", "NT$99,999"),
    ("1234500.00", "NT$1,234,500", "NT$1,234,500（123.45 萬）"),
    ("100000", "NT$100,000", "NT$100,000（10 萬）"),
    # a department's budget runs to thousands of 萬, grouped like the dollars
    ("19890100", "NT$19,890,100", "NT$19,890,100（1,989.01 萬）"),
    # a negative sum has its sign before the currency and in the 萬 part
    ("-198115", "-NT$198,115", "-NT$198,115（-19.81 萬）"),
    ("-73500", "-NT$73,500", "-NT$73,500"),
    ("-10.30", "-NT$10.30", "-NT$10.30"),
    (None, "—", "—"),
    ("", "—", "—"),
    ("n/a", "n/a", "n/a"),
])
def test_amounts_read_as_nt_dollars_with_wan_only_in_chinese(value, english, chinese):
    with translation.override("en"):
        assert ntd(value) == english
    with translation.override("zh-hant"):
        assert ntd(value) == chinese

"""The need-by day in a requester's words: every phrase procurement.chat.dates knows, read
against a fixed today (Tuesday 1 December 2026, Asia/Taipei); how extraction keeps dates out of
quantities and purposes; why a broken chair needs no purpose question. No database."""
from datetime import date

import pytest
from django.utils import translation

from procurement.chat.dates import day_words, need_by
from procurement.chat.extract import extract

TUESDAY = date(2026, 12, 1)
CATALOGUE = ("Keyboard", "Laptop", "Monitor", "Office chair", "USB-C dock")


@pytest.mark.parametrize("text, day", [
    # Traditional Chinese, as requesters write it
    ("我需要兩台筆電，下週要用", "2026-12-07"),
    ("下週三前", "2026-12-09"),
    ("下個禮拜五", "2026-12-11"),
    ("下下週一", "2026-12-14"),
    ("這週五", "2026-12-04"),
    ("本週四前", "2026-12-03"),
    ("週五前要", "2026-12-04"),
    ("禮拜天", "2026-12-06"),
    ("明天要", "2026-12-02"),
    ("後天", "2026-12-03"),
    ("今天要用", "2026-12-01"),
    ("月底前", "2026-12-31"),
    ("這個月底", "2026-12-31"),
    ("下個月初", "2027-01-01"),
    ("下月中", "2027-01-15"),
    ("下個月底", "2027-01-31"),
    ("下個月", "2027-01-01"),
    ("年底前", "2026-12-31"),
    ("12/15 前", "2026-12-15"),
    ("12月15日前", "2026-12-15"),
    ("十二月二十號", "2026-12-20"),
    ("2027年1月5日", "2027-01-05"),
    ("2026-12-20", "2026-12-20"),
    ("1/10 前", "2027-01-10"),          # no year, long gone this year: next January
    ("三天內", "2026-12-04"),
    ("兩週內", "2026-12-15"),
    ("一個月內", "2027-01-01"),
    ("下周五", "2026-12-11"),           # 周 as well as 週
    # English
    ("by Friday", "2026-12-04"),
    ("this Friday", "2026-12-04"),
    ("next Friday", "2026-12-11"),
    ("by Thurs", "2026-12-03"),
    ("next week", "2026-12-07"),
    ("by the end of the week", "2026-12-04"),
    ("tomorrow", "2026-12-02"),
    ("the day after tomorrow", "2026-12-03"),
    ("by today", "2026-12-01"),
    ("before Dec 15", "2026-12-15"),
    ("by December 15th", "2026-12-15"),
    ("by 15 December", "2026-12-15"),
    ("on Jan 4, 2027", "2027-01-04"),
    ("by 12/15", "2026-12-15"),
    ("by the end of the month", "2026-12-31"),
    ("by month-end", "2026-12-31"),
    ("end of next month", "2027-01-31"),
    ("early next month", "2027-01-01"),
    ("next month", "2027-01-01"),
    ("by the end of the year", "2026-12-31"),
    ("in 2 weeks", "2026-12-15"),
    ("within three days", "2026-12-04"),
])
def test_a_need_by_phrase_is_read_as_a_day(text, day):
    found = need_by(text, TUESDAY)
    assert found is not None and found.day.isoformat() == day


@pytest.mark.parametrize("text, day", [
    ("這週一前", "2026-11-30"),
    ("上週五前要", "2026-11-27"),      # not the coming Friday
    ("11/20 前要", "2026-11-20"),
    ("before Nov 20", "2026-11-20"),
    ("其實昨天就要了", "2026-11-30"),
    ("前天前就該到", "2026-11-29"),
    ("I needed them by yesterday", "2026-11-30"),
])
def test_a_day_gone_by_is_read_as_it_was_said(text, day):
    assert need_by(text, TUESDAY).day.isoformat() == day


@pytest.mark.parametrize("text", [
    "我今天想買兩台筆電", "I need 2 monitors for marketing 5", "27 吋螢幕 2 台", "1,000 keyboards", "10-15 台",
    "monitor arms", "I need 2 laptops", "給新人報到用", "一個月的預算", "昨天說的那兩台筆電", "三天前問過",
    "yesterday I asked for a laptop", "目前天氣很冷",
])
def test_words_that_are_no_deadline_give_no_day(text):
    assert need_by(text, TUESDAY) is None


def test_the_day_is_shown_in_the_readers_language_with_the_year_only_when_another():
    assert day_words(date(2026, 12, 11), "zh", TUESDAY) == "12月11日（星期五）"
    assert day_words(date(2026, 12, 11), "en", TUESDAY) == "Fri 11 Dec"
    assert day_words(date(2027, 1, 1), "zh", TUESDAY) == "2027年1月1日（星期五）"
    assert day_words(date(2027, 1, 1), "en", TUESDAY) == "Fri 1 Jan 2027"
    assert translation.get_language() in (None, "en", "en-us")  # nothing leaks out of the override


@pytest.mark.parametrize("text, lines, day", [
    ("12/15 前要兩台筆電", [("Laptop", 2)], "2026-12-15"),
    ("椅子壞了，12/15 前需要兩張", [("Office chair", 2)], "2026-12-15"),
    ("我需要兩台筆電，下週三前", [("Laptop", 2)], "2026-12-09"),
    ("I need 3 monitors by 12/20", [("Monitor", 3)], "2026-12-20"),
    ("2 keyboards before Dec 15", [("Keyboard", 2)], "2026-12-15"),
])
def test_a_date_is_never_a_quantity(text, lines, day):
    found = extract(text, CATALOGUE, today=TUESDAY)
    assert found.lines == lines and found.needed_by == day


def test_changing_the_day_is_not_a_quantity_change():
    found = extract("改成 12/20", CATALOGUE, today=TUESDAY)
    assert found.needed_by == "2026-12-20" and found.quantity_change is None
    found = extract("change it to next Friday", CATALOGUE, today=TUESDAY)
    assert found.needed_by == "2026-12-11" and found.quantity_change is None and not found.unknown


def test_a_deadline_is_no_purpose_and_no_unknown_item():
    found = extract("I need 2 laptops, I need them by Friday", CATALOGUE, today=TUESDAY)
    assert found.justification == "" and found.unknown == "" and found.needed_by == "2026-12-04"
    found = extract("下週要用", CATALOGUE, today=TUESDAY, expects="justification")
    assert found.justification == "" and found.needed_by == "2026-12-07" and found.any()


def test_a_day_gone_by_is_kept_as_her_words_not_as_a_day():
    found = extract("我需要兩台螢幕，11/20 前要", CATALOGUE, today=TUESDAY)
    assert found.needed_by == "" and found.past_date == "11/20 前" and found.lines == [("Monitor", 2)]


@pytest.mark.parametrize("text, reason", [
    ("我的椅子壞了", "broken"), ("螢幕故障，需要一台新的", "broken"), ("筆電不能用了", "broken"),
    ("鍵盤壞掉", "broken"), ("my chair is broken", "broken"), ("my laptop stopped working", "broken"),
    ("new hire needs a chair", "new_hire"), ("新同事要一張椅子", "new_hire"),
])
def test_why_said_with_the_item_is_a_reason(text, reason):
    found = extract(text, CATALOGUE, today=TUESDAY)
    assert found.reason == reason


def test_a_stated_purpose_wins_over_a_reason():
    found = extract("2 monitors for the new hires", CATALOGUE, today=TUESDAY)
    assert found.justification == "the new hires" and found.reason == ""


@pytest.mark.parametrize("text, lines", [
    ("椅子壞了，需要兩張", [("Office chair", 2)]),
    ("我需要椅子，兩張", [("Office chair", 2)]),
    ("兩台螢幕，三個鍵盤", [("Monitor", 2), ("Keyboard", 3)]),
])
def test_a_count_said_apart_from_its_one_item_is_that_items_count(text, lines):
    found = extract(text, CATALOGUE, today=TUESDAY)
    assert found.lines == lines and found.unknown == ""

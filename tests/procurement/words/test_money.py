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
    ("1234500.00", "NT$1,234,500", "NT$1,234,500\u2060（123.45\u00a0萬）"),
    ("100000", "NT$100,000", "NT$100,000\u2060（10\u00a0萬）"),
    # a department's budget runs to thousands of 萬, grouped like the dollars
    ("19890100", "NT$19,890,100", "NT$19,890,100\u2060（1,989.01\u00a0萬）"),
    # a negative sum has its sign before the currency and in the 萬 part
    ("-198115", "-NT$198,115", "-NT$198,115\u2060（-19.81\u00a0萬）"),
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


def test_a_sum_in_wan_holds_together_in_a_sentence():
    """A line never breaks inside an amount (issue 27, 13): no ordinary space in it, a no-break
    space before 萬 and a word joiner before its parenthesis, also once a sentence is made of it."""
    from procurement.words import render, say

    with translation.override("zh-hant"):
        amount = ntd("1050000")
        sentence = render(say("budget_reserved", total="1050000"))
    assert " " not in amount and amount == "NT$1,050,000\u2060（105\u00a0萬）"
    assert amount in sentence, sentence


@pytest.mark.parametrize("language, shown", [("zh-hant", "NT$513,030\u2060（51.3\u00a0萬）"), ("en", "NT$513,030")])
def test_a_page_keeps_an_amount_in_a_nowrap_span_and_mail_keeps_it_plain(language, shown):
    from django.template import engines

    django_templates = engines["django"]
    sentence = "{% load money %}總額 {{ total|ntd }}（含稅）"
    with translation.override(language):
        page = django_templates.from_string(sentence).render({"total": "513030"})
        mail = django_templates.from_string("{% autoescape off %}" + sentence + "{% endautoescape %}").render(
            {"total": "513030"})
    assert page == f'總額 <span class="money">{shown}</span>（含稅）'
    assert mail == f"總額 {shown}（含稅）"

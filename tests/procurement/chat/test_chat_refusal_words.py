"""A coded refusal that reaches the chat reads in the reader's language, from the words layer
(procurement.words.refusal), as pages and the API read it: never the raise site's English."""
import re
from types import SimpleNamespace

import pytest

from agentstate.errors import Conflict
from agentstate.said import say as said_code
from procurement.chat.dispose import _refusal
from procurement.words import refusal
from procurement.words.phrases import language

pytestmark = pytest.mark.django_db


def job(lang: str):
    return SimpleNamespace(lang=lang, session=SimpleNamespace(task=None))


def test_a_coded_refusal_reads_in_chinese_in_a_chinese_conversation():
    exc = Conflict(said=said_code("request_closed", state="cancelled"))
    out = _refusal(job("zh"), exc)
    assert out.outcome == "refused" and out.did == "none"
    with language("zh"):
        worded = refusal(exc)
    assert worded in out.reply and re.search(r"[\u4e00-\u9fff]", worded), out.reply
    assert not re.search(r"[A-Za-z]{3,}", out.reply), out.reply  # no English word: not str(exc)
    assert out.reason.rstrip(".") == str(exc).rstrip(".")  # the record keeps the raise site's sentence


def test_the_same_refusal_reads_in_english_in_an_english_conversation():
    exc = Conflict(said=said_code("request_closed", state="cancelled"))
    out = _refusal(job("en"), exc)
    assert out.reply.startswith("I can't do that:") and "Nothing was changed." in out.reply, out.reply

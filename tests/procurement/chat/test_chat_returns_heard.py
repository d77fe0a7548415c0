"""What the hearing takes from a return (退貨): how many go back and why, and what is no return."""
import pytest

from procurement.chat.normalise import normalise
from procurement.chat.returns import returned


@pytest.mark.parametrize("text, count, reason", [
    ("退一台螢幕，尺寸不對", 1, "wrong_item"),
    ("有一張椅子要退貨，壞了", 1, "damaged"),
    ("螢幕退回兩台", 2, "other"),
    ("I need to return one monitor, wrong item", 1, "wrong_item"),
    ("send back 2 chairs, damaged", 2, "damaged"),
    ("we're sending 3 monitors back, they don't fit", 3, "wrong_item"),
])
def test_a_return_is_heard_with_its_count_and_reason(text, count, reason):
    found = returned(normalise(text))
    assert (found.count, found.reason) == (count, reason)


@pytest.mark.parametrize("text", ["螢幕那張為什麼被退回？", "why was the other one returned?", "the monitors arrived",
                                  "can I return a monitor?", "兩台螢幕到了"])
def test_a_question_or_a_request_sent_back_to_her_is_no_return(text):
    assert returned(normalise(text)) is None

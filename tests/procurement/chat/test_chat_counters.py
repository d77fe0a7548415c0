"""The chat asks "how many" with the counter Chinese uses for the item: 幾台 laptops, 幾張 chairs."""
import pytest

from tests.procurement.chat.support import no_memory_store, open_session, talk  # noqa: F401

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("no_memory_store")]


@pytest.mark.parametrize("said, asked", [("我要買辦公椅", "辦公椅需要幾張？"), ("我需要筆電", "筆電需要幾台？"),
                                         ("我需要鍵盤", "鍵盤需要幾個？"), ("I need office chairs", "How many office chairs")])
def test_how_many_is_asked_with_the_items_counter(demo, said, asked):
    reply = talk(open_session(demo["alice"]), demo["alice"], said).reply
    assert asked in reply and "（個）" not in reply


@pytest.mark.parametrize("said, what", [("我要買一些杯子", "「杯子」"), ("我想買三個馬克杯", "「馬克杯」")])
def test_something_nobody_quotes_is_named_as_she_said_and_the_catalogue_in_her_language(demo, said, what):
    reply = talk(open_session(demo["alice"]), demo["alice"], said).reply
    assert reply.startswith(what + "目前沒有報價")
    assert "可以買的有：鍵盤、筆電、螢幕、辦公椅、USB-C 擴充座。" in reply


def test_in_english_the_catalogue_stays_english(demo):
    reply = talk(open_session(demo["alice"]), demo["alice"], "I want to buy some mugs").reply
    assert 'We have no quote for "mugs"' in reply and "Laptop" in reply and "筆電" not in reply

"""The catalogue's words and the departments are data: an alias, an item or a department an admin
adds is heard in the next chat message, in English and in Chinese, with no cache to clear in this
process or any other."""
from datetime import timedelta
from decimal import Decimal

import pytest
from django.test import Client
from django.utils import timezone

from procurement.models import CatalogueItem, Department, ItemAlias, Membership, Quote, Supplier
from procurement.people.language import user_language_set
from tests.procurement.chat.support import draft_of, no_memory_store, open_session, talk  # noqa: F401

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("no_memory_store")]


def admin_adds_alias(demo, item: str, words: str, language: str):
    client = Client()
    client.force_login(demo["carol"])
    page = client.post("/admin/procurement/itemalias/add/",
                       {"item": CatalogueItem.objects.get(name=item).pk, "words": words, "language": language})
    assert page.status_code == 302, page.content.decode()[:2000]


def drafted(demo, text: str, lang: str) -> dict:
    alice = demo["alice"]
    user_language_set(user=alice, language=lang)
    session = open_session(alice)
    talk(session, alice, text)
    return draft_of(session)


def items_drafted(demo, text: str, lang: str) -> list:
    return [(line["description"], line["quantity"]) for line in drafted(demo, text, lang).get("lines") or []]


@pytest.mark.parametrize("item, words, language, said, lang", [
    ("Monitor", "panel", "en", "I need 2 panels for the new hires", "en"),
    ("Laptop", "手提電腦", "zh", "我需要兩台手提電腦，新人報到用", "zh"),
])
def test_an_alias_added_in_the_admin_is_heard_in_the_next_message(demo, item, words, language, said, lang):
    assert (item, 2) not in items_drafted(demo, said, lang)
    admin_adds_alias(demo, item, words, language)
    assert items_drafted(demo, said, lang) == [(item, 2)]


@pytest.mark.parametrize("said, lang", [("3 webcams for the meeting rooms", "en"),
                                        ("會議室要三個視訊鏡頭", "zh")])
def test_an_item_added_with_its_words_and_a_quote_is_bought_in_chat(demo, said, lang):
    # Written straight to the tables, as another process would: no signal in this one is told.
    webcam = CatalogueItem.objects.create(name="Webcam", category="computers")
    ItemAlias.objects.bulk_create([ItemAlias(item=webcam, words="webcam", language="en"),
                                   ItemAlias(item=webcam, words="視訊鏡頭", language="zh")])
    Quote.objects.create(supplier=Supplier.objects.first(), item="Webcam", unit_price=Decimal("1200"),
                         valid_until=timezone.localdate() + timedelta(days=30), lead_time_days=5)
    assert items_drafted(demo, said, lang) == [("Webcam", 3)]


def test_an_alias_deleted_in_the_admin_is_no_longer_heard(demo):
    assert items_drafted(demo, "two notebooks for the new hires", "en") == [("Laptop", 2)]
    ItemAlias.objects.filter(words="notebook").delete()
    assert ("Laptop", 2) not in items_drafted(demo, "two notebooks for the new hires", "en")


@pytest.mark.parametrize("said, lang", [("I need 2 monitors for the Legal team", "en"),
                                        ("法務部需要兩台螢幕", "zh")])
def test_a_department_added_is_heard_in_the_next_message(demo, said, lang):
    # She files for Engineering only: a department nobody has is not heard, and the draft is hers.
    assert drafted(demo, said, lang).get("department") == "ENG"
    # Written straight to the tables, as the admin in another process would: no signal here is told.
    legal, = Department.objects.bulk_create([Department(code="LEGAL", name="Legal" if lang == "en" else "法務部",
                                                        cost_centre="LEG-01", budget_total=500000)])
    Membership.objects.bulk_create([Membership(user=demo["alice"], department=legal, role="requester")])
    draft = drafted(demo, said, lang)
    assert draft.get("department") == "LEGAL" and [line["description"] for line in draft["lines"]] == ["Monitor"]

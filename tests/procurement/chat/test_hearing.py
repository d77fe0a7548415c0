"""The hearing's ground: a message made plain once on entry (chat/normalise.py), and the
departments heard from the database (chat/vocabulary.py), so one added in the admin is
understood in the next message."""
from decimal import Decimal

import pytest

from procurement.chat.extract import extract
from procurement.chat.normalise import normalise
from procurement.chat.runtime import chat_turn
from procurement.models import Department, Membership
from tests.procurement.chat.support import no_memory_store, open_session  # noqa: F401

CATALOGUE = ("Keyboard", "Laptop", "Monitor", "Office chair", "USB-C dock")


@pytest.mark.parametrize("said, plain", [
    ("我需要一萬零一台螢幕，展場用", "我需要10001台螢幕，展場用"),
    ("兩張椅子", "2張椅子"),
    ("一打鍵盤", "12個鍵盤"),
    ("半打滑鼠", "6個滑鼠"),
    ("兩打鍵盤", "24個鍵盤"),
    ("收到兩打", "收到24個"), ("只來了一打。", "只來了12個。"),  # a dozen at the end of what she says
    ("請幫我打", "請幫我打"),                     # 打 with no count before it, at the end: a verb
    ("廿個鍵盤", "20個鍵盤"),
    ("十二台螢幕", "12台螢幕"),
    ("預算三千五", "預算3500"),
    ("預算三萬含稅", "預算3萬含稅"),             # a sum in 萬 keeps its scale: still money
    ("ｉ７筆電２台，預算ＮＴ＄５萬", "i7筆電2台，預算NT$5萬"),  # full-width, the Chinese comma kept
    ("我要两台笔电", "我要2台筆電"),              # simplified forms read as Traditional
    ("要一台筆電一個螢幕一個鍵盤", "要1台筆電、1個螢幕、1個鍵盤"),
    ("筆電3台螢幕2台", "筆電3台、螢幕2台"),        # each count after its item: separate lines too
    ("筆電3台給新人2台給小華", "筆電3台給新人2台給小華"),  # who gets them: left as it is
    ("我要筆電、螢幕、鍵盤各一個", "我要筆電1個、螢幕1個、鍵盤1個"),  # one count for every item named
    ("給三個部門各一台螢幕", "給3個部門各1台螢幕"),  # a count of its own in the list: left as it is
    ("各部門都要", "各部門都要"),
    ("I need a laptop, a monitor and a keyboard, one each", "I need 1 laptop, 1 monitor, 1 keyboard"),
    ("I want two each", "I want 2 each"),
    ("等一下", "等一下"), ("第一個", "第一個"), ("最後一個", "最後一個"), ("上一張請購到哪了", "上一張請購到哪了"),
    ("千萬不要送出", "千萬不要送出"), ("十分感謝", "十分感謝"), ("一起買", "一起買"),
])
def test_a_message_is_made_plain_once(said, plain):
    assert normalise(said) == plain


@pytest.mark.parametrize("said, lines, budget", [
    ("我需要一萬零一台螢幕，展場用", [("Monitor", 10001)], None),  # a count, never NT$10,000
    ("要一台筆電一個螢幕一個鍵盤", [("Laptop", 1), ("Monitor", 1), ("Keyboard", 1)], None),
    ("三千五以內的鍵盤兩個", [("Keyboard", 2)], Decimal("3500")),
    ("兩台螢幕，預算三萬五", [("Monitor", 2)], Decimal("35000")),
])
def test_what_the_plain_message_says(said, lines, budget):
    found = extract(normalise(said), CATALOGUE)
    assert (found.lines, found.budget) == (lines, budget)


@pytest.mark.django_db
def test_a_department_added_in_the_admin_is_heard_at_once(demo):
    assert extract("2 laptops for Legal", CATALOGUE).department is None
    Department.objects.create(code="LEG", name="Legal", cost_centre="LEG-01", budget_total=Decimal("100000"))
    assert extract("2 laptops for Legal", CATALOGUE).department == "LEG"
    assert extract("法務部要兩台筆電", CATALOGUE).department is None
    Department.objects.create(code="LAW", name="法務部", cost_centre="LAW-01", budget_total=Decimal("100000"))
    assert extract("法務部要兩台筆電", CATALOGUE).department == "LAW"


@pytest.mark.django_db
def test_a_short_code_is_heard_only_as_written(demo):
    Department.objects.create(code="IT", name="IT", cost_centre="IT-01", budget_total=Decimal("100000"))
    assert extract("2 monitors for IT", CATALOGUE).department == "IT"
    assert extract("cancel it", CATALOGUE).department is None


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("no_memory_store")
def test_a_new_department_is_understood_in_chat(demo, erp, eager):
    legal = Department.objects.create(code="LEG", name="Legal", cost_centre="LEG-01", budget_total=Decimal("900000"))
    alice = demo["alice"]
    Membership.objects.create(user=alice, department=legal, role=Membership.Role.REQUESTER)
    result = chat_turn(session=open_session(alice), user=alice, text="2 laptops for the Legal team, for the audit")
    assert result.task.data["draft"]["department"] == "LEG"

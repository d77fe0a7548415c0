"""Where a request stands after its PO (DESIGN §16, §14): her home and the request page say it in
words and per line, in both languages; she is told when someone else records her goods."""
import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from agentstate.models import Session
from procurement.models import Membership, Notice
from procurement.receiving.services import goods_receipt_record, purchase_order_close_short

from tests.procurement.receiving.support import ordered

pytestmark = pytest.mark.django_db(transaction=True)


def page(user, name, language, *args):
    client = Client()
    client.force_login(user)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    answer = client.get(reverse(name, args=args))
    assert answer.status_code == 200
    return answer.content.decode()


def receive(demo, task, accepted, who="alice"):
    goods_receipt_record(task_id=task.pk, user=demo[who], lines=[{"line": 0, "accepted": accepted}])


@pytest.mark.parametrize("language, ordered_words, partly, full, closed", [
    ("zh-hant", "已下單，等待到貨", "部分到貨（2/3）", "已驗收，等待發票", "已結案"),
    ("en", "Ordered, waiting for delivery", "Partly delivered (2/3)", "Received, waiting for the invoice", "Closed"),
])
def test_her_home_says_how_far_the_goods_came(demo, erp, eager, language, ordered_words, partly, full, closed):
    task = ordered(demo)
    assert ordered_words in page(demo["alice"], "my-requests", language)
    receive(demo, task, 2)
    home = page(demo["alice"], "my-requests", language)
    assert partly in home
    assert ("螢幕：訂購 3，已到 2，已開發票 0" if language == "zh-hant" else "Monitor: ordered 3, received 2, invoiced 0") in home
    receive(demo, task, 1)
    assert full in page(demo["alice"], "my-requests", language)
    other = ordered(demo)
    purchase_order_close_short(task_id=other.pk, user=demo["bob"], reason="out of stock")
    assert closed in page(demo["alice"], "my-requests", language)


def test_the_request_page_shows_per_line_ordered_received_and_invoiced(demo, erp, eager):
    task = ordered(demo, lines=[{"description": "Monitor", "quantity": 3}, {"description": "Keyboard", "quantity": 2}])
    goods_receipt_record(task_id=task.pk, user=demo["alice"],
                         lines=[{"line": 0, "accepted": 2, "rejected": 1, "reason": "damaged"}])
    body = page(demo["alice"], "task-page", "zh-hant", task.pk)
    assert "部分到貨（2/5）" in body and "到貨" in body
    row = body.split('data-line="0"')[1].split("</tr>")[0]
    assert [cell.split(">")[-1] for cell in row.split("</td>")[1:5]] == ["3", "2", "1", "0"]
    assert body.split('data-line="1"')[1].split("</tr>")[0].count(">0<") == 3


def test_she_is_told_when_a_colleague_records_her_goods_and_not_when_she_does(demo, erp, eager):
    task = ordered(demo)
    receive(demo, task, 1)
    assert not Notice.objects.filter(recipient=demo["alice"], kind="goods_received").exists()
    Membership.objects.create(user=demo["erin"], department=task.purchase_request.department, role="requester")
    receive(demo, task, 1, who="erin")
    notice = Notice.objects.get(recipient=demo["alice"], kind="goods_received")
    assert "部分到貨（2/3）" in notice.texts["zh-hant"] and "Partly delivered (2/3)" in notice.texts["en"]


def test_her_conversation_reads_ended_only_once_the_request_is_closed(demo, erp, eager):
    task = ordered(demo)
    session = Session.objects.create(owner=demo["alice"], task=task)
    receive(demo, task, 3)
    for language, ended in (("zh-hant", "已結束：請購單已結案"), ("en", "Closed: its request ended")):
        assert ended not in page(demo["alice"], "task-page", language, task.pk)
        assert ended not in page(demo["alice"], "chat-page", language, session.pk)
    other = ordered(demo)
    Session.objects.create(owner=demo["alice"], task=other)
    purchase_order_close_short(task_id=other.pk, user=demo["bob"], reason="out of stock")
    assert "已結束：請購單已結案" in page(demo["alice"], "task-page", "zh-hant", other.pk)


@pytest.mark.parametrize("language, received, returned", [
    ("zh-hant", "螢幕：允收 2、拒收 1（損壞）", "螢幕：退貨 1（品項錯誤）"),
    ("en", "Monitor: 2 accepted, 1 rejected (damaged)", "Monitor: 1 returned (wrong item)"),
])
def test_the_timeline_says_how_many_of_each_item_were_accepted_rejected_or_returned(demo, erp, eager, language,
                                                                                    received, returned):
    task = ordered(demo)
    goods_receipt_record(task_id=task.pk, user=demo["alice"],
                         lines=[{"line": 0, "accepted": 2, "rejected": 1, "reason": "damaged"}])
    goods_receipt_record(task_id=task.pk, user=demo["alice"],
                         lines=[{"line": 0, "accepted": -1, "reason": "wrong_item"}])
    body = page(demo["alice"], "task-page", language, task.pk)
    assert received in body and returned in body

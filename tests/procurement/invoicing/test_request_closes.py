"""A request closes on its own (DESIGN §16): once every monitor is received and every invoice on
its PO is matched and posted, the task ends `closed` through the engine's `complete` move, and its
timeline says so in both languages. Until then it stays `externally_confirmed`."""
import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from agentstate.models import Receipt, Task
from agentstate.recovery import recovery_pass
from tests.procurement.invoicing.support import invoice_body, ordered
from tests.procurement.receiving.support import client_for, receipts_url

pytestmark = pytest.mark.django_db(transaction=True)
URL = "/api/v1/invoices/"


@pytest.fixture
def task(demo, erp, eager):
    return ordered(demo["alice"], demo["bob"])


def receive(demo, task, accepted):
    answer = client_for(demo["alice"]).post(receipts_url(task), {"lines": [{"line": 0, "accepted": accepted}]},
                                            format="json")
    assert answer.status_code == 201, answer.json()


def enter(demo, task, **overrides) -> dict:
    answer = client_for(demo["carol"]).post(URL, invoice_body(task, **overrides), format="json")
    assert answer.status_code == 201, answer.json()
    return answer.json()


def state_of(task) -> str:
    return Task.objects.get(pk=task.pk).state


def events(task) -> list[str]:
    return list(Task.objects.get(pk=task.pk).events.order_by("version").values_list("event", flat=True))


def timeline(user, task, language) -> str:
    client = Client()
    client.force_login(user)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    return client.get(reverse("task-page", args=[task.pk])).content.decode()


def test_the_last_invoice_posted_for_goods_all_received_closes_the_request(demo, task):
    receive(demo, task, 3)
    assert state_of(task) == "externally_confirmed"

    body = enter(demo, task)

    assert body["status"] == "posted"
    assert state_of(task) == "closed"
    assert events(task).count("complete") == 1
    assert "結案：已驗收、已開發票並核對相符" in timeline(demo["alice"], task, "zh-hant")
    assert "Closed: received, invoiced and matched" in timeline(demo["alice"], task, "en")
    body = client_for(demo["alice"]).get(f"/api/v1/tasks/{task.pk}/").json()
    assert body["state"] == "closed" and body["receipt_status"] == "full" and body["billing_status"] == "full"
    assert [line["invoiced"] for line in body["lines"]] == [3]


def test_it_stays_open_while_part_is_unbilled_or_undelivered_and_closes_when_the_goods_complete_it(demo, task):
    po_line = invoice_body(task)["lines"][0]
    receive(demo, task, 2)
    two = enter(demo, task, number="AB00000001", lines=[po_line | {"quantity": 2}],
                subtotal="12800.00", tax="640.00", total="13440.00")
    assert two["status"] == "posted" and state_of(task) == "externally_confirmed"

    one = enter(demo, task, number="AB00000002", lines=[po_line | {"quantity": 1}],
                subtotal="6400.00", tax="320.00", total="6720.00")
    assert one["status"] == "waiting_receipt" and state_of(task) == "externally_confirmed"

    receive(demo, task, 1)  # the last monitor: the waiting invoice is matched, posted, and that is all

    assert state_of(task) == "closed" and events(task).count("complete") == 1
    answer = client_for(demo["alice"]).post(receipts_url(task), {"lines": [{"line": 0, "accepted": -1,
                                                                           "reason": "damaged"}]}, format="json")
    assert answer.status_code == 409


def test_a_goods_receipt_whose_answer_was_lost_closes_the_request_once_recovery_settles_it(demo, erp, task):
    # The ERP commits the goods receipt and drops its answer, and the lookup by key fails too: `unknown`.
    erp.fault(mode="drop", path="/goods-receipts", method="POST", times=1)
    erp.fault(mode="error", path="/goods-receipts", method="GET", times=1)
    receive(demo, task, 3)
    posting = Receipt.objects.get(task=task, operation="erp.goods_receipt.post")
    assert posting.status == "unknown"
    assert enter(demo, task)["status"] == "posted"
    assert state_of(task) == "externally_confirmed", "a posting still in doubt keeps the request open"

    report = recovery_pass(receipt_grace_seconds=0)

    assert posting.pk in report.receipts_settled
    assert Receipt.objects.get(pk=posting.pk).status == "confirmed"
    assert state_of(task) == "closed" and events(task).count("complete") == 1
    assert len(erp.goods_receipts()) == 1, "found by its key, never posted twice"
    recovery_pass(receipt_grace_seconds=0)
    assert events(task).count("complete") == 1 and len(erp.goods_receipts()) == 1


def test_an_invoice_posting_whose_answer_was_lost_is_posted_and_closes_the_request_once_recovery_settles_it(
        demo, erp, task):
    receive(demo, task, 3)
    erp.fault(mode="drop", path="/supplier-invoices", method="POST", times=1)
    erp.fault(mode="error", path="/supplier-invoices", method="GET", times=1)
    body = enter(demo, task)
    posting = Receipt.objects.get(task=task, operation="erp.supplier_invoice.post")
    assert posting.status == "unknown" and body["status"] == "matched"
    assert state_of(task) == "externally_confirmed"

    recovery_pass(receipt_grace_seconds=0)

    assert Receipt.objects.get(pk=posting.pk).status == "confirmed"
    invoice = client_for(demo["carol"]).get(f"{URL}{body['id']}/").json()
    assert invoice["status"] == "posted"
    assert state_of(task) == "closed" and events(task).count("complete") == 1
    recovery_pass(receipt_grace_seconds=0)
    assert events(task).count("complete") == 1

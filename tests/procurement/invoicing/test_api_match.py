"""The three-way match over the API (DESIGN §16): an invoice for what arrived is matched and
posted to the ERP once, with no one else; one ahead of the goods waits and is posted when they
arrive; one billing what was rejected is an exception and nothing is posted. Each ERP write
exactly once, the simulator dropping its answer after it committed."""
import pytest

from agentstate.models import Receipt
from procurement.infra import erp as erp_client
from tests.procurement.invoicing.support import invoice_body, ordered
from tests.procurement.receiving.support import client_for, receipts_url

pytestmark = pytest.mark.django_db(transaction=True)
URL = "/api/v1/invoices/"


@pytest.fixture
def task(demo, erp, eager):
    return ordered(demo["alice"], demo["bob"])


def receive(demo, task, accepted, rejected=0, reason=""):
    line = {"line": 0, "accepted": accepted} | ({"rejected": rejected, "reason": reason} if rejected else {})
    answer = client_for(demo["alice"]).post(receipts_url(task), {"lines": [line]}, format="json")
    assert answer.status_code == 201, answer.json()


def enter(demo, task, **overrides) -> dict:
    answer = client_for(demo["carol"]).post(URL, invoice_body(task, **overrides), format="json")
    assert answer.status_code == 201, answer.json()
    return answer.json()


def read(demo, body) -> dict:
    return client_for(demo["carol"]).get(URL + body["id"] + "/").json()


def erp_invoices(erp) -> list[dict]:
    return erp_client.ErpClient(erp.url, 2).list_supplier_invoices()


def test_an_invoice_for_what_arrived_is_matched_and_posted_once_though_the_answer_is_lost(demo, task, erp):
    receive(demo, task, 3)
    erp.fault(mode="drop", path="/supplier-invoices", method="POST", times=1)

    body = enter(demo, task)

    assert body["status"] == "posted" and body["exceptions"] == [] and body["erp_status"] == "confirmed"
    [stored] = erp_invoices(erp)
    assert stored["external_ref"] == body["id"] and stored["total"] == "20160.00"
    assert Receipt.objects.filter(operation=erp_client.POST_SUPPLIER_INVOICE).count() == 1


def test_an_invoice_ahead_of_the_goods_waits_and_is_posted_once_when_the_rest_arrives(demo, task, erp):
    body = enter(demo, task)
    assert body["status"] == "waiting_receipt"

    receive(demo, task, 2)
    assert read(demo, body)["status"] == "waiting_receipt" and erp_invoices(erp) == []

    receive(demo, task, 1)
    assert read(demo, body)["status"] == "posted"
    [stored] = erp_invoices(erp)
    assert stored["external_ref"] == body["id"]
    assert len(erp.goods_receipts()) == 2


def test_billing_a_rejected_monitor_is_an_exception_and_nothing_is_posted(demo, task, erp):
    receive(demo, task, 2, rejected=1, reason="damaged")

    body = enter(demo, task)

    assert body["status"] == "exception" and body["erp_status"] == "none"
    [variance] = body["exceptions"]
    assert {k: variance[k] for k in ("kind", "line", "expected", "actual", "amount")} == {
        "kind": "quantity_over_received", "line": 0, "expected": "2", "actual": "3", "amount": "6720.00"}
    receive(demo, task, 1)  # a replacement arriving later does not post an invoice someone must decide on
    assert read(demo, body)["status"] == "exception"
    assert erp_invoices(erp) == []


def test_a_price_above_the_po_beyond_tolerance_is_a_price_variance(demo, task, erp):
    receive(demo, task, 3)
    lines = [{"line": 0, "quantity": 3, "unit_price": "6500.00"}]
    body = enter(demo, task, lines=lines, subtotal="19500.00", tax="975.00", total="20475.00")

    assert body["status"] == "exception"
    assert [(v["kind"], v["expected"], v["actual"]) for v in body["exceptions"]] == [
        ("price_variance", "6400.00", "6500.00")]
    assert erp_invoices(erp) == []

"""`POST/GET /api/v1/invoices/` (DESIGN §16): accounts payable enters a supplier invoice against a
PO; field errors in her language with nothing written; the same seller and number twice is 409,
whatever the PO; a requester may not enter one."""
import datetime

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from procurement.models.invoicing import SupplierInvoice
from procurement.invoicing.po import purchase_order_of
from tests.procurement.invoicing.support import invoice_body, ordered
from tests.procurement.invoicing.test_einvoice_qr import left_text

pytestmark = pytest.mark.django_db(transaction=True)
URL = "/api/v1/invoices/"


def client_for(user, language="en") -> APIClient:
    client = APIClient(headers={"accept-language": language})
    client.force_authenticate(user)
    return client


@pytest.fixture
def task(demo, erp, eager):
    return ordered(demo["alice"], demo["bob"])


def test_accounts_payable_enters_an_invoice_and_it_waits_for_the_goods(demo, task):
    answer = client_for(demo["carol"]).post(URL, invoice_body(task), format="json")

    assert answer.status_code == 201, answer.json()
    body = answer.json()
    assert body["status"] == "waiting_receipt" and body["exceptions"] == [] and body["approval"] is None
    assert body["number"] == "AB12345678" and body["task"] == str(task.pk)
    assert (body["subtotal"], body["tax"], body["total"]) == ("19200.00", "960.00", "20160.00")
    assert body["lines"] == [{"line": 0, "quantity": 3, "unit_price": "6400.00", "amount": "19200.00"}]
    assert body["erp_status"] == "none" and body["entered_by"] == "carol"
    assert client_for(demo["carol"]).get(URL + body["id"] + "/").json()["id"] == body["id"]


def test_the_qr_text_fills_in_the_number_date_tax_id_and_amounts(demo, task):
    seller = purchase_order_of(task).supplier.tax_id
    qr = left_text(number="CD87654321", roc_date="1150316", subtotal=19200, total=20160, seller=seller)
    body = {"task": str(task.pk), "qr": qr, "lines": [{"line": 0, "quantity": 3, "unit_price": "6400"}]}

    answer = client_for(demo["carol"]).post(URL, body, format="json")

    assert answer.status_code == 201, answer.json()
    invoice = SupplierInvoice.objects.get()
    assert (invoice.number, invoice.date, invoice.seller_tax_id) == ("CD87654321", datetime.date(2026, 3, 16), seller)
    assert (invoice.subtotal, invoice.tax, invoice.total, invoice.buyer_tax_id) == (19200, 960, 20160, "24549210")


def test_the_same_seller_and_number_twice_is_409_even_against_another_po(demo, task):
    other = ordered(demo["alice"], demo["bob"])
    carol = client_for(demo["carol"])
    assert carol.post(URL, invoice_body(task), format="json").status_code == 201

    again = carol.post(URL, invoice_body(other), format="json")

    assert again.status_code == 409 and "AB12345678" in again.json()["detail"]
    assert SupplierInvoice.objects.count() == 1


@pytest.mark.parametrize("changes, field, words", [
    ({"number": "ab1234567"}, "number", "two capital letters and eight digits"),
    ({"seller_tax_id": "62140098"}, "seller_tax_id", "check digit does not match"),
    ({"seller_tax_id": "62140097"}, "seller_tax_id", "is not the tax ID (統一編號) of this purchase order's supplier"),
    ({"date": "2026-02-30"}, "date", "real date"),
    ({"total": "20000.00"}, "total", "is NT$20,160, not"),
    ({"lines": [{"line": 5, "quantity": 1, "unit_price": "1"}]}, "lines.0.line", "no such line"),
])
def test_each_bad_field_is_a_400_naming_it_and_nothing_is_written(demo, task, changes, field, words):
    answer = client_for(demo["carol"]).post(URL, invoice_body(task, **changes), format="json")

    assert answer.status_code == 400
    assert words in answer.json()["errors"][field][0], answer.json()
    assert not SupplierInvoice.objects.exists()


def test_errors_read_in_chinese_for_a_chinese_reader(demo, task):
    body = invoice_body(task, number="AB123", date="2026-13-01", seller_tax_id="12345678")
    errors = client_for(demo["carol"], "zh-hant").post(URL, body, format="json").json()["errors"]

    assert errors["number"] == ["發票號碼是兩個大寫英文字母加八位數字，例如 AB12345678。"]
    assert errors["seller_tax_id"] == ["12345678 不是有效的統一編號：檢查碼不符。"]
    assert "日期" in errors["date"][0]


def test_a_date_after_today_is_impossible(demo, task):
    tomorrow = (timezone.localdate() + datetime.timedelta(days=1)).isoformat()
    answer = client_for(demo["carol"]).post(URL, invoice_body(task, date=tomorrow), format="json")
    assert answer.status_code == 400 and "date" in answer.json()["errors"]


def test_a_requester_may_not_enter_invoices_and_an_outsider_cannot_see_the_request(demo, task):
    assert client_for(demo["alice"]).post(URL, invoice_body(task), format="json").status_code == 403
    assert client_for(demo["erin"]).post(URL, invoice_body(task), format="json").status_code == 404
    assert not SupplierInvoice.objects.exists()


def test_a_requester_sees_the_invoices_of_her_own_requests_only(demo, task):
    client_for(demo["carol"]).post(URL, invoice_body(task), format="json")
    assert client_for(demo["alice"]).get(URL).json()["count"] == 1
    assert client_for(demo["erin"]).get(URL).json()["count"] == 0


def test_before_the_po_is_issued_there_is_nothing_to_invoice(demo, erp, eager):
    from procurement.purchase import services

    waiting = services.request_submit(requester=demo["alice"], department="ENG", justification="desk",
                                      lines=[{"description": "Monitor", "quantity": 1}])
    answer = client_for(demo["carol"]).post(URL, invoice_body_without_po(waiting), format="json")
    assert answer.status_code == 409


def invoice_body_without_po(task) -> dict:
    return {"task": str(task.pk), "number": "AB12345678", "date": "2026-03-15", "seller_tax_id": "62140097",
            "lines": [{"line": 0, "quantity": 1, "unit_price": "6400"}], "subtotal": "6400", "tax": "320",
            "total": "6720"}


def test_an_e_invoice_issued_to_another_buyer_is_refused_on_the_qr_field(demo, task):
    seller = purchase_order_of(task).supplier.tax_id
    body = {"task": str(task.pk), "qr": left_text(buyer="22099131", seller=seller),
            "lines": [{"line": 0, "quantity": 3, "unit_price": "6400"}]}

    answer = client_for(demo["carol"], "zh-hant").post(URL, body, format="json")

    assert answer.status_code == 400
    assert answer.json()["errors"]["qr"] == ["這張電子發票的買方統一編號是 22099131，不是本公司的 24549210。"]
    assert not SupplierInvoice.objects.exists()

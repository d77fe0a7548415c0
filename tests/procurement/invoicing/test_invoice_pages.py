"""Accounts payable's pages: the list, the form typed or filled from the QR code (htmx), field
errors in her language with nothing written, and a requester refused."""
import pytest
from django.test import Client
from django.urls import reverse

from procurement.models.invoicing import SupplierInvoice
from procurement.invoicing.po import purchase_order_of
from tests.procurement.invoicing.support import ordered
from tests.procurement.page_text import page
from tests.procurement.invoicing.test_einvoice_qr import left_text, photo_of

pytestmark = pytest.mark.django_db(transaction=True)
HX = {"HTTP_HX_REQUEST": "true"}


def client_for(user, language="zh-hant", csrf=False) -> Client:
    client = Client(enforce_csrf_checks=csrf, headers={"accept-language": language})
    client.force_login(user)
    return client


@pytest.fixture
def task(demo, erp, eager):
    return ordered(demo["alice"], demo["bob"])


def typed(task, **changes) -> dict:
    po = purchase_order_of(task)
    return {"number": "AB12345678", "date": "2026-03-15", "seller_tax_id": po.supplier.tax_id, "subtotal": "19200",
            "tax": "960", "total": "20160", "line_0_quantity": "3", "line_0_unit_price": "6400"} | changes


def test_carol_sees_the_po_to_invoice_and_the_nav_link(demo, task):
    body = client_for(demo["carol"]).get(reverse("invoices")).content.decode()
    assert purchase_order_of(task).number in body and reverse("invoice-new", args=[task.pk]) in body
    assert "供應商發票" in body


def test_the_list_costs_the_same_queries_with_one_po_to_invoice_as_with_four(demo, task, django_assert_num_queries):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    carol = client_for(demo["carol"])
    carol.get(reverse("invoices"))  # a session's first page also keeps the language it is read in, once
    with CaptureQueriesContext(connection) as one:
        carol.get(reverse("invoices"))
    more = [ordered(demo["alice"], demo["bob"], lines=({"description": "Keyboard", "quantity": n},))
            for n in (1, 2, 3)]
    with django_assert_num_queries(len(one.captured_queries)):
        body = carol.get(reverse("invoices")).content.decode()
    assert all(purchase_order_of(po).number in body for po in [task, *more])


def test_a_requester_gets_403_on_the_pages_and_no_link(demo, task):
    alice = client_for(demo["alice"])
    assert alice.get(reverse("invoices")).status_code == 403
    answer = alice.get(reverse("invoice-new", args=[task.pk]))
    assert answer.status_code == 403 and "只有應付帳款人員可以登錄供應商發票" in answer.content.decode()
    assert reverse("invoices") not in alice.get(reverse("my-requests")).content.decode()


def test_typed_invoice_is_entered_through_a_csrf_checked_form(demo, task):
    carol = client_for(demo["carol"], csrf=True)
    carol.get(reverse("invoice-new", args=[task.pk]))
    data = typed(task) | {"csrfmiddlewaretoken": carol.cookies["csrftoken"].value}

    answer = carol.post(reverse("invoice-new", args=[task.pk]), data)

    assert answer.status_code == 302 and answer["Location"] == reverse("invoices")
    invoice = SupplierInvoice.objects.get()
    assert (invoice.number, invoice.total, invoice.lines.get().quantity) == ("AB12345678", 20160, 3)



def test_entered_from_htmx_the_browser_loads_the_list_instead_of_swapping_it_into_the_form(demo, task):
    """A 302 to an htmx request is followed inside the XHR and the whole list page swapped into the
    form; a 204 with HX-Redirect swaps nothing and loads the list."""
    answer = client_for(demo["carol"]).post(reverse("invoice-new", args=[task.pk]), typed(task), **HX)

    assert answer.status_code == 204 and answer["HX-Redirect"] == reverse("invoices")
    assert SupplierInvoice.objects.get().number == "AB12345678"

def test_field_errors_in_chinese_and_nothing_written(demo, task):
    data = typed(task, number="ab12", seller_tax_id="62140098", total="20000")
    answer = client_for(demo["carol"]).post(reverse("invoice-new", args=[task.pk]), data)

    body = answer.content.decode()
    assert answer.status_code == 400
    assert "發票號碼是兩個大寫英文字母加八位數字" in body and "62140098 不是有效的統一編號：檢查碼不符。" in body
    assert not SupplierInvoice.objects.exists()


def test_pasting_the_qr_text_fills_the_fields_in_the_htmx_fragment_and_writes_nothing(demo, task):
    seller = purchase_order_of(task).supplier.tax_id
    data = {"qr": left_text(number="CD87654321", seller=seller), "fill": "1", "line_0_quantity": "3",
            "line_0_unit_price": "6400"}

    answer = client_for(demo["carol"]).post(reverse("invoice-new", args=[task.pk]), data, **HX)

    body = answer.content.decode()
    assert answer.status_code == 200 and body.lstrip().startswith("<form")  # only the form came back
    assert 'value="CD87654321"' in body and 'value="2026-03-15"' in body and f'value="{seller}"' in body
    assert 'value="19200"' in body and 'value="960"' in body and 'value="20160"' in body
    assert not SupplierInvoice.objects.exists()


def test_a_photo_of_the_qr_code_fills_the_fields_too(demo, task):
    from django.core.files.uploadedfile import SimpleUploadedFile

    seller = purchase_order_of(task).supplier.tax_id
    photo = SimpleUploadedFile("receipt.png", photo_of(left_text(seller=seller), "**螢幕:3:6400"), "image/png")
    answer = client_for(demo["carol"]).post(reverse("invoice-new", args=[task.pk]), {"photo": photo, "fill": "1"})
    assert answer.status_code == 200 and 'value="AB12345678"' in answer.content.decode()


def test_a_bad_qr_text_is_a_field_error_on_the_full_page(demo, task):
    answer = client_for(demo["carol"], "en").post(reverse("invoice-new", args=[task.pk]),
                                                   {"qr": "not a code", "fill": "1"})
    assert answer.status_code == 400 and "<html" in answer.content.decode()
    assert "is not the text of an e-invoice" in answer.content.decode()


def test_the_entry_page_names_the_po_lines_in_her_language(demo, task):
    """「1. 螢幕」 on carol's zh-Hant page, "1. Monitor" on an English one, as on the approval page."""
    url = reverse("invoice-new", args=[task.pk])
    chinese = page(demo["carol"], url, HTTP_ACCEPT_LANGUAGE="zh-hant")
    assert "1. 螢幕" in chinese and "Monitor" not in chinese
    assert "1. Monitor" in page(demo["carol"], url, HTTP_ACCEPT_LANGUAGE="en")


def test_the_po_total_names_the_tax_in_her_language(demo, task):
    url = reverse("invoice-new", args=[task.pk])
    assert "未稅 NT$19,200 ＋ 營業稅 NT$960 ＝ 含稅 NT$20,160" in page(demo["carol"], url, HTTP_ACCEPT_LANGUAGE="zh-hant")
    assert "NT$19,200 + business tax (營業稅) NT$960 = NT$20,160" in page(demo["carol"], url,
                                                                          HTTP_ACCEPT_LANGUAGE="en")

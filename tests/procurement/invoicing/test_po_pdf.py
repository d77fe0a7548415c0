"""`GET /tasks/{id}/po.pdf`: the 採購單 in the reader's language, opened and its text read back;
the COMPANY_TAX_ID system check."""
import io

import pytest
from django.core.checks import run_checks
from django.test import Client
from django.urls import reverse
from pypdf import PdfReader

from procurement.invoicing.po import purchase_order_of
from tests.procurement.invoicing.support import ordered

pytestmark = pytest.mark.django_db(transaction=True)


def client_for(user, language) -> Client:
    client = Client(headers={"accept-language": language})
    client.force_login(user)
    return client


def pdf_text(response) -> str:
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(response.content)).pages)


@pytest.fixture
def task(demo, erp, eager):
    return ordered(demo["alice"], demo["bob"])


@pytest.mark.parametrize("language, words", [
    ("zh-hant", ["採購單", "買方", "供應商", "統一編號", "交貨地點", "付款條件", "簽核", "未稅", "營業稅", "含稅", "螢幕"]),
    ("en", ["Purchase order", "Buyer", "Supplier", "Ship to", "Payment terms", "Approval", "Monitor"]),
])
def test_the_pdf_carries_every_field_in_the_readers_language(demo, task, settings, language, words):
    po = purchase_order_of(task)
    text = pdf_text(client_for(demo["alice"], language).get(reverse("task-po-pdf", args=[task.pk])))

    for word in words + [po.number, settings.COMPANY_TAX_ID, po.supplier.tax_id, "NT$19,200", "NT$960", "NT$20,160",
                         "Bob Wang"]:
        assert word in text, (word, text)


def test_the_english_pdf_gives_the_demo_contact_and_terms_in_english(demo, task):
    text = pdf_text(client_for(demo["alice"], "en").get(reverse("task-po-pdf", args=[task.pk])))

    assert "Purchasing Dept." in text and "Net 30 days" in text, text
    assert "採購部" not in text and "月結" not in text, text


def test_a_deployment_that_gives_its_terms_in_chinese_only_gets_them_in_both(demo, task, settings):
    settings.PAYMENT_TERMS = settings.PAYMENT_TERMS_EN = "月結 60 天"
    for language in ("en", "zh-hant"):
        assert "月結 60 天" in pdf_text(client_for(demo["alice"], language).get(reverse("task-po-pdf", args=[task.pk])))


@pytest.mark.parametrize("language", ["zh-hant", "en"])
def test_every_font_in_the_pdf_is_embedded(demo, task, language):
    """A viewer without the font (no CJK font, or none like Helvetica's metrics) draws it all the same."""
    response = client_for(demo["alice"], language).get(reverse("task-po-pdf", args=[task.pk]))
    fonts = {}
    for page in PdfReader(io.BytesIO(response.content)).pages:
        for font in page["/Resources"]["/Font"].values():
            font = font.get_object()
            descendants = [d.get_object() for d in font.get("/DescendantFonts", [])] or [font]
            for described in descendants:
                descriptor = described["/FontDescriptor"].get_object()
                fonts[str(font["/BaseFont"])] = [key for key in ("/FontFile", "/FontFile2", "/FontFile3")
                                                 if key in descriptor]

    assert fonts and all(fonts.values()), fonts


def test_someone_who_may_not_see_the_request_gets_404(demo, task):
    assert client_for(demo["erin"], "en").get(reverse("task-po-pdf", args=[task.pk])).status_code == 404


def test_the_request_page_has_a_print_button_once_the_po_is_out(demo, task):
    body = client_for(demo["alice"], "zh-hant").get(reverse("task-page", args=[task.pk])).content.decode()
    assert reverse("task-po-pdf", args=[task.pk]) in body and "列印" in body


def test_a_bad_company_tax_id_fails_the_system_check(settings):
    settings.COMPANY_TAX_ID = "24549211"
    assert "procurement.E101" in [message.id for message in run_checks()]
    settings.COMPANY_TAX_ID = "24549210"
    assert "procurement.E101" not in [message.id for message in run_checks()]

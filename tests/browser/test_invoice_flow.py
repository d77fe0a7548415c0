"""carol, accounts payable, on a phone (390×844): pastes the e-invoice's QR text, the fields fill
in without a reload (htmx), she enters the invoice, and nothing scrolls sideways."""
import pytest
from playwright.sync_api import expect

from procurement.models.invoicing import SupplierInvoice
from procurement.invoicing.po import purchase_order_of
from tests.procurement.invoicing.support import ordered
from tests.procurement.invoicing.test_einvoice_qr import left_text

pytestmark = pytest.mark.django_db(transaction=True)
PHONE = {"width": 390, "height": 844}
FITS = "document.scrollingElement.scrollWidth"


def test_carol_fills_an_invoice_from_its_qr_text_and_enters_it_on_a_phone(demo, erp, eager, signed_in, live_server):
    task = ordered(demo["alice"], demo["bob"])
    seller = purchase_order_of(task).supplier.tax_id
    carol = signed_in("carol", viewport=PHONE)

    carol.get_by_role("link", name="Supplier invoices").click()
    assert carol.evaluate(FITS) <= PHONE["width"]
    carol.get_by_role("link", name="Enter an invoice").click()
    assert carol.evaluate(FITS) <= PHONE["width"], "the form scrolls sideways"
    carol.get_by_label("Text of the e-invoice's left QR code").fill(left_text(seller=seller))
    carol.get_by_role("button", name="Fill in from the QR code").click()

    expect(carol.get_by_role("status")).to_contain_text("Filled in from the QR code")
    expect(carol.get_by_label("Invoice number")).to_have_value("AB12345678")
    expect(carol.get_by_label("Total incl. tax, NT$")).to_have_value("20160")
    assert carol.evaluate(FITS) <= PHONE["width"]
    carol.get_by_role("button", name="Enter the invoice").click()

    expect(carol.get_by_role("heading", name="Invoices entered")).to_be_visible()
    expect(carol.locator("table.invoices")).to_contain_text("AB12345678")
    assert SupplierInvoice.objects.get().seller_tax_id == seller

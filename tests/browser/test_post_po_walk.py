"""The whole walk after the purchase order, as the people of the demo do it, in zh-Hant (their
language) and once in English:
- alice, on her phone (390 px), records 2 of her 3 monitors with one damaged, on the request page;
- carol, accounts payable, enters the supplier's 統一發票 billing 3 when 2 were accepted;
- bob, on his phone, reads the variance in plain words and approves the exception;
- carol's queue then shows the invoice matched and posted today, and the ERP holds it once.

Each step asserts what the person sees, that nothing scrolls sideways at 390 px, and that the
browser logged no error; a screenshot of each step goes to test-artifacts/."""

import re

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from agentstate.models import Approval
from procurement.invoicing.po import purchase_order_of
from procurement.models.invoicing import SupplierInvoice
from procurement.people.language import user_language_set
from procurement.purchase.tax import totals

from tests.browser.conftest import ARTIFACTS
from tests.procurement.receiving.support import ordered

pytestmark = pytest.mark.django_db(transaction=True)
PHONE = {"width": 390, "height": 844}
AFTER = 20_000  # ms for what follows a click: the agent's steps and the ERP run in the server meanwhile
SCROLL_WIDTH = "document.scrollingElement.scrollWidth"

WORDS = {
    "zh-hant": {
        "receive": "登記到貨（驗收）", "record": "登記驗收", "partial": "部分到貨（2/3）",
        "enter": "登錄發票", "exception": "比對異常", "question": "這張發票有異常，仍要核准嗎？",
        "variance": "發票數量 3，已驗收 2：多 1", "approved": "已核准", "approve": "^核准並入帳 NT\\$", "posted_today": "今日入帳（差異已核准）",
        "posted": "已過帳",
    },
    "en": {
        "receive": "Record what arrived", "record": "Record receipt", "partial": "Partly delivered (2/3)",
        "enter": "Enter the invoice", "exception": "exception",
        "question": "Approve this invoice despite its exception?", "variance": "Invoiced quantity 3, accepted 2: 1",
        "approved": "Approved", "approve": "^Approve and post NT\\$", "posted_today": "Posted today with an approved variance", "posted": "posted",
    },
}


def watch(page, errors: list):
    """Every console error and uncaught exception of the page goes to `errors`."""
    page.on("console", lambda message: message.type == "error" and errors.append(f"{page.url}: {message.text} @ {message.location}"))
    page.on("pageerror", lambda error: errors.append(f"{page.url}: {error}"))
    return page


def fits(page, width: int = PHONE["width"]):
    assert page.evaluate(SCROLL_WIDTH) <= width, f"{page.url} scrolls sideways at {width} px"


def shot(page, name: str, full_page: bool = True):
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=full_page)


@pytest.mark.parametrize("language", ["zh-hant", "en"])
def test_the_walk_after_the_po_receipt_invoice_exception_and_posting(language, demo, erp, eager, signed_in,
                                                                     live_server):
    words, errors = WORDS[language], []
    for person in ("alice", "bob", "carol"):
        user_language_set(user=demo[person], language=language)
    task = ordered(demo)  # alice's three monitors, approved by bob, PO issued by the ERP
    po = purchase_order_of(task)

    # 1. alice on her phone, on the request page: 2 accepted, 1 damaged.
    alice = watch(signed_in("alice", viewport=PHONE), errors)
    expect(alice.locator("html")).to_have_attribute("lang", language)
    alice.goto(f"{live_server.url}/tasks/{task.pk}/")
    expect(alice.get_by_role("heading", name=words["receive"])).to_be_visible()
    fits(alice)
    alice.fill("#id_accepted_0", "2")
    alice.fill("#id_rejected_0", "1")
    alice.select_option("#id_reason_0", "damaged")
    alice.fill("#id_note", "一台有刮傷" if language == "zh-hant" else "one came scratched")
    alice.get_by_role("button", name=words["record"]).click()
    expect(alice.locator(".badge").first).to_contain_text(words["partial"], timeout=AFTER)
    fits(alice)
    shot(alice, f"walk-{language}-1-alice-receipt-390")

    # 2. carol, accounts payable, enters the supplier's invoice for all 3 on the invoice page.
    carol = watch(signed_in("carol"), errors)
    carol.goto(f"{live_server.url}/tasks/{task.pk}/invoice/")
    subtotal, tax, total = totals(3 * po.lines[0].unit_price)
    carol.fill("#id_number", "AB12345678")
    carol.fill("#id_date", timezone.localdate().isoformat())
    carol.fill("#id_seller_tax_id", po.supplier.tax_id)
    carol.fill("#id_subtotal", f"{subtotal:.0f}")
    carol.fill("#id_tax", f"{tax:.0f}")
    carol.fill("#id_total", f"{total:.0f}")
    carol.fill("#id_line_0_quantity", "3")
    shot(carol, f"walk-{language}-2a-carol-invoice-form", full_page=False)
    carol.get_by_role("button", name=words["enter"]).click()
    entered = carol.locator("table.invoices tr", has_text="AB12345678")
    expect(entered).to_contain_text(words["exception"], timeout=AFTER)
    expect(entered).to_contain_text(words["variance"])
    shot(carol, f"walk-{language}-2b-carol-invoice-exception")
    invoice = SupplierInvoice.objects.get(number="AB12345678")
    assert invoice.status == "exception" and erp.stats()["supplier_invoices"] == 0, "nothing posted before bob"

    # 3. bob, on his phone: the exception in his approvals, the variance in words, approved.
    approval = Approval.objects.get(task=task, status="pending")
    bob = watch(signed_in("bob", viewport=PHONE), errors)
    bob.goto(f"{live_server.url}/approvals/")
    fits(bob)
    bob.locator(f"a[href='/approvals/{approval.pk}/']").first.click()
    expect(bob.get_by_role("heading", name=words["question"])).to_be_visible()
    expect(bob.locator("main")).to_contain_text(words["variance"])
    fits(bob)
    shot(bob, f"walk-{language}-3a-bob-exception-390")
    bob.get_by_role("button", name=re.compile(words["approve"])).click()
    expect(bob.get_by_role("status")).to_contain_text(words["approved"], timeout=AFTER)
    fits(bob)
    shot(bob, f"walk-{language}-3b-bob-approved-390")

    # 4. carol's queue: posted today with its approved variance, once in the ERP.
    carol.goto(f"{live_server.url}/invoices/")
    posted = carol.locator("#queue-approved_today")
    expect(posted).to_contain_text(words["posted_today"])
    expect(posted.locator("tr", has_text="AB12345678")).to_contain_text(words["posted"])
    shot(carol, f"walk-{language}-4-carol-queue")
    assert erp.stats()["supplier_invoices"] == 1
    assert SupplierInvoice.objects.get(pk=invoice.pk).status == "posted"
    # No console error on any page of the walk (the CSP's and htmx's included).
    assert errors == [], errors

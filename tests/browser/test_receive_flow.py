"""alice records a partial delivery on her phone (390×844): the form fits, and the page then says
「部分到貨（2/3）」 with the receipt posted to the ERP once."""
import pytest
from playwright.sync_api import expect

from procurement.models import GoodsReceipt

from tests.procurement.receiving.support import ordered
from tests.browser.conftest import ARTIFACTS

pytestmark = pytest.mark.django_db(transaction=True)
PHONE = {"width": 390, "height": 844}
FITS = "document.scrollingElement.scrollWidth"


def test_alice_records_two_of_three_monitors_on_her_phone(demo, erp, eager, signed_in, live_server):
    task = ordered(demo)
    alice = signed_in("alice", viewport=PHONE)
    alice.select_option("#lang", "zh-hant")
    expect(alice.locator("html")).to_have_attribute("lang", "zh-hant")
    alice.goto(f"{live_server.url}/tasks/{task.pk}/")
    expect(alice.get_by_role("heading", name="登記到貨（驗收）")).to_be_visible()
    assert alice.evaluate(FITS) <= PHONE["width"], "the page scrolls sideways"
    alice.fill("#id_accepted_0", "2")
    alice.fill("#id_rejected_0", "1")
    alice.select_option("#id_reason_0", "damaged")
    alice.fill("#id_note", "一台有刮傷")
    alice.get_by_role("button", name="登記驗收").click()
    expect(alice.locator(".badge").first).to_contain_text("部分到貨（2/3）")
    assert alice.evaluate(FITS) <= PHONE["width"]
    ARTIFACTS.mkdir(exist_ok=True)
    alice.screenshot(path=str(ARTIFACTS / "receive-partial-zh-390.png"), full_page=True)
    line = GoodsReceipt.objects.get(task=task).lines.get()
    assert (line.accepted, line.rejected, line.reason) == (2, 1, "damaged")
    assert len(erp.goods_receipts()) == 1

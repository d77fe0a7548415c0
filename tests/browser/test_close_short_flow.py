"""bob closes the rest of alice's monitors short on his phone (390×844), in zh-Hant and English: the
form fits, says what it will do, asks for a reason in his language when he gives none, and the page
then says what budget the close released. The console stays clean and axe finds nothing serious."""
import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from agentstate.models import Task
from procurement.receiving.services import goods_receipt_record, purchase_order_close_short

from tests.browser.conftest import ARTIFACTS
from tests.browser.test_console_and_axe import AXE_OPTIONS, BLOCKING, console_watch
from tests.procurement.receiving.support import ordered

pytestmark = pytest.mark.django_db(transaction=True)
PHONE = {"width": 390, "height": 844}
FITS = "document.scrollingElement.scrollWidth"
WORDS = {
    "zh-hant": {"title": "提前結案", "line": "螢幕 × 1 不再交貨", "ask": "請說明為何其餘部分要結案。",
                "reason": "其餘不再交貨的原因", "released": "提前結案：未使用的預算 NT$6,720 已釋放"},
    "en": {"title": "Close the rest short", "line": "Monitor × 1 will not be delivered",
           "ask": "Say why the rest is closed.", "reason": "Why the rest will not be delivered",
           "released": "Closed short: unspent budget NT$6,720 released"},
}


def blocking_violations(page) -> list[str]:
    found = Axe().run(page, options=AXE_OPTIONS).response["violations"]
    return [f"{v['id']} ({v['impact']})" for v in found if v["impact"] in BLOCKING]


def on_phone(signed_in, username: str, language: str):
    """`username` signed in at 390 px, reading `language`, with the console watched: (page, what it said)."""
    page = signed_in(username, viewport=PHONE)
    said: list[str] = []
    console_watch(page, said)
    if page.locator("html").get_attribute("lang") != language:
        with page.expect_navigation():
            page.select_option("#lang", language)
    expect(page.locator("html")).to_have_attribute("lang", language)
    return page, said


@pytest.mark.parametrize("language", ["zh-hant", "en"])
def test_bob_closes_the_rest_short_on_his_phone(demo, erp, eager, signed_in, live_server, language):
    task = ordered(demo)
    goods_receipt_record(task_id=task.pk, user=demo["alice"], lines=[{"line": 0, "accepted": 2}])
    words = WORDS[language]
    bob, said = on_phone(signed_in, "bob", language)
    bob.goto(f"{live_server.url}/tasks/{task.pk}/")
    expect(bob.get_by_role("heading", name=words["title"])).to_be_visible()
    expect(bob.locator(".close-short")).to_contain_text(words["line"])
    assert bob.evaluate(FITS) <= PHONE["width"], "the page scrolls sideways"
    assert blocking_violations(bob) == []
    assert said == [], said

    bob.locator(".close-short").get_by_role("button", name=words["title"]).click()
    expect(bob.locator(".close-short .bad")).to_have_text(words["ask"])
    # The refused post answers 400 (htmx swaps its field error in); the browser logs that load.
    assert [line for line in said if "status of 400" not in line] == [], said
    said.clear()
    assert Task.objects.get(pk=task.pk).state == "externally_confirmed"
    assert blocking_violations(bob) == []

    bob.get_by_label(words["reason"]).fill("供應商停產")
    bob.locator(".close-short").get_by_role("button", name=words["title"]).click()
    expect(bob.locator(".closed-short")).to_have_text(words["released"])
    expect(bob.locator(".close-short")).to_have_count(0)
    assert bob.evaluate(FITS) <= PHONE["width"]
    assert blocking_violations(bob) == []
    ARTIFACTS.mkdir(exist_ok=True)
    bob.screenshot(path=str(ARTIFACTS / f"close-short-{language}-390.png"), full_page=True)
    assert Task.objects.get(pk=task.pk).state == "closed"
    assert [order["status"] for order in erp.purchase_orders()] == ["closed"]
    assert said == [], said


AP_WORDS = {"zh-hant": {"left": "NT$13,440", "ordered": "已提前結案；原訂 NT$20,160", "enter": "登錄發票"},
            "en": {"left": "NT$13,440", "ordered": "closed short; ordered NT$20,160", "enter": "Enter an invoice"}}


@pytest.mark.parametrize("language", ["zh-hant", "en"])
def test_carol_is_asked_for_what_was_accepted_after_the_close_on_her_phone(demo, erp, eager, signed_in, live_server,
                                                                            language):
    task = ordered(demo)
    goods_receipt_record(task_id=task.pk, user=demo["alice"], lines=[{"line": 0, "accepted": 2}])
    purchase_order_close_short(task_id=task.pk, user=demo["bob"], reason="供應商停產")
    words = AP_WORDS[language]
    carol, said = on_phone(signed_in, "carol", language)
    carol.goto(f"{live_server.url}/invoices/")
    row = carol.locator(".open-pos tbody tr")
    expect(row).to_contain_text(words["left"])
    expect(row).to_contain_text(words["ordered"])
    assert carol.evaluate(FITS) <= PHONE["width"], "the list scrolls sideways"
    assert blocking_violations(carol) == []
    ARTIFACTS.mkdir(exist_ok=True)
    carol.screenshot(path=str(ARTIFACTS / f"invoices-closed-short-{language}-390.png"), full_page=True)
    row.get_by_role("link", name=words["enter"]).click()
    expect(carol.locator('input[name="line_0_quantity"]')).to_have_value("2")
    assert said == [], said

"""At phone size, in Traditional Chinese: alice's home lists the request she made through the
API, with its number, total and whom it waits for; when bob approves, her row shows the
purchase order without a reload."""
import pytest
from playwright.sync_api import expect
from rest_framework.test import APIClient

from agentstate.models import Approval, Task
from procurement.purchase import services
from procurement.people.language import user_language_set

from tests.browser.conftest import ARTIFACTS

pytestmark = pytest.mark.django_db(transaction=True)
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def made_by_api(demo, erp, eager):
    user_language_set(user=demo["alice"], language="zh-hant")
    api = APIClient()
    api.force_authenticate(demo["alice"])
    body = api.post("/api/v1/tasks/", {"department": "ENG", "justification": "新進工程師",
                                       "lines": [{"description": "Laptop", "quantity": 2}]}, format="json").json()
    assert body["state"] == "awaiting_approval"
    return Task.objects.get(pk=body["id"])


def fits(page):
    assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"], "the page scrolls sideways"


def test_alice_sees_her_api_request_at_home_and_the_po_arrives_without_a_reload(made_by_api, demo, erp,
                                                                                 signed_in, live_server):
    alice = signed_in("alice", viewport=PHONE)
    expect(alice.get_by_role("heading", name="我的請購")).to_be_visible()
    row = alice.locator(f'tr[data-request="{made_by_api.pk}"]')
    expect(row).to_contain_text(made_by_api.purchase_request.number)
    expect(row).to_contain_text("筆電 × 2")  # her pages are in zh-Hant, the default
    expect(row).to_contain_text("NT$73,290")
    expect(row).to_contain_text("等待核准")
    expect(row).to_contain_text("等待 Bob Wang")
    fits(alice)
    ARTIFACTS.mkdir(exist_ok=True)
    alice.screenshot(path=str(ARTIFACTS / "home-zh-390.png"), full_page=True)

    alice.evaluate("window.notReloaded = true")
    approval = Approval.objects.get(task=made_by_api, status="pending")
    services.approval_decide(approval_id=approval.pk, user=demo["bob"], decision="approve",
                             state_version=approval.state_version, scope_hash=approval.scope_hash)
    [order] = erp.purchase_orders()
    expect(row).to_contain_text(order["id"], timeout=20_000)
    expect(row).to_contain_text("已下單")
    assert alice.evaluate("window.notReloaded === true"), "the page was reloaded"
    fits(alice)
    alice.screenshot(path=str(ARTIFACTS / "home-zh-390-ordered.png"), full_page=True)

    row.get_by_role("link", name=made_by_api.purchase_request.number).click()
    expect(alice.locator("dd.po")).to_contain_text(order["id"])
    expect(alice.locator("dd.po").get_by_role("link", name="列印")).to_have_attribute(
        "href", f"/tasks/{made_by_api.pk}/po.pdf")
    fits(alice)
    alice.screenshot(path=str(ARTIFACTS / "request-zh-390.png"), full_page=True)


def test_alice_answers_bobs_return_on_the_request_page_and_it_goes_back_to_approval(made_by_api, demo,
                                                                                   signed_in, live_server):
    approval = Approval.objects.get(task=made_by_api, status="pending")
    services.approval_decide(approval_id=approval.pk, user=demo["bob"], decision="return", comment="一台就夠了嗎？",
                             state_version=approval.state_version, scope_hash=approval.scope_hash)
    alice = signed_in("alice", viewport=PHONE)
    alice.locator(f'tr[data-request="{made_by_api.pk}"]').get_by_role("link").click()
    expect(alice.locator(".question")).to_contain_text("Bob Wang 詢問")
    expect(alice.locator(".question")).to_contain_text("一台就夠了嗎？")
    fits(alice)
    alice.locator("#id_lines-0-quantity").fill("0")
    alice.get_by_role("button", name="送出我的回覆").click()
    expect(alice.locator("#task-actions")).to_contain_text("請確認此數值是否大於或等於 1")
    alice.screenshot(path=str(ARTIFACTS / "answer-error-zh-390.png"), full_page=True)
    alice.locator("#id_lines-0-quantity").fill("1")
    alice.get_by_role("button", name="送出我的回覆").click()
    expect(alice.locator("#task-panel .badge").first).to_have_text("等待核准", timeout=20_000)
    expect(alice.get_by_role("button", name="送出我的回覆")).to_have_count(0)
    fits(alice)
    reopened = Approval.objects.get(task=made_by_api, status="pending")
    assert reopened.scope["lines"][0]["quantity"] == 1

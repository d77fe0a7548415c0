"""At phone size, in Traditional Chinese: bob returns alice's request (made through the API);
her bell counts it, the notices page fits the phone and links the request, the agent asks
bob's comment in her conversation, and "mark all read" empties the bell without a reload."""
import pytest
from playwright.sync_api import expect

from agentstate.models import Approval, Session
from procurement.purchase import services
from procurement.people.language import user_language_set

from tests.browser.conftest import ARTIFACTS

pytestmark = pytest.mark.django_db(transaction=True)
PHONE = {"width": 390, "height": 844}
COMMENT = "請改成 14 吋的機型，並說明用途"


@pytest.fixture
def returned(demo, erp, eager, settings, live_server):
    settings.SITE_URL = live_server.url
    user_language_set(user=demo["alice"], language="zh-hant")
    task = services.request_submit(requester=demo["alice"], department="ENG", justification="new hires",
                                   lines=[{"description": "Laptop", "quantity": 2}])
    approval = Approval.objects.get(task=task, status="pending")
    services.approval_decide(approval_id=approval.pk, user=demo["bob"], decision="return", comment=COMMENT,
                             state_version=approval.state_version, scope_hash=approval.scope_hash)
    return task


def fits(page):
    assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"], "the page scrolls sideways"


def test_alice_sees_the_return_in_her_bell_notices_and_chat_on_a_phone(returned, signed_in, live_server):
    alice = signed_in("alice", viewport=PHONE)  # her saved language applies from sign-in on
    bell = alice.locator("#notice-bell")
    expect(bell).to_have_attribute("aria-label", "通知：1 則未讀")
    bell.click()
    expect(alice.get_by_role("heading", name="通知")).to_be_visible()
    notice = alice.locator("ul.notices li").first
    expect(notice).to_contain_text(COMMENT)
    expect(notice).to_contain_text(returned.purchase_request.number)
    fits(alice)
    ARTIFACTS.mkdir(exist_ok=True)
    alice.screenshot(path=str(ARTIFACTS / "notices-zh-390.png"), full_page=True)

    alice.get_by_role("button", name="全部標示為已讀").click()
    expect(alice.locator("#notice-bell .count")).to_have_count(0)
    expect(alice.get_by_role("button", name="標示為已讀")).to_have_count(0)

    alice.locator("ul.notices li a").first.click()
    expect(alice).to_have_url(f"{live_server.url}/tasks/{returned.pk}/")
    expect(alice.get_by_text(COMMENT).first).to_be_visible()

    [session] = Session.objects.filter(owner__username="alice", task=returned)
    alice.goto(f"{live_server.url}/chat/{session.pk}/")
    expect(alice.get_by_text(COMMENT).first).to_be_visible()
    fits(alice)
    alice.screenshot(path=str(ARTIFACTS / "notices-chat-zh-390.png"), full_page=True)

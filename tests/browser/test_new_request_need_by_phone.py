"""At phone size (390 px), in Traditional Chinese and in English: alice makes a request on the
page with a need-by date and a spec for the item; the form fits, and the request keeps both."""
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from agentstate.models import Task
from procurement.people.language import user_language_set

from tests.browser.conftest import ARTIFACTS

pytestmark = pytest.mark.django_db(transaction=True)
PHONE = {"width": 390, "height": 844}


def fits(page):
    assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"], "the page scrolls sideways"


@pytest.mark.parametrize("language, need_by, spec, send", [
    ("zh-hant", "需要日期（選填）", "規格（選填）", "送出請購"),
    ("en", "Needed by (optional)", "Spec (optional)", "Send request"),
])
def test_alice_gives_a_need_by_date_and_a_spec_on_a_phone(demo, erp, eager, signed_in, live_server, language,
                                                          need_by, spec, send):
    user_language_set(user=demo["alice"], language=language)
    alice = signed_in("alice", viewport=PHONE)
    alice.goto(f"{live_server.url}/requests/new/")
    day = timezone.localdate() + timedelta(days=7)
    alice.locator("#id_lines-0-description").fill("Monitor")
    alice.locator("#id_lines-0-quantity").fill("3")
    alice.get_by_label(spec).first.fill("27 吋 4K")
    alice.locator("#id_justification").fill("新進工程師")
    alice.get_by_label(need_by).fill(day.isoformat())
    fits(alice)
    ARTIFACTS.mkdir(exist_ok=True)
    alice.screenshot(path=str(ARTIFACTS / f"request-new-need-by-{language}-390.png"), full_page=True)
    alice.get_by_role("button", name=send).click()
    expect(alice.get_by_role("heading", level=1)).to_be_visible()
    task = Task.objects.get(initiator=demo["alice"])
    assert task.data["draft"] == {"needed_by": day.isoformat(), "notes": ["27 吋 4K"]}
    fits(alice)

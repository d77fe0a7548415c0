"""carol on a request's page, in a real browser: she replays a step and sees "would call" while the
ERP simulator hears nothing, rewinds a request past its requisition after seeing the cancellation
listed first, and forks the request to try another supplier, both pages linked; on a phone too."""
import pytest
from playwright.sync_api import expect

from agentstate.models import Task
from procurement.purchase import services

from tests.browser.conftest import ARTIFACTS

pytestmark = pytest.mark.django_db(transaction=True)
PHONE = {"width": 390, "height": 844}
FITS = "document.scrollingElement.scrollWidth"


@pytest.fixture
def waiting(demo, erp, eager):
    task = services.request_submit(requester=demo["alice"], department="ENG", justification="new hires",
                                   lines=[{"description": "Laptop", "quantity": 2}])
    return Task.objects.get(pk=task.pk)


def pick_the_quotes_checkpoint(page):
    page.locator("ol.checkpoints li", has_text="Comparing quotes").first.get_by_role("radio").check()


def test_carol_replays_then_rewinds_past_the_requisition_after_seeing_the_list(waiting, signed_in, live_server, erp):
    [requisition] = erp.requisitions()
    carol = signed_in("carol")
    carol.goto(f"{live_server.url}/tasks/{waiting.pk}/")
    count = erp.stats()["requests"]

    pick_the_quotes_checkpoint(carol)
    carol.get_by_role("button", name="Replay from here (dry run)").click()
    expect(carol.locator(".replay")).to_contain_text("would call ERP requisition")
    assert erp.stats()["requests"] == count

    pick_the_quotes_checkpoint(carol)
    carol.get_by_role("button", name="Rewind to here…").click()
    expect(carol.locator(".rewind-plan")).to_contain_text(f"ERP requisition {requisition['id']} will be cancelled.")
    assert erp.requisitions()[0]["status"] != "cancelled", "only listed so far"
    carol.get_by_role("button", name="Confirm: undo these and rewind").click()
    expect(carol.locator(".timeline")).to_contain_text("Rewound to an earlier checkpoint")
    assert "cancelled" in [r["status"] for r in erp.requisitions()]


def test_carol_forks_to_try_another_supplier_on_a_phone_and_both_requests_link(waiting, signed_in, live_server):
    awarded = waiting.data["award"]["supplier"]
    carol = signed_in("carol", viewport=PHONE)
    carol.goto(f"{live_server.url}/tasks/{waiting.pk}/")
    assert carol.evaluate(FITS) <= PHONE["width"], "the page scrolls sideways"
    other = next(o for o in carol.locator("#fork-supplier option").all_inner_texts() if o and o != awarded
                 and "Compare" not in o and "Furniture" not in o)

    pick_the_quotes_checkpoint(carol)
    carol.select_option("#fork-supplier", label=other)
    carol.get_by_role("button", name="Fork from here").click()

    expect(carol.locator(".forked-from")).to_contain_text(waiting.purchase_request.number)
    assert carol.evaluate(FITS) <= PHONE["width"]
    ARTIFACTS.mkdir(exist_ok=True)
    carol.screenshot(path=str(ARTIFACTS / "fork-390.png"), full_page=True)
    carol.locator(".forked-from a").click()
    expect(carol.locator(".forks a")).to_have_count(1)
    fork = Task.objects.exclude(pk=waiting.pk).get()
    assert fork.data["supplier_choice"] == other


def test_on_a_phone_carol_rewinds_with_a_reason_and_alice_reads_it_in_chinese(waiting, signed_in, live_server,
                                                                              settings):
    from procurement.people.language import user_language_set

    settings.SITE_URL = live_server.url
    user_language_set(user=waiting.initiator, language="zh-hant")
    carol = signed_in("carol", viewport=PHONE)
    carol.goto(f"{live_server.url}/tasks/{waiting.pk}/")
    pick_the_quotes_checkpoint(carol)
    carol.get_by_label("Why (the requester is told, with your name)").fill("選錯供應商")
    carol.get_by_role("button", name="Rewind to here…").click()
    expect(carol.locator("#rewind-reason")).to_have_value("選錯供應商")  # carried to the confirmation
    assert carol.evaluate(FITS) <= PHONE["width"], "the page scrolls sideways"
    carol.get_by_role("button", name="Confirm: undo these and rewind").click()
    expect(carol.locator(".timeline")).to_contain_text("Rewound to an earlier checkpoint")

    alice = signed_in("alice", viewport=PHONE)
    expect(alice.locator("#notice-bell")).to_have_attribute("aria-label", "通知：1 則未讀")
    alice.locator("#notice-bell").click()
    notice = alice.locator("ul.notices li").first
    expect(notice).to_contain_text(f"Carol Wu 將您的請購 {waiting.purchase_request.number}")
    expect(notice).to_contain_text("理由：「選錯供應商」")
    expect(notice).to_contain_text("請購回到「比較報價」")
    assert alice.evaluate(FITS) <= PHONE["width"], "the page scrolls sideways"
    ARTIFACTS.mkdir(exist_ok=True)
    alice.screenshot(path=str(ARTIFACTS / "notice-rewound-zh-390.png"), full_page=True)

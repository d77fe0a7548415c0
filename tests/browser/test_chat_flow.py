"""A requester chats a request in the browser, confirms, and watches it move without reloading."""
import pytest
from playwright.sync_api import expect

from agentstate.models import Approval, Session

pytestmark = pytest.mark.django_db(transaction=True)


def say(page, text):
    page.get_by_label("Message", exact=True).fill(text)
    page.get_by_role("button", name="Send").click()


def test_requester_chats_submits_and_sees_the_purchase_order_after_approval(demo, erp, eager, signed_in, live_server):
    alice = signed_in("alice")
    alice.get_by_role("button", name="New request by chat").click()
    alice.evaluate("window.__same_page = true")
    say(alice, "I need 2 laptops for the new hires")
    expect(alice.locator(".turns li.agent")).to_have_count(1)
    expect(alice.locator(".turns li.agent").last).to_contain_text("submit")
    say(alice, "yes")
    expect(alice.locator("#task-panel [data-state]")).to_have_text("Waiting for approval")  # the state in words
    assert alice.evaluate("window.__same_page") is True, "posting a message reloaded the page"

    approval = Approval.objects.get(task=Session.objects.get(owner=demo["alice"]).task, status="pending")
    bob = signed_in("bob")
    bob.goto(f"{live_server.url}/approvals/{approval.pk}/")
    bob.get_by_role("button", name="Approve").click()
    expect(bob.get_by_role("status")).to_contain_text("Decided: Approved")

    expect(alice.locator("#task-panel [data-state]")).to_have_text("Ordered, waiting for delivery", timeout=20_000)
    expect(alice.locator("#task-panel")).to_contain_text(erp.purchase_orders()[0]["id"])
    assert alice.evaluate("window.__same_page") is True


def test_html_in_a_message_is_shown_as_text(demo, signed_in):
    alice = signed_in("alice")
    alice.get_by_role("button", name="New request by chat").click()
    say(alice, "<b>bold</b><script>window.__pwned = 1</script>")
    expect(alice.locator(".turns li.user").first).to_have_text("<b>bold</b><script>window.__pwned = 1</script>")
    assert alice.evaluate("window.__pwned === undefined")


def test_a_message_sent_too_fast_is_refused_in_the_page_and_stays_in_the_box(demo, signed_in, monkeypatch):
    from procurement.api.throttles import ChatThrottle

    monkeypatch.setattr(ChatThrottle, "THROTTLE_RATES", {"chat": "1/min"})
    alice = signed_in("alice")
    alice.get_by_role("button", name="New request by chat").click()
    say(alice, "hello")
    expect(alice.locator(".turns li.agent")).to_have_count(1)
    say(alice, "I need 2 laptops for the new hires")
    expect(alice.get_by_role("alert")).to_contain_text("faster than the agent takes them")
    expect(alice.get_by_label("Message", exact=True)).to_have_value("I need 2 laptops for the new hires")
    expect(alice.locator(".turns li.user")).to_have_count(1)


def test_a_server_error_is_said_in_the_page_and_the_message_stays_in_the_box(demo, signed_in, monkeypatch):
    """A 500 used to leave the page as it was: the button came back and nothing said the turn failed."""
    import procurement.pages.chat

    def broken(**kwargs):
        raise RuntimeError("simulated failure")

    monkeypatch.setattr(procurement.pages.chat, "chat_turn", broken)
    alice = signed_in("alice")
    alice.get_by_role("button", name="New request by chat").click()
    say(alice, "I need 2 laptops for the new hires")
    expect(alice.get_by_role("alert")).to_contain_text("Something went wrong on the server")
    expect(alice.get_by_label("Message", exact=True)).to_have_value("I need 2 laptops for the new hires")
    say(alice, "I need 2 laptops for the new hires")  # a second failure says it once, not twice
    expect(alice.get_by_role("alert")).to_have_count(1)

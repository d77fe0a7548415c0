"""A manager approves in the browser; the requester's page shows it without a reload."""
import pytest
from playwright.sync_api import expect

from agentstate.models import Approval, TaskEvent
from procurement.purchase import services

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def submitted(demo, erp, eager):
    return services.request_submit(requester=demo["alice"], department="ENG", justification="new hires",
                                   lines=[{"description": "Laptop", "quantity": 2}])


def test_manager_approves_and_the_requesters_page_updates_without_reload(submitted, signed_in, live_server, erp):
    alice = signed_in("alice")
    alice.goto(f"{live_server.url}/tasks/{submitted.pk}/")
    expect(alice.locator("#task-panel [data-state]")).to_have_text("Waiting for approval")  # the state in words
    alice.evaluate("window.__same_page = true")

    bob = signed_in("bob", viewport={"width": 390, "height": 844})  # on the move: a phone-sized screen
    expect(bob.get_by_role("heading", name="Approvals waiting for you")).to_be_visible()
    bob.get_by_role("link", name="Laptop × 2").click()
    expect(bob.get_by_text("Approving will:")).to_be_visible()
    bob.get_by_role("button", name="Approve").click()
    expect(bob.get_by_role("status")).to_contain_text("Decided: Approved")

    expect(alice.locator("#task-panel [data-state]")).to_have_text("Ordered, waiting for delivery", timeout=20_000)
    expect(alice.locator("#task-panel")).to_contain_text(erp.purchase_orders()[0]["id"])
    assert alice.evaluate("window.__same_page") is True, "the page reloaded"


def test_stale_approval_message_when_the_request_was_amended_in_between(submitted, signed_in, live_server, demo):
    approval = Approval.objects.get(task=submitted, status="pending")
    bob = signed_in("bob")
    bob.goto(f"{live_server.url}/approvals/{approval.pk}/")
    services.request_amend(task_id=submitted.pk, user=demo["alice"], lines=[{"description": "Laptop", "quantity": 1}])
    bob.get_by_role("button", name="Approve").click()
    alert = bob.get_by_role("alert")
    expect(alert).to_contain_text("This request changed since you opened it.")
    expect(alert.get_by_role("link", name="See what changed and reload")).to_be_visible()
    assert not TaskEvent.objects.filter(task=submitted, event="approve").exists()


def test_a_double_click_makes_one_decision(submitted, signed_in, live_server):
    approval = Approval.objects.get(task=submitted, status="pending")
    bob = signed_in("bob")
    bob.goto(f"{live_server.url}/approvals/{approval.pk}/")
    bob.get_by_role("button", name="Approve").dblclick()
    expect(bob.get_by_role("status")).to_contain_text("Decided: Approved")
    assert TaskEvent.objects.filter(task=submitted, event="approve").count() == 1

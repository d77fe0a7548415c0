"""Issue 6, "done when", in a browser: as carol, find what the agent remembers about alice,
correct one entry and delete another (after seeing what goes with it); alice's next chat turn
uses the correction, and the deleted text is nowhere in the database."""
import re

import pytest
from playwright.sync_api import expect

from agentstate.memory.services import memory_confirm, memory_propose
from agentstate.models import Session, Task, Turn
from procurement.chat.runtime import chat_turn
from tests.agentstate.memory_support import where_text_is

pytestmark = pytest.mark.django_db(transaction=True)
FORGET = "mk4-desk-phone-extension-5521"
CAP, NEW_CAP = "Keep my requests under 50k", "Keep my requests under 40k"


@pytest.fixture
def remembered(demo):
    """Two entries alice confirmed from her own words, both used in a chat about a request."""
    alice = demo["alice"]
    said = Turn.objects.create(session=Session.objects.create(owner=alice), seq=1, role="user",
                               text="Remember my details please")
    entries = {}
    for name, kind, content in (("cap", "preference", CAP), ("phone", "fact", f"Alice's desk phone is {FORGET}")):
        entries[name] = memory_confirm(entry=memory_propose(turn=said, scope="user", subject="alice", kind=kind,
                                                            content=content), by=alice)
    chat = Session.objects.create(owner=alice)
    chat_turn(session=chat, user=alice, text="I need 2 monitors for the lab")
    chat_turn(session=chat, user=alice, text="it is for ENG")
    chat.refresh_from_db()
    assert chat.task_id and chat.summary, "the chat made a draft and a summary"
    return entries | {"task": chat.task}


def test_carol_corrects_and_deletes_what_the_agent_remembers_about_alice(remembered, signed_in, live_server, demo):
    cap, phone, task = remembered["cap"], remembered["phone"], remembered["task"]
    carol = signed_in("carol")
    carol.get_by_role("link", name="Memory", exact=True).click()
    carol.get_by_label("Subject").fill("alice")
    carol.get_by_role("button", name="Filter").click()
    results = carol.locator("#memory-results")
    expect(results).to_contain_text("2 entries")
    expect(results).to_contain_text(CAP)
    expect(results).to_contain_text(FORGET)
    expect(carol).to_have_url(re.compile(r"/memory/\?.*subject=alice"))

    # Correct one: the page shows version 2 and the change as a diff; the request that used it is listed.
    results.get_by_role("link", name=CAP).click()
    expect(carol.locator(f'a[href="/tasks/{task.pk}/"]')).to_have_text("Draft")  # a draft: no number yet
    carol.get_by_text("Correct this entry").click()
    carol.get_by_label("New content").fill(NEW_CAP)
    carol.get_by_label("Reason for the correction (required)").fill("alice lowered her cap")
    carol.get_by_role("button", name="Save as v2").click()
    expect(carol.get_by_role("status")).to_contain_text("Corrected: this is now version 2.")
    expect(carol.locator("[data-version]").first).to_have_text("v2")
    expect(carol.locator("#entry-panel li[data-version='2'] del")).to_have_text("50k")
    expect(carol.locator("#entry-panel li[data-version='2'] ins")).to_have_text("40k")

    # Delete another: first what goes with it, then for good.
    carol.goto(f"{live_server.url}/memory/?subject=alice")
    carol.locator("#memory-results").get_by_role("link", name=re.compile(FORGET)).click()
    entry_url = carol.url
    carol.get_by_role("button", name="Delete…").click()
    expect(carol.locator("#delete-preview")).to_contain_text("also removes 1 session summary")
    carol.get_by_label("Why is it deleted? (required)").fill("alice asked us to forget it")
    carol.get_by_role("button", name="Delete for good").click()
    expect(carol.get_by_role("status")).to_contain_text("Deleted:")
    assert carol.goto(entry_url).status == 404
    carol.goto(f"{live_server.url}/memory/?subject=alice")
    expect(carol.locator("#memory-results")).to_contain_text("1 entry")
    expect(carol.locator("#memory-results")).not_to_contain_text(FORGET)

    # Alice's next turn uses the correction, cited by id and new version; the deleted text is gone.
    fresh = Session.objects.create(owner=demo["alice"])
    turn = chat_turn(session=fresh, user=demo["alice"], text="I need 2 monitors for the lab").turn
    assert turn.data["memory_used"] == [{"id": str(cap.pk), "version": 2}]
    fresh.refresh_from_db()
    assert Task.objects.get(pk=fresh.task_id).data["draft"]["budget"] == "40000.00"
    assert where_text_is(FORGET) == []
    assert str(phone.pk) not in carol.content()

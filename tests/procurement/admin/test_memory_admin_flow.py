"""Issue 6, "done when": as carol, find what the agent remembers about alice, correct one
entry, delete another; the next chat turn uses the correction and the deleted content is
nowhere to be found, in any column of any table."""
import pytest
from rest_framework.test import APIClient

from agentstate.memory.retrieval import memory_context
from agentstate.memory.services import memory_confirm, memory_propose
from agentstate.models import Checkpoint, MemoryEvent, Session, Turn
from procurement.purchase import services
from tests.agentstate.memory_support import where_text_is


pytestmark = pytest.mark.django_db
FORGET = "mk4-desk-phone-extension-5521"


def test_carol_corrects_and_deletes_what_the_agent_remembers_about_alice(demo):
    alice = demo["alice"]
    task = services.request_submit(requester=alice, department="ENG", justification="desk setup",
                                   lines=[{"description": "Keyboard", "quantity": 1}])
    session = Session.objects.create(owner=alice, task=task)
    said = Turn.objects.create(session=session, seq=1, role="user", text="Remember my details please")
    for content in ("Prefers quotes as PDF", f"Alice's {FORGET}"):
        memory_confirm(entry=memory_propose(turn=said, scope="user", subject="alice", kind="preference",
                                            content=content), by=alice)
    earlier = memory_context(alice, task=task, turn=said)
    assert FORGET in earlier.text
    Session.objects.filter(pk=session.pk).update(summary=f"Alice gave her details. {earlier.text}")

    carol = APIClient()
    carol.force_authenticate(demo["carol"])
    found = {e["content"]: e for e in carol.get("/api/v1/memory/", {"subject": "alice"}).json()["results"]}
    assert set(found) == {"Prefers quotes as PDF", f"Alice's {FORGET}"}
    fix = found["Prefers quotes as PDF"]
    corrected = carol.patch(f"/api/v1/memory/{fix['id']}/", {"content": "Prefers quotes as Excel",
                                                              "reason": "alice asked"}, format="json")
    assert corrected.status_code == 200 and corrected.json()["version"] == 2
    gone = found[f"Alice's {FORGET}"]
    assert "1 session summary" in carol.get(f"/api/v1/memory/{gone['id']}/delete-preview/").json()["text"]
    assert carol.delete(f"/api/v1/memory/{gone['id']}/").status_code == 204

    next_turn = Turn.objects.create(session=session, seq=2, role="user", text="Any news on my keyboard?")
    context = memory_context(alice, task=task, turn=next_turn)
    assert "Prefers quotes as Excel" in context.text and "Prefers quotes as PDF" not in context.text
    assert FORGET not in context.text
    assert where_text_is(FORGET) == []
    # The history of what was used survives, by id and version only.
    assert MemoryEvent.objects.filter(entry_id=gone["id"], action="use", turn=said).exists()
    assert Checkpoint.objects.filter(task=task).exists()

"""Conversations as a requester would have them, English and Traditional Chinese, replayed
from tests/procurement/chat/transcripts/*.yaml: after each turn, the action taken, the
reply, the draft as stored, and the task's real state (steps run eagerly, ERP across a socket)."""
from decimal import Decimal

import pytest

from agentstate.models import Task
from procurement.models import PurchaseRequest
from tests.procurement.chat.support import load_transcripts, no_memory_store, open_session, talk  # noqa: F401

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("no_memory_store")]


def request_as_stored(task) -> dict:
    request = PurchaseRequest.objects.get(task=task)
    budget = None if request.budget is None else str(request.budget)
    return {"justification": request.justification, "budget": budget,
            "lines": [{"description": line.description, "quantity": line.quantity} for line in request.lines.all()]}


@pytest.mark.parametrize("transcript", load_transcripts())
def test_transcript(transcript, demo, erp, eager):
    user = demo[transcript["user"]]
    session = open_session(user)
    for n, turn in enumerate(transcript["turns"], start=1):
        where = f"turn {n} ({turn['say']!r})"
        result = talk(session, user, turn["say"])
        assert result.action == turn["action"], f"{where}: {result.reply}"
        for text in turn.get("reply_has", []):
            assert text in result.reply, f"{where}: {text!r} not in {result.reply!r}"
        for text in turn.get("reply_lacks", []):
            assert text not in result.reply, f"{where}: {text!r} in {result.reply!r}"
        if "state" in turn:
            assert (result.task.state if result.task else None) == turn["state"], f"{where}: {result.reply}"
        if "expects" in turn:
            assert result.turn.data["expects"] == turn["expects"], where
        if "draft" in turn:
            assert Task.objects.get(pk=result.task.pk).data["draft"] == turn["draft"], where
        if "request" in turn:
            assert request_as_stored(result.task) == turn["request"], where


def test_transcripts_cover_both_languages():
    names = [param.id for param in load_transcripts()]
    assert any(n.startswith("en_") for n in names) and any(n.startswith("zh_") for n in names)
    assert Decimal("1")  # the fixtures load as YAML: a broken file fails collection, not silently

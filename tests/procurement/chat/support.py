"""Helpers and fixtures for the chat tests: sessions, a talk() shortcut, scripted brains, and
a memory store stand-in so these tests do not depend on the memory store's progress."""
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from agentstate.models import Session, Task, Turn
from procurement.chat import memory_seam
from procurement.chat.brain import Proposal
from procurement.chat.runtime import chat_turn

HERE = Path(__file__).resolve().parent
TRANSCRIPTS = HERE / "transcripts"
RECORDED = HERE / "recorded"


def open_session(user) -> Session:
    return Session.objects.create(owner=user)


def talk(session, user, *texts, brain=None):
    """Say each text in turn; the last result."""
    result = None
    for text in texts:
        result = chat_turn(session=session, user=user, text=text, brain=brain)
    return result


def agent_turns(session) -> list[Turn]:
    return list(session.turns.filter(role=Turn.Role.AGENT).order_by("seq"))


def draft_of(session) -> dict:
    session.refresh_from_db()
    return Task.objects.get(pk=session.task_id).data.get("draft", {}) if session.task_id else {}


def load_transcripts() -> list:
    return [pytest.param(yaml.safe_load(path.read_text(encoding="utf-8")), id=path.stem)
            for path in sorted(TRANSCRIPTS.glob("*.yaml"))]


@dataclass
class ScriptedBrain:
    """A brain that proposes exactly what the test says: for checking what the runtime allows."""
    proposals: list
    name: str = "scripted"
    seen: list = field(default_factory=list)

    def propose(self, ctx):
        self.seen.append(ctx)
        proposal = self.proposals.pop(0)
        return proposal if isinstance(proposal, Proposal) else Proposal(reply="", action=proposal)


@dataclass
class FakeMemory:
    """Stands in for agentstate.memory: entries to retrieve, proposals received."""
    entries: list = field(default_factory=list)
    proposed: list = field(default_factory=list)

    def add(self, id, content, kind="preference", version=1, scope="user"):
        self.entries.append(SimpleNamespace(id=id, version=version, scope=scope, kind=kind, content=content))

    def memory_retrieve(self, user, *, task=None, turn=None, limit=20):
        return self.entries[:limit]

    def memory_propose(self, **kwargs):
        self.proposed.append(kwargs)
        return SimpleNamespace(id=100 + len(self.proposed))


@pytest.fixture
def no_memory_store(monkeypatch):
    """Chat as it runs before the memory store exists."""
    monkeypatch.setattr(memory_seam, "_function", lambda name: None)


@pytest.fixture
def fake_memory(monkeypatch):
    store = FakeMemory()
    monkeypatch.setattr(memory_seam, "_function", lambda name: getattr(store, name))
    return store

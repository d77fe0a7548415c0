"""Deleting memory for real: the content leaves the entry, its history and everything derived
from it; a tombstone keeps who, when and why; events and checkpoints keep only ids."""
import pytest
from django.contrib.auth.models import Group
from django.utils import timezone

from agentstate.actors import Actor
from agentstate.errors import DomainError, NotFound, NotPermitted
from agentstate.machine import fire
from agentstate.memory import derivers
from agentstate.memory.deletion import REMOVED, memory_delete, memory_delete_preview
from agentstate.memory.models import MemoryEntry, MemoryEvent, MemoryVersion
from agentstate.memory.retrieval import memory_context
from agentstate.memory.services import memory_confirm, memory_correct, memory_create, memory_propose
from agentstate.models import Checkpoint, Session, Task, Turn

from tests.agentstate.memory_support import group_policy, where_text_is  # noqa: F401

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("group_policy")]
MARKER = "zq7-marker-Excel-for-quotes"


@pytest.fixture
def root(make_user):
    return make_user("root", is_superuser=True)


@pytest.fixture
def used_entry(alice, root, make_task):
    """An entry with a correction, a pending change, a use in a task turn and a summary that quoted it."""
    entry = memory_create(by=root, scope="user", subject="alice", kind="preference", content=f"{MARKER} v1")
    memory_correct(entry=entry, by=alice, content=f"{MARKER} v2", reason=f"was '{MARKER} v1'")
    memory_propose(entry=entry, by=alice, content=f"{MARKER} v3")
    task = make_task("queued")
    session = Session.objects.create(owner=alice, task=task)
    turn = Turn.objects.create(session=session, seq=1, role="user", text="What do you know about my quotes?")
    context = memory_context(alice, task=task, turn=turn)
    # What the runtime keeps of a use: ids and versions, in the task (and so its checkpoint).
    fire(task.pk, "start", actor=Actor.runtime(), data={"memory_used": context.refs})
    Session.objects.filter(pk=session.pk).update(summary=f"Alice said hello. Known: {context.text}")
    return entry


def test_the_preview_says_what_else_goes(used_entry):
    report = memory_delete_preview(used_entry)
    assert (report.versions, nonzero(report.derived)) == (2, {"session summaries": 1})
    assert report.text == "also removes 2 history versions and 1 session summary"


def test_after_a_delete_no_column_anywhere_holds_the_content(used_entry, root, make_task):
    assert set(where_text_is(MARKER)) >= {"agentstate_memoryentry.content", "agentstate_memoryversion.content",
                                          "agentstate_session.summary", "agentstate_memoryevent.reason"}
    memory_delete(entry=used_entry, by=root, reason="asked to forget")
    assert where_text_is(MARKER) == []
    # The record of use survives by id and version.
    checkpoint = Checkpoint.objects.filter(label="start").get()
    assert checkpoint.snapshot["data"]["memory_used"] == [{"id": str(used_entry.pk), "version": 2}]
    assert MemoryEvent.objects.filter(entry=used_entry, action="use", entry_version=2).exists()


def test_a_tombstone_keeps_id_who_when_and_why_without_content(used_entry, root):
    report = memory_delete(entry=used_entry.pk, by=root, reason="asked to forget")
    tomb = MemoryEntry.objects.get(pk=used_entry.pk)
    assert (tomb.status, tomb.content, tomb.deleted_by, tomb.delete_reason) == ("deleted", "", root, "asked to forget")
    assert tomb.deleted_at is not None and tomb.version == 2
    assert not MemoryVersion.objects.filter(entry=used_entry).exists()
    assert report.versions == 2 and nonzero(report.derived) == {"session summaries": 1}
    last = MemoryEvent.objects.filter(entry=used_entry).last()
    assert (last.action, last.actor, last.reason) == ("delete", root, "asked to forget")
    assert MemoryEvent.objects.get(entry=used_entry, action="correct").reason == REMOVED


def test_the_source_turn_is_redacted_after_the_preview_said_so(alice, root):
    session = Session.objects.create(owner=alice)
    turn = Turn.objects.create(session=session, seq=1, role="user", text="I always want Excel files")
    echo = Turn.objects.create(session=session, seq=2, role="agent", text="Noted: I always want Excel files",
                               data={"proposal": {"content": "Excel files"}})
    entry = memory_propose(turn=turn, scope="user", subject="alice", kind="preference", content="Excel files")
    preview = memory_delete_preview(entry, by=root)
    today = timezone.localdate().isoformat()
    assert preview.source_turns == 1
    assert preview.source_replacement == f"[removed: memory deleted by root on {today}]"
    assert preview.derived["chat turns quoting it"] == 1
    memory_delete(entry=entry, by=root)
    assert Turn.objects.get(pk=turn.pk).text == f"[removed: memory deleted by root on {today}]"
    echo.refresh_from_db()
    assert (echo.text, echo.data) == ("Noted: [removed]", {"proposal": {"content": "[removed]"}})
    assert where_text_is("Excel files") == []


@pytest.mark.parametrize("reason", ["it said Excel files", "  ALWAYS want excel   files, wrong", "she does not want Excel files any more"])
def test_a_deletion_reason_that_quotes_the_entry_is_refused_and_nothing_changes(alice, root, reason):
    entry = memory_create(by=root, scope="user", subject="alice", kind="preference", content="Always want Excel files")
    with pytest.raises(DomainError, match="repeats what the entry says") as refused:
        memory_delete(entry=entry, by=root, reason=reason)
    assert refused.value.extra["errors"]["reason"]
    assert MemoryEntry.objects.get(pk=entry.pk).content == "Always want Excel files"


def test_a_reason_that_does_not_quote_is_kept(alice, root):
    entry = memory_create(by=root, scope="user", subject="alice", kind="preference", content="Always want Excel files")
    memory_delete(entry=entry, by=root, reason="no longer true; she asked us to forget")
    assert MemoryEntry.objects.get(pk=entry.pk).delete_reason == "no longer true; she asked us to forget"


def test_task_data_and_checkpoints_quoting_it_are_masked_and_still_load(alice, root, make_task):
    from agentstate.machine import checkpoint_is_intact

    entry = memory_create(by=root, scope="user", subject="alice", kind="preference", content="ship to the zq8 dock")
    task = make_task("queued")
    fire(task.pk, "start", actor=Actor.runtime(), data={"notes": ["ship to the zq8 dock", "fast"]})
    memory_delete(entry=entry, by=root)
    task.refresh_from_db()
    assert task.data["notes"] == ["[removed]", "fast"] and task.state == "working"
    assert all(checkpoint_is_intact(cp) for cp in Checkpoint.objects.filter(task=task))
    assert where_text_is("zq8") == []


@pytest.mark.django_db
@pytest.mark.postgres
def test_a_large_tasks_json_is_masked_in_its_overlay_too(alice, root, make_task):
    import secrets

    entry = memory_create(by=root, scope="user", subject="alice", kind="preference", content="ship to the zq9 dock")
    task = make_task("queued", lines=[secrets.token_hex(64) for _ in range(100)])
    fire(task.pk, "start", actor=Actor.runtime(), data={"notes": ["ship to the zq9 dock", "fast"]})
    assert "zq9" in str(Task.objects.filter(pk=task.pk).values_list("data_overlay", flat=True).get())
    memory_delete(entry=entry, by=root)
    task.refresh_from_db()
    assert task.data["notes"] == ["[removed]", "fast"] and len(task.data["lines"]) == 100
    assert where_text_is("zq9") == []


def nonzero(counts: dict) -> dict:
    return {name: n for name, n in counts.items() if n}


def test_a_registered_deriver_is_previewed_and_purged(used_entry, root):
    cache = {str(used_entry.pk): ["embedding-1", "embedding-2"]}
    derivers.register(derivers.Deriver("embeddings", "embedding",
                                       count=lambda pk, texts: len(cache.get(pk, [])),
                                       purge=lambda pk, texts: len(cache.pop(pk, []))))
    try:
        assert memory_delete_preview(used_entry).text == (
            "also removes 2 history versions, 1 session summary and 2 embeddings")
        memory_delete(entry=used_entry, by=root)
        assert cache == {}
    finally:
        derivers.unregister("embeddings")


def test_who_may_not_confirm_may_not_delete(alice, bob, erin, root):
    Group.objects.create(name="T1").user_set.add(alice, bob)
    mine = memory_create(by=root, scope="user", subject="alice", kind="fact", content="Alice's")
    team = memory_create(by=root, scope="department", subject="T1", kind="fact", content="T1's")
    with pytest.raises(NotFound):
        memory_delete(entry=mine, by=bob)
    with pytest.raises(NotFound):
        memory_delete(entry=team, by=erin)
    with pytest.raises(NotPermitted):
        memory_delete(entry=team, by=alice)
    assert MemoryEntry.objects.filter(status="active").count() == 2
    memory_delete(entry=team, by=bob)  # T1's manager


def test_a_deleted_entry_is_gone_for_every_service(alice, root):
    entry = memory_create(by=root, scope="user", subject="alice", kind="fact", content="Gone soon")
    memory_delete(entry=entry, by=alice)
    for attempt in (lambda: memory_delete(entry=entry, by=root), lambda: memory_confirm(entry=entry, by=root),
                    lambda: memory_correct(entry=entry, by=root, content="Back again"),
                    lambda: memory_delete_preview(entry, by=root)):
        with pytest.raises(NotFound):
            attempt()
    assert memory_context(alice).entries == []


def test_copies_are_masked_where_the_entry_reached_and_nowhere_else(alice, erin, root, make_task):
    """An organisation-wide entry the agent used in erin's chat: its echo there is masked, and so is
    that chat's task; erin's own unrelated request that happens to use the same words is hers,
    untouched, and so are its checkpoints."""
    from agentstate.machine import task_create

    entry = memory_create(by=root, scope="organisation", subject="", kind="procedure",
                          content="Use the zq9 purchasing portal")
    used_task = task_create(kind="sample", initiator=erin, tenant="T2", data={"note": "Use the zq9 purchasing portal"})
    chat = Session.objects.create(owner=erin, task=used_task)
    asked = Turn.objects.create(session=chat, seq=1, role="user", text="How do I order?")
    memory_context(erin, task=used_task, turn=asked)
    echo = Turn.objects.create(session=chat, seq=2, role="agent", text="Use the zq9 purchasing portal, as agreed")
    unrelated = task_create(kind="sample", initiator=erin, tenant="T2", data={"note": "Use the zq9 purchasing portal"})

    assert memory_delete_preview(entry, by=root).derived["task records quoting it"] == 2  # the task and its checkpoint
    memory_delete(entry=entry, by=root, reason="replaced")

    echo.refresh_from_db()
    used_task.refresh_from_db()
    unrelated.refresh_from_db()
    assert echo.text == "[removed], as agreed" and used_task.data["note"] == "[removed]"
    assert unrelated.data["note"] == "Use the zq9 purchasing portal"
    assert "zq9" in Checkpoint.objects.get(task=unrelated).body

"""Housekeeping: expiry on valid_until, reconfirmation flags, retention that really deletes."""
from datetime import timedelta

import pytest
from django.utils import timezone

from agentstate.memory.models import MemoryEntry, MemoryEvent
from agentstate.memory.retrieval import memory_retrieve
from agentstate.memory.services import memory_confirm, memory_create
from agentstate.memory.sweeps import (
    memory_expire_due,
    memory_flag_subject_left,
    memory_flag_unconfirmed,
    memory_maintenance,
    memory_purge,
)

from tests.agentstate.memory_support import group_policy  # noqa: F401

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("group_policy")]
DAY = timedelta(days=1)


@pytest.fixture
def root(make_user):
    return make_user("root", is_superuser=True)


def make(root, content, *, kind="fact", subject="alice", days_old=0, **kw):
    entry = memory_create(by=root, scope="user", subject=subject, kind=kind, content=content, **kw)
    if days_old:
        then = timezone.now() - days_old * DAY
        MemoryEntry.objects.filter(pk=entry.pk).update(created_at=then, last_confirmed_at=then, valid_from=then)
    return MemoryEntry.objects.get(pk=entry.pk)


def test_entries_past_valid_until_expire_once(alice, root):
    entry = make(root, "Office closed this week", kind="event", valid_until=timezone.now() + DAY)
    keep = make(root, "Prefers Excel")
    assert memory_expire_due(now=timezone.now() + 2 * DAY) == 1
    assert memory_expire_due(now=timezone.now() + 2 * DAY) == 0
    assert MemoryEntry.objects.get(pk=entry.pk).status == "expired"
    assert MemoryEntry.objects.get(pk=keep.pk).status == "active"
    assert MemoryEvent.objects.filter(entry=entry, action="expire").count() == 1
    assert [e.content for e in memory_retrieve(alice)] == ["Prefers Excel"]


def test_entries_not_confirmed_for_n_days_are_flagged_once_and_confirming_clears_it(alice, root):
    old, fresh = make(root, "Old habit", days_old=200), make(root, "New habit")
    assert memory_flag_unconfirmed(days=180) == 1
    assert memory_flag_unconfirmed(days=180) == 0
    flagged = MemoryEntry.objects.get(pk=old.pk)
    assert (flagged.flag_reason, MemoryEntry.objects.get(pk=fresh.pk).flag_reason) == ("reconfirm", "")
    assert MemoryEvent.objects.filter(entry=old, action="reconfirm_flag").count() == 1
    reconfirmed = memory_confirm(entry=old, by=alice)
    assert (reconfirmed.flag_reason, reconfirmed.flagged_at, reconfirmed.version) == ("", None, 1)
    assert reconfirmed.last_confirmed_at > timezone.now() - DAY


def test_retention_per_kind_really_deletes_and_a_dry_run_changes_nothing(alice, root, settings):
    settings.MEMORY_RETENTION_DAYS = {"event": 30, "preference": None}
    old_event = make(root, "Stocktake in March", kind="event", days_old=31)
    recent_event = make(root, "Stocktake in May", kind="event", days_old=29)
    old_preference = make(root, "Likes blue", kind="preference", days_old=5000)
    counts = memory_purge(dry_run=True)
    assert counts["retention event 30d"] == 1
    assert not any(rule.startswith("retention preference") for rule in counts)  # None: kept for good
    assert MemoryEntry.objects.get(pk=old_event.pk).content == "Stocktake in March"
    memory_purge()
    assert MemoryEntry.objects.get(pk=old_event.pk).status == "deleted"
    assert MemoryEntry.objects.get(pk=old_event.pk).content == ""
    assert {MemoryEntry.objects.get(pk=e.pk).status for e in (recent_event, old_preference)} == {"active"}


def test_expired_entries_are_deleted_n_days_after_their_validity_ended(alice, root, settings):
    settings.MEMORY_EXPIRED_PURGE_DAYS = 10
    ended = make(root, "Old promo", kind="event", valid_until=timezone.now() + DAY)
    memory_expire_due(now=timezone.now() + 2 * DAY)
    assert memory_purge(now=timezone.now() + 5 * DAY)["expired 10d"] == 0
    assert memory_purge(now=timezone.now() + 12 * DAY)["expired 10d"] == 1
    assert MemoryEntry.objects.get(pk=ended.pk).status == "deleted"


def test_a_departed_persons_flagged_entries_go_after_the_grace_period(alice, root, settings):
    settings.MEMORY_DEPARTED_PURGE_DAYS = 90
    entry = make(root, "Alice's desk is 3F-12")
    type(alice).objects.filter(pk=alice.pk).update(is_active=False)
    assert memory_flag_subject_left(username="alice", by=root) == 1
    assert memory_flag_subject_left(username="alice", by=root) == 0  # safe to run twice
    assert memory_purge(now=timezone.now() + 30 * DAY)["departed 90d"] == 0
    assert memory_purge(now=timezone.now() + 91 * DAY)["departed 90d"] == 1
    tomb = MemoryEntry.objects.get(pk=entry.pk)
    assert (tomb.status, tomb.deleted_by, tomb.delete_reason) == ("deleted", None, "retention: departed 90d")


def test_maintenance_runs_every_sweep_in_one_pass(alice, root):
    make(root, "Ends tomorrow", kind="event", valid_until=timezone.now() + DAY)
    report = memory_maintenance(now=timezone.now() + 2 * DAY)
    assert report["expired"] == 1 and "flagged" in report and any(k.startswith("purged") for k in report)

"""`manage.py purge_memory`: expires what ran out and really deletes what retention says."""
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from agentstate.memory.models import MemoryEntry
from agentstate.memory.services import memory_create
from tests.agentstate.memory_support import where_text_is

pytestmark = pytest.mark.django_db


def run(*args) -> str:
    out = StringIO()
    call_command("purge_memory", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def old_and_new(demo, settings):
    settings.MEMORY_RETENTION_DAYS = {"event": 30}
    carol = demo["carol"]
    old = memory_create(by=carol, scope="organisation", subject="", kind="event", content="pz1 stocktake 2023")
    new = memory_create(by=carol, scope="organisation", subject="", kind="event", content="pz2 stocktake 2025")
    then = timezone.now() - timedelta(days=40)
    MemoryEntry.objects.filter(pk=old.pk).update(created_at=then, last_confirmed_at=then, valid_from=then)
    return old, new


def test_a_dry_run_counts_and_changes_nothing(old_and_new):
    assert "would delete 1 (retention event 30d)" in run("--dry-run")
    assert MemoryEntry.objects.filter(status="active").count() == 2


def test_purge_deletes_past_retention_for_real_and_keeps_the_rest(old_and_new):
    old, new = old_and_new
    assert "deleted 1 (retention event 30d)" in run()
    assert MemoryEntry.objects.get(pk=old.pk).status == "deleted"
    assert where_text_is("pz1") == [] and where_text_is("pz2")
    assert MemoryEntry.objects.get(pk=new.pk).status == "active"


def test_expired_entries_older_than_the_given_days_go(demo):
    entry = memory_create(by=demo["carol"], scope="organisation", subject="", kind="fact", content="pz3 promo",
                          valid_until=timezone.now() + timedelta(days=1))
    MemoryEntry.objects.filter(pk=entry.pk).update(valid_from=timezone.now() - timedelta(days=20),
                                                   valid_until=timezone.now() - timedelta(days=5))
    output = run("--expired-days", "10")
    assert "expired 1" in output and "deleted 0 (expired 10d)" in output
    assert "deleted 1 (expired 3d)" in run("--expired-days", "3")
    assert MemoryEntry.objects.get(pk=entry.pk).status == "deleted"

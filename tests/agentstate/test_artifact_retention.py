"""Retention of artifacts (agentstate.artifacts.retention, part of `prune_state`): the bytes of a
file go once every task using it ended past the period; the rows saying who uploaded what, when,
its name, size and SHA-256 stay; a blob another kept task uses stays whole."""
import io
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from agentstate.artifacts.models import Artifact, ArtifactVersion, Blob
from agentstate.artifacts.services import ArtifactPruned, artifact_put, artifact_read
from agentstate.models import Session, Task
from agentstate.retention import Policy, state_prune
from tests.engine_support import task_in_state

from tests.agentstate.sample_kind import SAMPLE  # noqa: F401  (registers the kind)

pytestmark = pytest.mark.django_db
POLICY = Policy(checkpoint_keep_days_after_end=30)


@pytest.fixture(autouse=True)
def artifact_dir(settings, tmp_path):
    settings.STORAGES = {**settings.STORAGES, "artifacts": {
        "BACKEND": "django.core.files.storage.FileSystemStorage", "OPTIONS": {"location": str(tmp_path)}}}
    return tmp_path


def stored_files(root):
    return sorted(p for p in root.rglob("*") if p.is_file())


def task_with_file(user, state, content, *, days_ago=31, name="quotes.csv"):
    task = task_in_state(state=state, initiator=user, kind="sample", tenant="T1")
    version = artifact_put(task=task, name=name, content=content, filename=name, created_by=user)
    Task.objects.filter(pk=task.pk).update(updated_at=timezone.now() - timedelta(days=days_ago))
    return task, version


def test_a_file_of_a_task_ended_past_the_period_loses_its_bytes_but_keeps_its_record(alice, artifact_dir):
    _, version = task_with_file(alice, "done", b"item,price\nLaptop,35000\n")
    report = state_prune(policy=POLICY)
    assert (report.artifacts.blobs, report.artifacts.bytes, report.artifacts.artifacts) == (1, 24, 1)
    assert stored_files(artifact_dir) == []
    version = ArtifactVersion.objects.select_related("blob", "artifact").get(pk=version.pk)
    assert version.blob.pruned_at is not None and version.size == 24 and version.created_by == alice
    assert version.filename == "quotes.csv" and len(version.sha256) == 64
    with pytest.raises(ArtifactPruned, match="removed under the retention policy"):
        artifact_read(version)
    assert state_prune(policy=POLICY).artifacts.blobs == 0  # nothing left to prune: idempotent


@pytest.mark.parametrize("state,days_ago", [
    ("done", 29),                 # ended, but within the period
    ("working", 400),             # still running
    ("awaiting_approval", 400),   # waiting on an approver
    ("draft", 400),               # a draft whose conversation is still open
])
def test_a_file_a_task_may_still_need_keeps_its_bytes(alice, artifact_dir, state, days_ago):
    task, version = task_with_file(alice, state, b"kept", days_ago=days_ago)
    Session.objects.create(owner=alice, task=task)
    assert state_prune(policy=POLICY).artifacts.blobs == 0
    assert artifact_read(version) == b"kept" and len(stored_files(artifact_dir)) == 1


def test_a_draft_whose_every_conversation_expired_loses_its_file_after_the_period(alice, artifact_dir):
    task, version = task_with_file(alice, "draft", b"abandoned")
    Session.objects.create(owner=alice, task=task, status=Session.Status.EXPIRED)
    assert state_prune(policy=POLICY).artifacts.blobs == 1
    assert stored_files(artifact_dir) == []


def test_a_blob_shared_with_a_kept_task_stays_until_that_task_lets_go_too(alice, bob, artifact_dir):
    ended, old = task_with_file(alice, "done", b"same bytes")
    drafting, new = task_with_file(bob, "draft", b"same bytes")
    conversation = Session.objects.create(owner=bob, task=drafting)
    assert old.blob_id == new.blob_id
    assert state_prune(policy=POLICY).artifacts.blobs == 0
    assert artifact_read(old) == b"same bytes"  # the ended task's version still reads while the blob stays
    Session.objects.filter(pk=conversation.pk).update(status=Session.Status.EXPIRED)
    report = state_prune(policy=POLICY)
    assert (report.artifacts.blobs, report.artifacts.artifacts) == (1, 2)
    assert stored_files(artifact_dir) == []


def test_a_fork_still_running_keeps_the_file_its_original_read(alice, artifact_dir):
    original, version = task_with_file(alice, "done", b"read by the fork")
    task_in_state(state="working", initiator=alice, kind="sample", tenant="T1",
                  data={"forked_from": {"task": str(original.pk), "version": 1}})
    assert state_prune(policy=POLICY).artifacts.blobs == 0
    assert artifact_read(version) == b"read by the fork"


def test_a_running_fork_of_an_ended_fork_keeps_the_first_originals_file(alice, artifact_dir):
    original, version = task_with_file(alice, "done", b"read two forks down")
    middle = task_in_state(state="done", initiator=alice, kind="sample", tenant="T1",
                           data={"forked_from": {"task": str(original.pk), "version": 1}})
    Task.objects.filter(pk=middle.pk).update(updated_at=timezone.now() - timedelta(days=31))
    task_in_state(state="working", initiator=alice, kind="sample", tenant="T1",
                  data={"forked_from": {"task": str(middle.pk), "version": 1}})
    assert state_prune(policy=POLICY).artifacts.blobs == 0
    assert artifact_read(version) == b"read two forks down"


def test_uploading_pruned_bytes_again_stores_them_again(alice, artifact_dir):
    _, old = task_with_file(alice, "done", b"back again")
    state_prune(policy=POLICY)
    fresh = task_in_state(state="working", initiator=alice, kind="sample", tenant="T1")
    version = artifact_put(task=fresh, name="quotes.csv", content=b"back again")
    assert version.blob_id == old.blob_id and Blob.objects.get(pk=old.blob_id).pruned_at is None
    assert artifact_read(version) == b"back again"


def test_prune_state_dry_run_counts_the_files_and_removes_nothing(alice, artifact_dir, settings):
    settings.CHECKPOINT_KEEP_DAYS_AFTER_END = 30
    task_with_file(alice, "done", b"12345")
    task_with_file(alice, "cancelled", b"67890", name="other.csv")
    out = io.StringIO()
    call_command("prune_state", "--dry-run", stdout=out)
    assert "Would remove the content of 2 stored files (10 bytes) of 2 artifacts" in out.getvalue()
    assert len(stored_files(artifact_dir)) == 2 and not Blob.objects.filter(pruned_at__isnull=False).exists()
    out = io.StringIO()
    call_command("prune_state", stdout=out)
    assert "Removed the content of 2 stored files (10 bytes) of 2 artifacts" in out.getvalue()
    assert stored_files(artifact_dir) == [] and Artifact.objects.count() == 2 and Blob.objects.count() == 2

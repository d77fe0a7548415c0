"""Content-addressed artifacts: stored once by SHA-256, versioned by lineage, never overwritten,
and read back only while the bytes still hash to their name."""
import hashlib

import pytest

from agentstate.artifacts.models import Artifact, ArtifactVersion, Blob
from agentstate.artifacts.services import ArtifactCorrupt, artifact_put, artifact_read, artifact_storage
from tests.engine_support import task_in_state

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def artifact_dir(settings, tmp_path):
    settings.STORAGES = {**settings.STORAGES, "artifacts": {
        "BACKEND": "django.core.files.storage.FileSystemStorage", "OPTIONS": {"location": str(tmp_path)}}}
    return tmp_path


def make_task(user):
    return task_in_state(state="open", initiator=user, kind="sample", tenant="T1")


def stored_files(root):
    return sorted(p for p in root.rglob("*") if p.is_file())


def test_the_same_bytes_uploaded_twice_are_stored_once_and_stay_one_version(alice, artifact_dir):
    task = make_task(alice)
    first = artifact_put(task=task, name="sheet", content=b"a,b\n1,2\n", filename="q.csv", created_by=alice)
    second = artifact_put(task=task, name="sheet", content=b"a,b\n1,2\n", filename="q.csv", created_by=alice)
    assert second.pk == first.pk and first.number == 1
    assert Blob.objects.count() == 1 and ArtifactVersion.objects.count() == 1
    files = stored_files(artifact_dir)
    assert len(files) == 1 and files[0].name == hashlib.sha256(b"a,b\n1,2\n").hexdigest()


def test_a_changed_file_is_a_new_version_and_the_old_one_still_reads(alice, artifact_dir):
    task = make_task(alice)
    v1 = artifact_put(task=task, name="sheet", content=b"price\n100\n", filename="q.csv")
    v2 = artifact_put(task=task, name="sheet", content=b"price\n120\n", filename="q.csv")
    assert (v1.number, v2.number) == (1, 2) and v1.artifact_id == v2.artifact_id
    assert v1.sha256 != v2.sha256
    assert artifact_read(v1) == b"price\n100\n" and artifact_read(v2) == b"price\n120\n"
    assert len(stored_files(artifact_dir)) == 2


def test_the_same_bytes_in_two_tasks_are_two_lineages_over_one_blob(alice, bob, artifact_dir):
    one, other = make_task(alice), make_task(bob)
    artifact_put(task=one, name="sheet", content=b"x\n")
    artifact_put(task=other, name="sheet", content=b"x\n")
    assert Artifact.objects.count() == 2 and Blob.objects.count() == 1 and len(stored_files(artifact_dir)) == 1


def test_going_back_to_earlier_bytes_is_a_new_version_pointing_at_the_old_blob(alice):
    task = make_task(alice)
    v1 = artifact_put(task=task, name="sheet", content=b"one")
    artifact_put(task=task, name="sheet", content=b"two")
    v3 = artifact_put(task=task, name="sheet", content=b"one")
    assert v3.number == 3 and v3.blob_id == v1.blob_id and Blob.objects.count() == 2


def test_bytes_changed_in_storage_are_refused_not_served(alice):
    version = artifact_put(task=make_task(alice), name="sheet", content=b"honest")
    storage = artifact_storage()
    with storage.open(version.blob.path, "wb") as handle:
        handle.write(b"forged")
    with pytest.raises(ArtifactCorrupt):
        artifact_read(version)


def test_versions_are_append_only(alice):
    version = artifact_put(task=make_task(alice), name="sheet", content=b"x")
    version.filename = "other.csv"
    with pytest.raises(Exception):
        version.save()

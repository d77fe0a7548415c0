"""Writing and reading artifacts.

`artifact_put` stores the bytes once under their SHA-256 (a second upload of the same bytes
finds the blob and writes nothing), and records a version of the task's lineage `name`: a new
number when the content differs from the latest version, the latest version itself when it
does not. `artifact_read` gives the bytes back only if they still hash to their name, and says
so (`ArtifactPruned`) when the retention pass removed them. Uploading bytes whose blob was pruned
stores them again."""
import hashlib

from django.core.files.base import ContentFile
from django.core.files.storage import storages
from django.db import IntegrityError, transaction
from django.db.models import Max

from ..errors import DomainError, NotFound
from .models import Artifact, ArtifactVersion, Blob

STORAGE = "artifacts"


class ArtifactCorrupt(DomainError):
    """The stored bytes no longer hash to their name: refused, never used."""
    http_status = 409


class ArtifactPruned(DomainError):
    """The bytes were removed under the retention policy; what was read (name, size, SHA-256) stays."""
    http_status = 410


def artifact_storage():
    """STORAGES["artifacts"] when configured (S3-compatible, say); else the default storage."""
    try:
        return storages[STORAGE]
    except Exception:
        return storages["default"]


def blob_path(sha256: str) -> str:
    return f"sha256/{sha256[:2]}/{sha256[2:4]}/{sha256}"


def blob_put(content: bytes) -> Blob:
    """The blob for these bytes, written to storage only if no blob has them yet."""
    sha256 = hashlib.sha256(content).hexdigest()
    found = Blob.objects.filter(pk=sha256).first()
    if found is not None:
        return found
    storage, path = artifact_storage(), blob_path(sha256)
    if not storage.exists(path):
        saved = storage.save(path, ContentFile(content))
        if saved != path:  # a concurrent writer stored the same bytes first: keep one copy
            storage.delete(saved)
    try:
        with transaction.atomic():
            return Blob.objects.create(sha256=sha256, size=len(content), path=path)
    except IntegrityError:
        return Blob.objects.get(pk=sha256)


def artifact_put(*, task, name: str, content: bytes, filename: str = "", content_type: str = "",
                 created_by=None) -> ArtifactVersion:
    """Version `content` as the task's artifact `name` (see the module docstring)."""
    blob = blob_put(content)
    with transaction.atomic():
        artifact, _ = Artifact.objects.get_or_create(task=task, name=name[:200])
        # The lineage's row lock orders versions: two uploads never take the same number.
        Artifact.objects.select_for_update(no_key=True).filter(pk=artifact.pk).first()
        blob = _blob_restore(blob, content)
        latest = artifact.versions.order_by("-number").select_related("blob").first()
        if latest is not None and latest.blob_id == blob.pk:
            return latest
        number = (artifact.versions.aggregate(n=Max("number"))["n"] or 0) + 1
        return ArtifactVersion.objects.create(artifact=artifact, number=number, blob=blob,
                                              filename=(filename or name)[:200], content_type=content_type[:100],
                                              created_by=created_by)


def _blob_restore(blob: Blob, content: bytes) -> Blob:
    """Under the blob's row lock (the retention pass takes it too): bytes it pruned are stored again."""
    locked = Blob.objects.select_for_update().get(pk=blob.pk)
    if locked.pruned_at is not None:
        storage = artifact_storage()
        if not storage.exists(locked.path):
            storage.save(locked.path, ContentFile(content))
        Blob.objects.filter(pk=blob.pk).update(pruned_at=None)
        locked.pruned_at = None
    return locked


def artifact_read(version: ArtifactVersion) -> bytes:
    """The version's bytes, checked against their SHA-256."""
    if version.blob.pruned_at is not None:
        raise ArtifactPruned(f"The content of {version.artifact.name} v{version.number} was removed under the "
                             "retention policy.")
    try:
        with artifact_storage().open(version.blob.path, "rb") as handle:
            content = handle.read()
    except FileNotFoundError:  # the pass deleted the bytes but its transaction did not commit
        raise ArtifactPruned(f"The content of {version.artifact.name} v{version.number} was removed under the "
                             "retention policy.")
    if hashlib.sha256(content).hexdigest() != version.blob_id:
        raise ArtifactCorrupt(f"The stored file of {version.artifact.name} v{version.number} does not match its "
                              "SHA-256; it is not used.")
    return content


def artifact_version_of(task, version_id, *, referenced=()) -> ArtifactVersion:
    """One of the task's artifact versions, or one its State names in `referenced` (a fork reads
    the file its original read); 404 for anything else. Callers check who may see the task."""
    versions = ArtifactVersion.objects.select_related("artifact", "blob").filter(pk=version_id)
    found = versions.filter(artifact__task=task).first()
    if found is None and str(version_id) in {str(ref) for ref in referenced}:
        found = versions.first()
    if found is None:
        raise NotFound("No such file.")
    return found

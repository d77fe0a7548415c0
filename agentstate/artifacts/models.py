"""An artifact's tables. `Blob` is one stored content (its SHA-256 names it); `Artifact` is a
lineage (a task's "quotes.xlsx"); `ArtifactVersion` says which content the lineage had at
version n. Versions are written once; a changed file is a new version, never an overwrite."""
import uuid

from django.conf import settings
from django.db import models

from ..models import AppendOnlyModel


class Blob(AppendOnlyModel):
    sha256 = models.CharField(max_length=64, primary_key=True)
    size = models.PositiveBigIntegerField()
    path = models.CharField(max_length=200, help_text="Name in the artifacts storage backend.")
    created_at = models.DateTimeField(auto_now_add=True)
    # Set by the retention pass when the bytes were removed from storage; the row (its SHA-256 and
    # size) stays, so the versions that name it still say what was read. The only field ever updated.
    pruned_at = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return f"blob {self.sha256[:12]} ({self.size} bytes)"


class Artifact(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    task = models.ForeignKey("agentstate.Task", on_delete=models.PROTECT, related_name="artifacts")
    name = models.CharField(max_length=200, help_text="The lineage: versions of one file share it.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["task", "name"]
        constraints = [models.UniqueConstraint(fields=["task", "name"], name="artifact_unique_name_per_task")]

    def __str__(self):
        return f"artifact {self.name} of {self.task_id}"


class ArtifactVersion(AppendOnlyModel):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    artifact = models.ForeignKey(Artifact, on_delete=models.PROTECT, related_name="versions")
    number = models.PositiveIntegerField()
    blob = models.ForeignKey(Blob, on_delete=models.PROTECT, related_name="versions")
    filename = models.CharField(max_length=200)
    content_type = models.CharField(max_length=100, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT,
                                   related_name="artifact_versions")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["artifact", "number"]
        constraints = [models.UniqueConstraint(fields=["artifact", "number"], name="artifact_version_unique")]

    def __str__(self):
        return f"{self.artifact.name} v{self.number} ({self.blob_id[:12]})"

    @property
    def sha256(self) -> str:
        return self.blob_id

    @property
    def size(self) -> int:
        return self.blob.size

    def ref(self) -> dict:
        """What a task's State keeps of it: enough to find and check the exact bytes read."""
        return {"artifact": str(self.artifact_id), "version": self.number, "version_id": str(self.pk),
                "sha256": self.blob_id, "filename": self.filename, "name": self.artifact.name}

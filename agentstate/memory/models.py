"""Memory tables. Content lives only in MemoryEntry.content and MemoryVersion.content, so a
deletion has exactly two places to wipe; events hold ids and versions, never the text."""
import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q

MAX_CONTENT = 2000


class Scope(models.TextChoices):
    # Ordered from most to least specific: retrieval returns them in this order.
    USER = "user"
    DEPARTMENT = "department"
    ORGANISATION = "organisation"


class Kind(models.TextChoices):
    FACT = "fact"
    PREFERENCE = "preference"
    PROCEDURE = "procedure"
    TERM = "term"
    EVENT = "event"


class Sensitivity(models.TextChoices):
    NORMAL = "normal"
    PERSONAL = "personal"
    CONFIDENTIAL = "confidential"


class SourceKind(models.TextChoices):
    SESSION = "session", "a chat turn"
    ADMIN = "admin", "written directly by a person"
    SYSTEM = "system", "the runtime"


class MemoryEntry(models.Model):
    class Status(models.TextChoices):
        PROPOSED = "proposed"
        ACTIVE = "active"
        SUPERSEDED = "superseded"
        EXPIRED = "expired"
        DELETED = "deleted"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    scope = models.CharField(max_length=12, choices=Scope.choices)
    subject = models.CharField(max_length=150, blank=True,
                               help_text="Username or department code; blank for the organisation.")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    content = models.TextField(max_length=MAX_CONTENT, blank=True, help_text="Empty once deleted.")
    sensitivity = models.CharField(max_length=12, choices=Sensitivity.choices, default=Sensitivity.NORMAL)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PROPOSED)
    version = models.PositiveIntegerField(default=1)
    # Provenance by reference only: the turn keeps the person's words, the entry never copies them.
    source_kind = models.CharField(max_length=8, choices=SourceKind.choices)
    source_session = models.ForeignKey("agentstate.Session", null=True, blank=True, on_delete=models.SET_NULL,
                                       related_name="memory_entries")
    source_turn = models.ForeignKey("agentstate.Turn", null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="memory_entries")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="memory_created")
    confirmed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                     related_name="memory_confirmed")
    confirmed_at = models.DateTimeField(null=True, blank=True)
    last_confirmed_at = models.DateTimeField(null=True, blank=True, help_text="Reconfirmation resets the clock.")
    valid_from = models.DateTimeField()
    valid_until = models.DateTimeField(null=True, blank=True)
    # Flagged for a person to look at: not reconfirmed for a while, or its subject left.
    flag_reason = models.CharField(max_length=20, blank=True, help_text="reconfirm, or subject_left.")
    flagged_at = models.DateTimeField(null=True, blank=True)
    # The tombstone: who deleted it, when and why. The content is gone.
    deleted_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="memory_deleted")
    deleted_at = models.DateTimeField(null=True, blank=True)
    delete_reason = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        app_label = "agentstate"
        ordering = ["scope", "subject", "-created_at"]
        verbose_name_plural = "memory entries"
        indexes = [
            # Retrieval: one index range scan per (scope, subject) in a user's context, newest confirmed first.
            models.Index(fields=["scope", "subject", "-last_confirmed_at"], name="memory_retrieval_idx",
                         condition=Q(status="active")),
            models.Index(fields=["scope", "subject", "status"], name="memory_list_idx"),
            models.Index(fields=["valid_until"], name="memory_expiry_idx",
                         condition=Q(status__in=["active", "proposed"], valid_until__isnull=False)),
            models.Index(fields=["kind", "last_confirmed_at"], name="memory_retention_idx",
                         condition=~Q(status="deleted")),
        ]
        constraints = [
            models.CheckConstraint(condition=Q(valid_until__isnull=True) | Q(valid_until__gt=models.F("valid_from")),
                                   name="memory_valid_range"),
        ]

    def __str__(self):
        # Never the content: this string lands in admin logs and error messages.
        return f"{self.kind} memory {self.id} ({self.scope} {self.subject or '*'}, v{self.version}, {self.status})"


class MemoryVersion(models.Model):
    """Every text an entry has had or been offered; deleted with the entry."""

    class Status(models.TextChoices):
        CURRENT = "current"
        SUPERSEDED = "superseded"
        PENDING = "pending", "proposed, waiting for confirmation"
        REJECTED = "rejected", "overtaken before it was confirmed"

    entry = models.ForeignKey(MemoryEntry, on_delete=models.CASCADE, related_name="versions")
    version = models.PositiveIntegerField()
    content = models.TextField(max_length=MAX_CONTENT)
    status = models.CharField(max_length=10, choices=Status.choices)
    reason = models.CharField(max_length=500, blank=True)
    source_turn = models.ForeignKey("agentstate.Turn", null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="memory_versions")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="memory_versions")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        app_label = "agentstate"
        ordering = ["entry", "version", "id"]
        constraints = [
            models.UniqueConstraint(fields=["entry", "version"], condition=Q(status__in=["current", "superseded"]),
                                    name="memory_version_unique"),
            models.UniqueConstraint(fields=["entry"], condition=Q(status="pending"), name="memory_one_pending"),
        ]

    def __str__(self):
        return f"v{self.version} of memory {self.entry_id} ({self.status})"


class MemoryEvent(models.Model):
    """Why did the agent do that: each write, confirmation, use and deletion, by id and version."""

    class Action(models.TextChoices):
        CREATE = "create"
        PROPOSE = "propose"
        CONFIRM = "confirm"
        CORRECT = "correct"
        USE = "use"
        EXPIRE = "expire"
        DELETE = "delete"
        RECONFIRM_FLAG = "reconfirm_flag"
        REVIEW_FLAG = "review_flag"

    entry = models.ForeignKey(MemoryEntry, on_delete=models.PROTECT, related_name="events")
    entry_version = models.PositiveIntegerField()
    action = models.CharField(max_length=16, choices=Action.choices)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                              related_name="memory_events")
    actor_name = models.CharField(max_length=150, help_text="Kept if the user row goes; 'system' for the runtime.")
    at = models.DateTimeField(auto_now_add=True)
    reason = models.CharField(max_length=500, blank=True)
    task = models.ForeignKey("agentstate.Task", null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="memory_events")
    turn = models.ForeignKey("agentstate.Turn", null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="memory_events")
    trace_id = models.CharField(max_length=32, blank=True, help_text="The trace of the work it was used in.")

    class Meta:
        app_label = "agentstate"
        ordering = ["entry", "at", "id"]
        indexes = [
            models.Index(fields=["entry", "at"], name="memory_event_entry_idx"),
            models.Index(fields=["task"], name="memory_event_task_idx", condition=Q(task__isnull=False)),
        ]

    def __str__(self):
        return f"{self.action} memory {self.entry_id} v{self.entry_version} by {self.actor_name}"

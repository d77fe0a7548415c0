"""Memory tables. Content lives only in MemoryEntry.content and MemoryVersion.content, so a
deletion has exactly two places to wipe; events hold ids and versions, never the text."""
import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

MAX_CONTENT = 2000


class Scope(models.TextChoices):
    # Ordered from most to least specific: retrieval returns them in this order.
    USER = "user", pgettext_lazy("memory scope", "a person")
    DEPARTMENT = "department", pgettext_lazy("memory scope", "a department")
    ORGANISATION = "organisation", pgettext_lazy("memory scope", "the organisation")


class Kind(models.TextChoices):
    FACT = "fact", pgettext_lazy("memory kind", "fact")
    PREFERENCE = "preference", pgettext_lazy("memory kind", "preference")
    PROCEDURE = "procedure", pgettext_lazy("memory kind", "procedure")
    TERM = "term", pgettext_lazy("memory kind", "term")
    EVENT = "event", pgettext_lazy("memory kind", "event")


class Sensitivity(models.TextChoices):
    NORMAL = "normal", pgettext_lazy("memory sensitivity", "normal")
    PERSONAL = "personal", pgettext_lazy("memory sensitivity", "personal")
    CONFIDENTIAL = "confidential", pgettext_lazy("memory sensitivity", "confidential")


class SourceKind(models.TextChoices):
    SESSION = "session", pgettext_lazy("memory source", "a chat turn")
    ADMIN = "admin", pgettext_lazy("memory source", "written directly by a person")
    # Proposed by a person outside a chat (the memory page, the API), waiting for confirmation;
    # created_by says who.
    PROPOSAL = "proposal", pgettext_lazy("memory source", "proposed by a person")
    SYSTEM = "system", pgettext_lazy("memory source", "the runtime")


class MemoryEntry(models.Model):
    class Status(models.TextChoices):
        PROPOSED = "proposed", pgettext_lazy("memory status", "proposed")
        ACTIVE = "active", pgettext_lazy("memory status", "active")
        SUPERSEDED = "superseded", pgettext_lazy("memory status", "superseded")
        EXPIRED = "expired", pgettext_lazy("memory status", "expired")
        DELETED = "deleted", pgettext_lazy("memory status", "deleted")

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False, verbose_name=_("ID"))
    scope = models.CharField(max_length=12, choices=Scope.choices, verbose_name=_("scope"))
    subject = models.CharField(max_length=150, blank=True,
                               help_text=_("Username or department code; blank for the organisation."),
                               verbose_name=_("about"))
    kind = models.CharField(max_length=10, choices=Kind.choices, verbose_name=_("kind"))
    content = models.TextField(max_length=MAX_CONTENT, blank=True, help_text=_("Empty once deleted."),
                               verbose_name=_("content"))
    sensitivity = models.CharField(max_length=12, choices=Sensitivity.choices, default=Sensitivity.NORMAL,
                                   verbose_name=_("sensitivity"))
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PROPOSED, verbose_name=_("status"))
    version = models.PositiveIntegerField(default=1, verbose_name=_("version"))
    # Provenance by reference only: the turn keeps the person's words, the entry never copies them.
    source_kind = models.CharField(max_length=8, choices=SourceKind.choices, verbose_name=_("source"))
    source_session = models.ForeignKey("agentstate.Session", null=True, blank=True, on_delete=models.SET_NULL,
                                       related_name="memory_entries", verbose_name=_("source conversation"))
    source_turn = models.ForeignKey("agentstate.Turn", null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="memory_entries", verbose_name=_("source turn"))
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="memory_created", verbose_name=_("written by"))
    confirmed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                     related_name="memory_confirmed", verbose_name=_("confirmed by"))
    confirmed_at = models.DateTimeField(null=True, blank=True, verbose_name=_("confirmed at"))
    last_confirmed_at = models.DateTimeField(null=True, blank=True, help_text=_("Reconfirmation resets the clock."),
                                             verbose_name=_("last confirmed"))
    valid_from = models.DateTimeField(verbose_name=_("valid from"))
    valid_until = models.DateTimeField(null=True, blank=True, verbose_name=_("valid until"))
    # Flagged for a person to look at: not reconfirmed for a while, or its subject left.
    flag_reason = models.CharField(max_length=20, blank=True, help_text=_("reconfirm, or subject_left."),
                                   verbose_name=_("flagged because"))
    flagged_at = models.DateTimeField(null=True, blank=True, verbose_name=_("flagged at"))
    # The tombstone: who deleted it, when and why. The content is gone.
    deleted_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="memory_deleted", verbose_name=_("deleted by"))
    deleted_at = models.DateTimeField(null=True, blank=True, verbose_name=_("deleted at"))
    delete_reason = models.CharField(max_length=500, blank=True, verbose_name=_("why deleted"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        verbose_name = _("memory entry")
        verbose_name_plural = _("memory entries")
        app_label = "agentstate"
        ordering = ["scope", "subject", "-created_at"]
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
        return _("Memory entry %(id)s (%(kind)s, %(scope)s %(subject)s, version %(version)s, %(status)s)") % {
            "id": str(self.id)[:8], "kind": self.get_kind_display(), "scope": self.get_scope_display(),
            "subject": self.subject or "", "version": self.version, "status": self.get_status_display()}


class MemoryVersion(models.Model):
    """Every text an entry has had or been offered; deleted with the entry."""

    class Status(models.TextChoices):
        CURRENT = "current", pgettext_lazy("memory status", "current")
        SUPERSEDED = "superseded", pgettext_lazy("memory status", "superseded")
        PENDING = "pending", pgettext_lazy("memory status", "proposed, waiting for confirmation")
        REJECTED = "rejected", pgettext_lazy("memory status", "overtaken before it was confirmed")

    entry = models.ForeignKey(MemoryEntry, on_delete=models.CASCADE, related_name="versions",
                              verbose_name=_("memory entry"))
    version = models.PositiveIntegerField(verbose_name=_("version"))
    content = models.TextField(max_length=MAX_CONTENT, verbose_name=_("content"))
    status = models.CharField(max_length=10, choices=Status.choices, verbose_name=_("status"))
    reason = models.CharField(max_length=500, blank=True, verbose_name=_("reason"))
    source_turn = models.ForeignKey("agentstate.Turn", null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="memory_versions", verbose_name=_("source turn"))
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="memory_versions", verbose_name=_("written by"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("memory version")
        verbose_name_plural = _("memory versions")
        app_label = "agentstate"
        ordering = ["entry", "version", "id"]
        constraints = [
            models.UniqueConstraint(fields=["entry", "version"], condition=Q(status__in=["current", "superseded"]),
                                    name="memory_version_unique"),
            models.UniqueConstraint(fields=["entry"], condition=Q(status="pending"), name="memory_one_pending"),
        ]

    def __str__(self):
        return _("Version %(version)s of memory entry %(entry)s (%(status)s)") % {
            "version": self.version, "entry": str(self.entry_id)[:8], "status": self.get_status_display()}


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

    entry = models.ForeignKey(MemoryEntry, on_delete=models.PROTECT, related_name="events",
                              verbose_name=_("memory entry"))
    entry_version = models.PositiveIntegerField(verbose_name=_("entry version"))
    action = models.CharField(max_length=16, choices=Action.choices, verbose_name=_("action"))
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                              related_name="memory_events", verbose_name=_("by"))
    actor_name = models.CharField(max_length=150, help_text=_("Kept if the user row goes; 'system' for the runtime."),
                                  verbose_name=_("by (name)"))
    at = models.DateTimeField(auto_now_add=True, verbose_name=_("at"))
    reason = models.CharField(max_length=500, blank=True, verbose_name=_("reason"))
    task = models.ForeignKey("agentstate.Task", null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="memory_events", verbose_name=_("task"))
    turn = models.ForeignKey("agentstate.Turn", null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="memory_events", verbose_name=_("turn"))
    trace_id = models.CharField(max_length=32, blank=True, help_text=_("The trace of the work it was used in."),
                                verbose_name=_("trace ID"))

    class Meta:
        verbose_name = _("memory event")
        verbose_name_plural = _("memory events")
        app_label = "agentstate"
        ordering = ["entry", "at", "id"]
        indexes = [
            models.Index(fields=["entry", "at"], name="memory_event_entry_idx"),
            models.Index(fields=["task"], name="memory_event_task_idx", condition=Q(task__isnull=False)),
        ]

    def __str__(self):
        return f"{self.action} memory {self.entry_id} v{self.entry_version} by {self.actor_name}"

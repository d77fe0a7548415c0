"""The runtime's tables: Session/Turn (what was said), Task and what proves its progress
(TaskEvent, Checkpoint, Receipt, Approval). Nothing here names a business domain."""
import json
import uuid

from django.conf import settings
from django.contrib.contenttypes.fields import GenericForeignKey
from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.utils.translation import gettext_lazy as _

RUNTIME_ACTOR = "runtime"


class AppendOnlyError(Exception):
    pass


class AppendOnlyModel(models.Model):
    """Rows are written once; history is never edited in place."""

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise AppendOnlyError(f"{type(self).__name__} rows are append-only")
        super().save(*args, **kwargs)


class Session(models.Model):
    class Status(models.TextChoices):
        # active: talked in lately; idle: quiet for a while (a new turn makes it active again);
        # closed: its task ended (a new turn reopens it); expired: quiet past the retention period,
        # takes no new turns. The retention pass moves sessions along by time (agentstate.retention).
        ACTIVE = "active"
        IDLE = "idle"
        CLOSED = "closed"
        EXPIRED = "expired"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False, verbose_name=_("ID"))
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="agent_sessions",
                              verbose_name=_("owner"))
    task = models.ForeignKey("Task", null=True, blank=True, on_delete=models.SET_NULL, related_name="sessions",
                             verbose_name=_("task"))
    title = models.CharField(max_length=200, blank=True, verbose_name=_("title"))
    summary = models.TextField(blank=True, verbose_name=_("summary"))
    locked = models.BooleanField(default=False, help_text=_("Owner left: readable by admins only."),
                                 verbose_name=_("locked"))
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ACTIVE, verbose_name=_("status"))
    # Compaction: turns up to this seq are folded into `digest` (what they touched and did, never
    # their words) and go once older than the retention setting; the later ones stay as written.
    compacted_through = models.PositiveIntegerField(default=0, verbose_name=_("turns folded into the digest"))
    digest = models.JSONField(default=dict, blank=True, verbose_name=_("digest"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        verbose_name = _("conversation")
        verbose_name_plural = _("conversations")
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["owner", "-created_at"])]

    def __str__(self):
        return _("Conversation %(id)s") % {"id": str(self.id)[:8]}


class Turn(AppendOnlyModel):
    class Role(models.TextChoices):
        USER = "user"
        AGENT = "agent"
        SYSTEM = "system"

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="turns")
    seq = models.PositiveIntegerField()
    role = models.CharField(max_length=10, choices=Role.choices)
    text = models.TextField()
    data = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["session", "seq"]
        constraints = [models.UniqueConstraint(fields=["session", "seq"], name="turn_seq_unique")]

    def __str__(self):
        return _("Turn %(seq)s of conversation %(session)s") % {"seq": self.seq, "session": str(self.session_id)[:8]}


class Task(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False, verbose_name=_("ID"))
    kind = models.CharField(max_length=50, verbose_name=_("kind"))
    # Every index on this table is rewritten by every move (a move changes `state`, which is
    # indexed, so no update is HOT): only the indexes a query uses are kept. (initiator,
    # -created_at) serves "my requests" and (tenant, state) the department and review queues,
    # so neither column has an index of its own; nothing looks tasks up by content type.
    initiator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="agent_tasks",
                                  db_index=False, verbose_name=_("initiator"))
    tenant = models.CharField(max_length=50, help_text=_("Scope key for access, e.g. a group code."),
                              verbose_name=_("tenant"))
    state = models.CharField(max_length=40, verbose_name=_("state"))
    version = models.PositiveIntegerField(default=1, verbose_name=_("version"))
    step = models.CharField(max_length=60, blank=True, help_text=_("What runs next."), verbose_name=_("next step"))
    data = models.JSONField(default=dict, blank=True, verbose_name=_("data"))
    # The top-level keys the engine's moves set since the last full checkpoint (DESIGN §13): the
    # task's JSON is `data` with these merged over it. A move of a large state then rewrites this
    # small column, not the whole `data`; every full checkpoint folds it back into `data`. Loading a
    # task merges it (from_db), so `task.data` is always the whole JSON; saving writes it folded.
    data_overlay = models.JSONField(default=dict, blank=True, db_default=models.Value({}, models.JSONField()),
                                    verbose_name=_("data changed since the last full checkpoint"))
    schema_version = models.PositiveSmallIntegerField(default=1, verbose_name=_("data schema version"))
    # Lease: claiming does not bump `version`; `lease_token` fences late writers.
    leased_by = models.CharField(max_length=120, blank=True, verbose_name=_("leased by"))
    lease_until = models.DateTimeField(null=True, blank=True, verbose_name=_("lease until"))
    lease_token = models.PositiveBigIntegerField(default=0, verbose_name=_("lease token"))
    attempts = models.PositiveIntegerField(default=0, verbose_name=_("attempts"))
    runnable = models.BooleanField(default=False, help_text=_("A worker should pick this up."),
                                   verbose_name=_("runnable"))
    content_type = models.ForeignKey(ContentType, null=True, blank=True, on_delete=models.PROTECT, db_index=False,
                                     verbose_name=_("subject type"))
    object_id = models.CharField(max_length=64, blank=True, verbose_name=_("subject ID"))
    subject = GenericForeignKey("content_type", "object_id")
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))
    # W3C trace id (32 hex) born with the request that started the task; every event, step, ERP
    # call, mail and memory use for it carries it (agentstate.trace).
    trace_id = models.CharField(max_length=32, blank=True, verbose_name=_("trace ID"))

    class Meta:
        verbose_name = _("task")
        verbose_name_plural = _("tasks")
        ordering = ["-created_at"]
        permissions = [("view_any_task", "Can view every task")]
        indexes = [
            models.Index(fields=["runnable", "updated_at"], name="task_runnable_idx",
                         condition=models.Q(runnable=True)),
            models.Index(fields=["lease_until"], name="task_lease_idx", condition=models.Q(lease_until__isnull=False)),
            models.Index(fields=["initiator", "-created_at"]),
            models.Index(fields=["tenant", "state"]),
            # A task's tenant by its id without its row: the inbox's department filter reads the tenant of
            # every approval a manager decided (an index-only scan, not the table; 100,000 tasks: 73 -> 31 ms).
            models.Index(fields=["id"], include=["tenant"], name="task_id_tenant_idx"),
        ]

    def __str__(self):
        """Its id, state and version, the state in the words the app plugs in (agentstate.codewords)."""
        from .codewords import word

        return f"{self.id} · {word('state', self.state)} · v{self.version}"

    @classmethod
    def from_db(cls, db, field_names, values, *, fetch_mode=None):
        task = super().from_db(db, field_names, values, fetch_mode=fetch_mode)
        fields = task.__dict__
        if "data" in fields and "data_overlay" in fields:
            task.data, task.data_overlay = fold(task.data, task.data_overlay), {}
        return task

    def refresh_from_db(self, using=None, fields=None, from_queryset=None):
        # The JSON is only whole with its overlay: loading one loads both.
        if fields is not None and ("data" in fields or "data_overlay" in fields):
            fields = {*fields, "data", "data_overlay"}
        super().refresh_from_db(using=using, fields=fields, from_queryset=from_queryset)

    def save(self, *args, **kwargs):
        # `data` is written whole (from_db folded the overlay into it), so the stored overlay is
        # cleared with it; a save that leaves `data` out leaves the overlay as it is.
        update_fields = kwargs.get("update_fields")
        if update_fields is None or "data" in update_fields:
            self.data, self.data_overlay = fold(self.data, self.data_overlay), {}
            if update_fields is not None:
                kwargs["update_fields"] = {*update_fields, "data_overlay"}
        super().save(*args, **kwargs)


def fold(data, overlay):
    """The task's whole JSON: `overlay`'s top-level keys over `data` (PostgreSQL's jsonb `||`)."""
    return {**data, **overlay} if overlay else data


class MergedData(models.Func):
    """`data` with its overlay merged, as an expression for queries that read the JSON without
    loading tasks (.values(), .update()). Elsewhere than PostgreSQL the engine never writes the
    overlay (sql._apply_orm writes `data` whole), so `data` alone is the JSON."""
    output_field = models.JSONField()

    def __init__(self):
        super().__init__(models.F("data"), models.F("data_overlay"))

    def as_sql(self, compiler, connection, **extra):
        return super().as_sql(compiler, connection, template="(%(expressions)s)", arg_joiner=" || ", **extra)

    def as_sqlite(self, compiler, connection, **extra):
        return compiler.compile(self.source_expressions[0])


class TaskEvent(AppendOnlyModel):
    # Indexed by (task, version) below, which also serves every lookup by task alone.
    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="events", db_index=False,
                             verbose_name=_("task"))
    at = models.DateTimeField(auto_now_add=True, verbose_name=_("at"))
    actor = models.CharField(max_length=150, verbose_name=_("by"))
    event = models.CharField(max_length=60, verbose_name=_("event"))
    from_state = models.CharField(max_length=40, verbose_name=_("from state"))
    to_state = models.CharField(max_length=40, verbose_name=_("to state"))
    version = models.PositiveIntegerField(verbose_name=_("version"))
    reason = models.TextField(blank=True, verbose_name=_("reason"))
    trace_id = models.CharField(max_length=64, blank=True, verbose_name=_("trace ID"))
    data = models.JSONField(default=dict, blank=True, verbose_name=_("data"))

    def __str__(self):
        """Its version and event, the event in the words the app plugs in (agentstate.codewords)."""
        from .codewords import word

        return f"v{self.version} · {word('event', self.event)}"

    def save(self, *args, **kwargs):
        # Every event of a task is of the task's trace (agentstate.trace); fire() writes it in its statement.
        if not self.trace_id:
            from .trace import current

            self.trace_id = (Task.objects.filter(pk=self.task_id).values_list("trace_id", flat=True).first()
                             or current())
        super().save(*args, **kwargs)

    class Meta:
        verbose_name = _("task event")
        verbose_name_plural = _("task events")
        ordering = ["task", "id"]
        # The database's change guard looks up (task, version) at every commit that moves a task.
        indexes = [models.Index(fields=["task", "version"], name="agentstate_event_task_version")]


class Checkpoint(AppendOnlyModel):
    """What the agent knew at a boundary. `body` is the JSON exactly as serialised and hashed
    (snapshot, cursor, pending, external_refs, tenant, schema_version), so verifying it hashes the
    stored text and never re-serialises. A checkpoint of depth 0 holds the whole state in
    snapshot["data"]; one of depth d > 0 holds in snapshot["delta"] only the top-level keys that
    changed since the checkpoint before it (version - 1), d links after the last full one."""

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="checkpoints", db_index=False,
                             verbose_name=_("task"))
    version = models.PositiveIntegerField(verbose_name=_("version"))
    # No database constraint: a constraint would make deleting a checkpoint (retention) look for
    # children by parent, which nothing indexes; the ORM still sets a pruned parent's children to NULL.
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, db_index=False,
                               db_constraint=False, verbose_name=_("previous checkpoint"))
    tenant = models.CharField(max_length=50, verbose_name=_("tenant"))
    schema_version = models.PositiveSmallIntegerField(default=1, verbose_name=_("data schema version"))
    label = models.CharField(max_length=60, verbose_name=_("event"))
    cursor = models.CharField(max_length=60, blank=True, verbose_name=_("next step"))
    depth = models.PositiveSmallIntegerField(default=0, help_text=_("0: full snapshot; n: n-th delta after it."),
                                             verbose_name=_("depth"))
    body = models.TextField(verbose_name=_("body"))
    checksum = models.CharField(max_length=64, verbose_name=_("checksum"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("checkpoint")
        verbose_name_plural = _("checkpoints")
        ordering = ["task", "id"]
        # One index serves the FK, "newest first" and the delta chain (a range of versions);
        # parent is never searched.
        indexes = [models.Index(fields=["task", "-version"], name="checkpoint_task_version_idx")]

    @property
    def content(self) -> dict:
        if getattr(self, "_content", None) is None:
            self._content = json.loads(self.body)
        return self._content

    @property
    def snapshot(self) -> dict:
        """The state at this checkpoint, whole: a delta is merged onto its chain (one query)."""
        if not self.is_delta:
            return self.content["snapshot"]
        if getattr(self, "_snapshot", None) is None:
            from .sql import read_checkpoint

            self._snapshot = read_checkpoint(self.task_id, version=self.version).snapshot
        return self._snapshot

    @property
    def pending(self) -> list:
        return self.content["pending"]

    @property
    def external_refs(self) -> list:
        return self.content["external_refs"]

    @property
    def is_delta(self) -> bool:
        return self.depth > 0

    def __str__(self):
        return _("Checkpoint v%(version)s of task %(task)s") % {"version": self.version, "task": str(self.task_id)[:8]}


class Receipt(models.Model):
    class Status(models.TextChoices):
        PLANNED = "planned"
        SENT = "sent"
        CONFIRMED = "confirmed"
        FAILED = "failed"
        UNKNOWN = "unknown"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False, verbose_name=_("ID"))
    task = models.ForeignKey(Task, on_delete=models.PROTECT, related_name="receipts", verbose_name=_("task"))
    operation = models.CharField(max_length=60, verbose_name=_("operation"))
    scope = models.CharField(max_length=120, blank=True, verbose_name=_("scope"))
    idempotency_key = models.CharField(max_length=200, unique=True, verbose_name=_("idempotency key"))
    fingerprint = models.CharField(max_length=64, verbose_name=_("fingerprint"))
    request = models.JSONField(default=dict, verbose_name=_("request sent"))
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PLANNED, verbose_name=_("status"))
    external_id = models.CharField(max_length=120, blank=True, verbose_name=_("external reference"))
    response = models.JSONField(default=dict, blank=True, verbose_name=_("response"))
    error = models.TextField(blank=True, verbose_name=_("error"))
    attempts = models.PositiveSmallIntegerField(default=0, verbose_name=_("attempts"))
    # A person's retry gives the receipt a fresh send budget: the sends made before it are not
    # counted against the bound again (receipts.receipt_renew_budget).
    sends_counted_from = models.PositiveSmallIntegerField(
        default=0, help_text=_("Sends made before a person's latest retry; the send limit counts from here."),
        verbose_name=_("sends before the latest retry"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        verbose_name = _("external call")
        verbose_name_plural = _("external calls")
        ordering = ["task", "created_at"]
        indexes = [
            models.Index(fields=["status", "updated_at"], name="receipt_open_idx",
                         condition=models.Q(status__in=["sent", "unknown"])),
        ]

    def __str__(self):
        return f"{self.operation} {self.idempotency_key} [{self.status}]"


class Approval(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending"
        APPROVED = "approved"
        REJECTED = "rejected"
        RETURNED = "returned"
        SUPERSEDED = "superseded"
        EXPIRED = "expired"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False, verbose_name=_("ID"))
    task = models.ForeignKey(Task, on_delete=models.PROTECT, related_name="approvals", verbose_name=_("task"))
    state_version = models.PositiveIntegerField(verbose_name=_("task version"))
    scope = models.JSONField(verbose_name=_("what is approved"))
    scope_hash = models.CharField(max_length=64, verbose_name=_("scope hash"))
    # The route, frozen when the approval opens: who may decide and why.
    rule = models.JSONField(default=dict, verbose_name=_("route"))
    # Who may decide the current step (the whole route when there is no chain).
    approvers = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="approvals_to_decide",
                                       verbose_name=_("approvers"))
    # The ordered steps, frozen when the approval opens: each {"mode": "any" or "all", "user_ids": [...],
    # "offered_ids": [...] (added by escalation), ...what the app needs to name it}. Empty: one step,
    # decided by any one of `approvers`. `step` is the index of the step now waiting.
    chain = models.JSONField(default=list, blank=True, verbose_name=_("approval chain"))
    step = models.PositiveSmallIntegerField(default=0, verbose_name=_("current step"))
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.PENDING, verbose_name=_("status"))
    expires_at = models.DateTimeField(verbose_name=_("expires at"))
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                   related_name="approvals_decided", verbose_name=_("decided by"))
    # Set when the deciding person stood in for someone on the route (a delegate).
    on_behalf_of = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                     related_name="+", verbose_name=_("on behalf of"))
    decided_at = models.DateTimeField(null=True, blank=True, verbose_name=_("decided at"))
    comment = models.TextField(blank=True, verbose_name=_("comment"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("approval")
        verbose_name_plural = _("approvals")
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["status", "expires_at"], name="approval_pending_idx",
                         condition=models.Q(status="pending")),
            # The inbox's "waiting for me" tab walks the pending approvals oldest first: a few hundred rows
            # among a million decided ones, which approval_created_idx made it walk (and filter) too.
            models.Index(fields=["created_at"], name="approval_pending_created_idx",
                         condition=models.Q(status="pending")),
            # The inbox's "decided" and "all" tabs page newest first: walked in order, stopping at a page,
            # instead of joining every approval a manager may see to its task and sorting (100,000 tasks:
            # 113 and 158 ms -> under 1 ms).
            models.Index(fields=["-decided_at", "-created_at"], name="approval_decided_at_idx"),
            models.Index(fields=["-created_at"], name="approval_created_idx"),
            # What someone decided, with the task to read its tenant from task_id_tenant_idx (index only).
            # With its id too: the approvals a person decided, from the index alone ("decided by me"),
            # newest first, so that tab's page stops at the rows it shows.
            models.Index(fields=["decided_by", "-decided_at", "-created_at"], include=["task", "id"],
                         name="approval_decider_dates_idx"),
            # Sorting the approvals a person decided by when (the "decided by me" tab) reads each one's
            # dates from this index, not its row.
            models.Index(fields=["id"], include=["decided_at", "created_at"], name="approval_id_dates_idx"),
        ]
        constraints = [
            models.UniqueConstraint(fields=["task"], condition=models.Q(status="pending"),
                                    name="one_pending_approval_per_task"),
        ]

    def __str__(self):
        return f"approval {self.id} for {self.task_id} v{self.state_version} [{self.status}]"


class ApprovalDecision(AppendOnlyModel):
    """One person's decision on one step of an approval's chain: who clicked, for whom."""

    approval = models.ForeignKey(Approval, on_delete=models.CASCADE, related_name="decisions")
    step = models.PositiveSmallIntegerField()
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    on_behalf_of = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                     related_name="+")
    decision = models.CharField(max_length=10)
    comment = models.TextField(blank=True)
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["approval", "id"]
        indexes = [
            # The inbox's "decided by me" tab: the approvals a person decided a step of, from the index
            # alone (bench/scale.py, 1,000,000 approvals: 20,000 of them read without their rows).
            models.Index(fields=["decided_by"], include=["approval"], name="decision_decider_approval_idx"),
        ]

    def __str__(self):
        return f"{self.decision} of step {self.step} by {self.decided_by_id} on {self.approval_id}"


# Governed memory lives in its own package; importing it here registers its models with the app.
from .memory.models import MemoryEntry, MemoryEvent, MemoryVersion  # noqa: E402,F401
# Artifacts too: files a task read, stored once by their SHA-256.
from .artifacts.models import Artifact, ArtifactVersion, Blob  # noqa: E402,F401

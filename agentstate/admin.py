"""Admin for the runtime's tables: everything shown, nothing changed (DESIGN §15).

A task's state, version, data and lease, an approval's status and scope, receipts, events and
checkpoints change only through the engine, so the admin may look but not add, edit or delete.
Changes go through admin actions the app adds (procurement/admin.py), each firing a transition
that records who and why. Codes are shown in the words the app plugs in (agentstate.codewords).
Memory has its own module."""
from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from .codewords import coded_filter, column, task_column
from .memory import admin as memory_admin  # noqa: F401  (registers the memory tables)
from .memory.admin import ReadOnlyAdmin
from .models import Approval, Checkpoint, Receipt, Session, Task, TaskEvent
from .said import of_event, quote, render

STATE, KIND, STEP = (column("state", "state", _("state")), column("kind", "kind", _("kind")),
                     column("step", "step", _("next step")))


@admin.display(description=_("reason"))
def reason_column(event) -> str:
    """Why the event happened, in the reader's language (the words the app plugs in, agentstate.said);
    a reason stored without a code (a person's comment, a row older than codes) quoted, never dropped.
    The English line for logs stays in the row's reason column."""
    said = of_event(event)
    return render(said if said is not None else quote(event.reason)) if (said or event.reason) else ""


@admin.register(Session)
class SessionAdmin(admin.ModelAdmin):
    list_display = ["id", "owner", task_column, column("status", "session", _("status")), "locked", "created_at"]
    list_filter = [("status", coded_filter("session")), "locked"]
    list_select_related = ["owner", "task"]


class TaskEventInline(admin.TabularInline):
    model = TaskEvent
    extra = 0
    can_delete = False
    fields = ["at", column("actor", "actor", _("by")), column("event", "event", _("event")),
              column("from_state", "state", _("from state")), column("to_state", "state", _("to state")), "version",
              reason_column, "trace_id"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Task)
class TaskAdmin(ReadOnlyAdmin):
    list_display = ["id", KIND, "tenant", STATE, "version", STEP, "initiator", "updated_at"]
    # A task's page: its kind, state and step in words too; everything else as stored.
    fields = [KIND, "initiator", "tenant", STATE, "version", STEP, "data", "data_overlay", "schema_version",
              "leased_by", "lease_until", "lease_token", "attempts", "runnable", "content_type", "object_id",
              "trace_id", "created_at", "updated_at"]
    readonly_fields = fields
    list_filter = [("kind", coded_filter("kind")), ("state", coded_filter("state")), "tenant"]
    search_fields = ["=id", "initiator__username"]
    inlines = [TaskEventInline]


@admin.register(TaskEvent)
class TaskEventAdmin(ReadOnlyAdmin):
    list_display = [task_column, "at", column("actor", "actor", _("by")), column("event", "event", _("event")),
                    column("from_state", "state", _("from state")), column("to_state", "state", _("to state")),
                    "version", reason_column]
    # An event's page: its codes and reason in words; its data (the reason's code among it) as stored.
    fields = [task_column, "at", column("actor", "actor", _("by")), column("event", "event", _("event")),
              column("from_state", "state", _("from state")), column("to_state", "state", _("to state")), "version",
              reason_column, "trace_id", "data"]
    readonly_fields = fields
    list_filter = [("event", coded_filter("event"))]
    list_select_related = ["task"]
    search_fields = ["=task__id", "actor"]


@admin.register(Checkpoint)
class CheckpointAdmin(ReadOnlyAdmin):
    list_display = [task_column, "version", column("label", "event", _("event")),
                    column("cursor", "step", _("next step")), "created_at"]
    list_select_related = ["task"]
    search_fields = ["=task__id"]


@admin.register(Receipt)
class ReceiptAdmin(ReadOnlyAdmin):
    list_display = [task_column, column("operation", "operation", _("operation")), "idempotency_key",
                    column("status", "receipt", _("status")), "external_id", "updated_at"]
    list_filter = [("status", coded_filter("receipt")), ("operation", coded_filter("operation"))]
    list_select_related = ["task"]
    search_fields = ["=task__id", "idempotency_key", "external_id"]


@admin.register(Approval)
class ApprovalAdmin(ReadOnlyAdmin):
    list_display = ["id", task_column, "state_version", column("status", "approval", _("status")), "expires_at",
                    "decided_by"]
    list_filter = [("status", coded_filter("approval"))]
    list_select_related = ["task", "decided_by"]
    search_fields = ["=id", "=task__id"]

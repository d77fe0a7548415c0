"""Admin for the runtime's tables: everything shown, nothing changed (DESIGN §15).

A task's state, version, data and lease, an approval's status and scope, receipts, events and
checkpoints change only through the engine, so the admin may look but not add, edit or delete.
Changes go through admin actions the app adds (procurement/admin.py), each firing a transition
that records who and why. Memory has its own module."""
from django.contrib import admin

from .memory import admin as memory_admin  # noqa: F401  (registers the memory tables)
from .memory.admin import ReadOnlyAdmin
from .models import Approval, Checkpoint, Receipt, Session, Task, TaskEvent


@admin.register(Session)
class SessionAdmin(admin.ModelAdmin):
    list_display = ["id", "owner", "task", "locked", "created_at"]
    list_filter = ["locked"]


class TaskEventInline(admin.TabularInline):
    model = TaskEvent
    extra = 0
    can_delete = False
    fields = ["at", "actor", "event", "from_state", "to_state", "version", "reason", "trace_id"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Task)
class TaskAdmin(ReadOnlyAdmin):
    list_display = ["id", "kind", "tenant", "state", "version", "step", "initiator", "updated_at"]
    list_filter = ["kind", "state", "tenant"]
    search_fields = ["=id", "initiator__username"]
    inlines = [TaskEventInline]


@admin.register(TaskEvent)
class TaskEventAdmin(ReadOnlyAdmin):
    list_display = ["task", "at", "actor", "event", "from_state", "to_state", "version"]
    list_filter = ["event"]
    search_fields = ["=task__id", "actor"]


@admin.register(Checkpoint)
class CheckpointAdmin(ReadOnlyAdmin):
    list_display = ["task", "version", "label", "cursor", "created_at"]
    search_fields = ["=task__id"]


@admin.register(Receipt)
class ReceiptAdmin(ReadOnlyAdmin):
    list_display = ["task", "operation", "idempotency_key", "status", "external_id", "updated_at"]
    list_filter = ["status", "operation"]
    search_fields = ["=task__id", "idempotency_key", "external_id"]


@admin.register(Approval)
class ApprovalAdmin(ReadOnlyAdmin):
    list_display = ["id", "task", "state_version", "status", "expires_at", "decided_by"]
    list_filter = ["status"]
    search_fields = ["=id", "=task__id"]

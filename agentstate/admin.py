"""Admin lists for the runtime's tables, for people who need to look; memory has its own module."""
from django.contrib import admin

from .memory import admin as memory_admin  # noqa: F401  (registers the memory tables)
from .models import Approval, Checkpoint, Receipt, Session, Task, TaskEvent


@admin.register(Session)
class SessionAdmin(admin.ModelAdmin):
    list_display = ["id", "owner", "task", "locked", "created_at"]
    list_filter = ["locked"]


@admin.register(Task)
class TaskAdmin(admin.ModelAdmin):
    list_display = ["id", "kind", "tenant", "state", "version", "step", "initiator", "updated_at"]
    list_filter = ["kind", "state", "tenant"]


@admin.register(TaskEvent)
class TaskEventAdmin(admin.ModelAdmin):
    list_display = ["task", "at", "actor", "event", "from_state", "to_state", "version"]
    list_filter = ["event"]


@admin.register(Checkpoint)
class CheckpointAdmin(admin.ModelAdmin):
    list_display = ["task", "version", "label", "cursor", "created_at"]


@admin.register(Receipt)
class ReceiptAdmin(admin.ModelAdmin):
    list_display = ["task", "operation", "idempotency_key", "status", "external_id", "updated_at"]
    list_filter = ["status", "operation"]


@admin.register(Approval)
class ApprovalAdmin(admin.ModelAdmin):
    list_display = ["id", "task", "state_version", "status", "expires_at", "decided_by"]
    list_filter = ["status"]

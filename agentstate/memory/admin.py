"""Django admin for memory: read-only lists, plus a deletion action that goes through
memory_delete. Editing in place would bypass versions and events, so corrections go through
the API or the memory pages; the admin's own delete would leave history behind, so it is off."""
from django.contrib import admin, messages

from ..errors import DomainError
from .deletion import memory_delete
from .models import MemoryEntry, MemoryEvent, MemoryVersion


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class MemoryVersionInline(admin.TabularInline):
    model = MemoryVersion
    extra = 0
    fields = ["version", "status", "content", "reason", "created_by", "created_at"]
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(MemoryEntry)
class MemoryEntryAdmin(ReadOnlyAdmin):
    list_display = ["id", "scope", "subject", "kind", "status", "version", "confirmed_by", "flag_reason", "updated_at"]
    list_filter = ["scope", "kind", "status", "sensitivity", "flag_reason"]
    search_fields = ["subject", "=id"]
    inlines = [MemoryVersionInline]
    actions = ["delete_for_real"]

    # Allowed to whoever may view the list; memory_delete asks the policy about each entry.
    @admin.action(description="Delete content, history and derived data (keeps a tombstone)", permissions=["view"])
    def delete_for_real(self, request, queryset):
        deleted = 0
        for entry in queryset.exclude(status=MemoryEntry.Status.DELETED):
            try:
                memory_delete(entry=entry, by=request.user, reason="deleted in Django admin")
                deleted += 1
            except DomainError as refused:
                self.message_user(request, f"{entry}: {refused}", messages.ERROR)
        self.message_user(request, f"Deleted {deleted} memory entries.")


@admin.register(MemoryVersion)
class MemoryVersionAdmin(ReadOnlyAdmin):
    list_display = ["entry", "version", "status", "created_by", "created_at"]
    list_filter = ["status"]


@admin.register(MemoryEvent)
class MemoryEventAdmin(ReadOnlyAdmin):
    list_display = ["at", "action", "entry", "entry_version", "actor_name", "task", "turn"]
    list_filter = ["action"]
    search_fields = ["=entry__id", "actor_name"]

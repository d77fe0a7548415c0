"""Django admin for memory: read-only lists, plus a deletion action that goes through
memory_delete. Editing in place would bypass versions and events, so corrections go through
the API or the memory pages; the admin's own delete would leave history behind, so it is off."""
from django.contrib import admin, messages
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from ..codewords import coded_filter, column, task_column, word
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


@admin.display(description=_("memory entry"), ordering="entry")
def entry_column(obj) -> str:
    """The entry a row is about, by its kind in words and its short id, never its content."""
    return f"{word('memory', obj.entry.kind)} {str(obj.entry_id)[:8]}"


@admin.display(description=_("turn"), ordering="turn")
def turn_column(obj) -> str:
    return gettext("turn %(seq)s") % {"seq": obj.turn.seq} if obj.turn else ""


entry_column.__name__, turn_column.__name__ = "entry", "turn"


@admin.register(MemoryEntry)
class MemoryEntryAdmin(ReadOnlyAdmin):
    list_display = ["id", column("scope", "memory", _("scope")), "subject", column("kind", "memory", _("kind")),
                    column("status", "memory", _("status")), "version", "confirmed_by",
                    column("flag_reason", "memory", _("flagged because")), "updated_at"]
    list_filter = [(name, coded_filter("memory")) for name in ("scope", "kind", "status", "sensitivity", "flag_reason")]
    search_fields = ["subject", "=id"]
    inlines = [MemoryVersionInline]
    actions = ["delete_for_real"]

    # Allowed to whoever may view the list; memory_delete asks the policy about each entry.
    @admin.action(description=_("Delete content, history and derived data (keeps a tombstone)"),
                  permissions=["view"])
    def delete_for_real(self, request, queryset):
        deleted = 0
        for entry in queryset.exclude(status=MemoryEntry.Status.DELETED):
            try:
                memory_delete(entry=entry, by=request.user, reason="deleted in Django admin")
                deleted += 1
            except DomainError as refused:
                self.message_user(request, f"{entry}: {refused}", messages.ERROR)
        self.message_user(request, ngettext("Deleted %(n)d memory entry.", "Deleted %(n)d memory entries.",
                                            deleted) % {"n": deleted})


@admin.register(MemoryVersion)
class MemoryVersionAdmin(ReadOnlyAdmin):
    list_display = [entry_column, "version", column("status", "memory", _("status")), "created_by", "created_at"]
    list_filter = [("status", coded_filter("memory"))]
    list_select_related = ["entry", "created_by"]


@admin.register(MemoryEvent)
class MemoryEventAdmin(ReadOnlyAdmin):
    list_display = ["at", column("action", "memory_action", _("action")), entry_column, "entry_version",
                    "actor_name", task_column, turn_column]
    list_filter = [("action", coded_filter("memory_action"))]
    list_select_related = ["entry", "task", "turn"]
    search_fields = ["=entry__id", "actor_name"]

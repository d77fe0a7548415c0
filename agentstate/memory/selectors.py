"""Reads for lists and pages: what a person may see of memory, filtered, and an entry's story."""
from ..errors import DomainError
from . import policy
from .models import Kind, MemoryEntry, MemoryEvent, Scope
from .services import entry_for  # noqa: F401  (one entry, 404 unless readable)

FILTERS = {"scope": Scope, "kind": Kind, "status": MemoryEntry.Status}


def memory_entries_for(user, *, scope=None, subject=None, kind=None, status=None):
    """Entries `user` may read, newest first; deleted ones are gone for everyone here."""
    errors = {name: [f"Unknown {name} {value!r}; choose one of: {', '.join(FILTERS[name].values)}."]
              for name, value in (("scope", scope), ("kind", kind), ("status", status))
              if value and value not in FILTERS[name].values}
    if errors:
        raise DomainError("Invalid filter.", errors=errors)
    rows = MemoryEntry.objects.exclude(status=MemoryEntry.Status.DELETED).filter(policy.current().readable(user))
    for name, value in (("scope", scope), ("subject", subject), ("kind", kind), ("status", status)):
        if value is not None and value != "":
            rows = rows.filter(**{name: value})
    return rows.select_related("confirmed_by", "created_by").order_by("-created_at", "pk")


def memory_history(entry):
    """Every version, oldest first, the pending one (if any) last."""
    return entry.versions.select_related("created_by").order_by("version", "id")


def memory_uses(entry):
    """Which tasks and turns used the entry, and at which version: 'why did the agent do that?'"""
    return MemoryEvent.objects.filter(entry=entry, action=MemoryEvent.Action.USE).select_related("task").order_by("-at")

"""Writing MemoryEvents: ids, versions, who and why; the text never goes here."""
from .. import trace
from .models import MemoryEvent

SYSTEM = "system"


def actor_fields(actor) -> dict:
    if actor is None:
        return {"actor": None, "actor_name": SYSTEM}
    return {"actor": actor, "actor_name": actor.get_username()}


def record(entry, action: str, *, actor=None, reason: str = "", task=None, turn=None,
           version: int | None = None) -> MemoryEvent:
    """`version` names the version the event is about when it is not the entry's current one
    (a proposed change)."""
    return MemoryEvent.objects.create(entry=entry, entry_version=version or entry.version, action=action,
                                      reason=reason[:500], task=task, turn=turn, trace_id=_trace_of(task),
                                      **actor_fields(actor))


def record_many(entries, action: str, *, actor=None, reason: str = "", task=None, turn=None):
    fields = actor_fields(actor) | {"trace_id": _trace_of(task)}
    MemoryEvent.objects.bulk_create(
        MemoryEvent(entry=e, entry_version=e.version, action=action, reason=reason[:500], task=task, turn=turn,
                    **fields) for e in entries)


def _trace_of(task) -> str:
    """A use in a task's work is of the task's trace; otherwise of the work running now."""
    return (getattr(task, "trace_id", "") or trace.current())[:32]

"""Deleting memory for real: the text goes from the entry, every version and everything
derived from it; a tombstone keeps the id, who, when and why (DESIGN §8)."""
from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

from ..errors import NotFound, NotPermitted
from . import derivers, events, policy
from .models import MemoryEntry, MemoryEvent, MemoryVersion
from .services import get_entry, lock_entry

REMOVED = "[removed with the entry]"


@dataclass
class DeletionReport:
    entry_id: str
    versions: int
    derived: dict[str, int] = field(default_factory=dict)   # deriver name -> how many

    @property
    def text(self) -> str:
        """'also removes 2 history versions and 1 session summary', for the confirmation page."""
        parts = [_count(self.versions, "history version", "history versions")]
        for d in derivers.all_derivers():
            if self.derived.get(d.name):
                parts.append(_count(self.derived[d.name], d.singular, d.name))
        parts = [p for p in parts if p]
        if not parts:
            return "removes nothing else"
        return "also removes " + (", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0])


def memory_delete_preview(entry, *, by=None) -> DeletionReport:
    """What a deletion would take with it; reads only."""
    row = _readable(entry, by)
    texts = _texts(row)
    counts = {d.name: d.count(str(row.pk), texts) for d in derivers.all_derivers()}
    return DeletionReport(str(row.pk), _history(row).count(), counts)


def memory_delete(*, entry, by=None, reason: str = "") -> DeletionReport:
    """Remove the content everywhere; `by` None is the retention sweep (no permission check)."""
    with transaction.atomic():
        row = lock_entry(entry)
        _check(row, by, confirm=True)
        texts = _texts(row)
        derived = {d.name: d.purge(str(row.pk), texts) for d in derivers.all_derivers()}
        history = _history(row).count()
        row.versions.all().delete()
        _scrub_event_reasons(row, texts)
        row.content, row.status = "", MemoryEntry.Status.DELETED
        row.deleted_by, row.deleted_at, row.delete_reason = by, timezone.now(), reason[:500]
        row.flag_reason, row.flagged_at = "", None
        row.save()
        events.record(row, "delete", actor=by, reason=reason)
    return DeletionReport(str(row.pk), history, derived)


def _history(row):
    """Versions other than the current one (which is the entry's own text)."""
    return row.versions.exclude(status=MemoryVersion.Status.CURRENT)


def _texts(row) -> list[str]:
    texts = {row.content, *row.versions.values_list("content", flat=True)}
    return sorted(t for t in texts if t)


def _scrub_event_reasons(row, texts):
    # A reason is free text a person typed; if it quoted the entry, it goes too.
    for text in texts:
        if len(text) <= MemoryEvent._meta.get_field("reason").max_length:
            MemoryEvent.objects.filter(entry=row, reason__contains=text).update(reason=REMOVED)


def _readable(entry, by):

    row = get_entry(entry)
    _check(row, by, confirm=False)
    return row


def _check(row, by, *, confirm: bool):
    if row is None or row.status == MemoryEntry.Status.DELETED:
        raise NotFound("No such memory entry.")
    if by is None:
        return
    if not policy.current().may_read(by, row):
        raise NotFound("No such memory entry.")
    if confirm and not policy.current().may_confirm(by, row):
        raise NotPermitted("You may read this entry but not delete it.")


def _count(n, one, many) -> str:
    return "" if not n else f"{n} {one if n == 1 else many}"

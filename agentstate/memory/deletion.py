"""Deleting memory for real: the text goes from the entry, every version, the chat turns it was
learned from and everything derived from it; a tombstone keeps the id, who, when and why
(DESIGN §8, §15).

- The source turn(s) read "[removed: memory deleted by carol on 2026-11-30]"; the preview says so.
- Derivers (derivers.py) mask the text wherever else it was copied: summaries, other turns,
  task data and checkpoints, event reasons.
- The deletion's own reason must not repeat the entry: it is refused with a clear message.
  A shorter quote (a few words of it) is redacted from that reason, and from every earlier
  reason of the entry's events, like any other copy: REDACTED stands where the words were.
"""
import difflib
import re
from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

from ..errors import DomainError, NotFound, NotPermitted
from ..models import Turn
from . import derivers, events, policy
from .models import MemoryEntry, MemoryEvent, MemoryVersion
from .services import get_entry, lock_entry

REMOVED = "[removed with the entry]"
REDACTED = "[…]"
SOURCE_REMOVED = "[removed: memory deleted by {who} on {day}]"
QUOTE_MIN_CHARS = 6


class ReasonQuotesEntry(DomainError):
    """A deletion reason that repeats the entry: the reason outlives the text, so it is refused."""
    code = "reason_quotes_entry"


@dataclass
class DeletionReport:
    entry_id: str
    versions: int
    derived: dict[str, int] = field(default_factory=dict)   # deriver name -> how many
    source_turns: int = 0                                   # chat turns it was learned from
    source_replacement: str = ""                            # what those turns will read

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
    return DeletionReport(str(row.pk), _history(row).count(), counts, source_turns=_source_turns(row).count(),
                          source_replacement=source_note(by))


def memory_delete(*, entry, by=None, reason: str = "") -> DeletionReport:
    """Remove the content everywhere; `by` None is the retention sweep (no permission check)."""
    with transaction.atomic():
        row = lock_entry(entry)
        _check(row, by, confirm=True)
        texts = _texts(row)
        reason_refused_if_quoting(reason, texts)
        derived = {d.name: d.purge(str(row.pk), texts) for d in derivers.all_derivers()}
        note = source_note(by)
        sources = _source_turns(row).update(text=note, data={})
        history = _history(row).count()
        row.versions.all().delete()
        _scrub_event_reasons(row, texts)
        reason = redact(reason[:500], texts)
        row.content, row.status = "", MemoryEntry.Status.DELETED
        row.deleted_by, row.deleted_at, row.delete_reason = by, timezone.now(), reason
        row.flag_reason, row.flagged_at = "", None
        row.save()
        events.record(row, "delete", actor=by, reason=reason)
    return DeletionReport(str(row.pk), history, derived, source_turns=sources, source_replacement=note)


def source_note(by) -> str:
    """What the turn a deleted entry was learned from reads afterwards."""
    who = by.get_username() if by is not None else "the retention policy"
    return SOURCE_REMOVED.format(who=who, day=timezone.localdate().isoformat())


def quotes(reason: str, text: str) -> bool:
    """Does `reason` repeat `text`, or a good part of it (half, at least QUOTE_MIN_CHARS characters)?"""
    said, quoted = _plain(reason), _plain(text)
    if not said or not quoted:
        return False
    need = min(len(quoted), max(QUOTE_MIN_CHARS, len(quoted) // 2))
    match = difflib.SequenceMatcher(None, said, quoted, autojunk=False).find_longest_match()
    return match.size >= need


def redact(reason: str, texts) -> str:
    """`reason` with every run of QUOTE_MIN_CHARS or more characters that it shares with one of
    `texts` (case and spacing aside) replaced by REDACTED; a text shorter than that, whole."""
    for text in texts:
        quoted = _plain(text)
        need = min(len(quoted), QUOTE_MIN_CHARS)
        while need and reason:
            said = reason.casefold()
            if len(said) != len(reason):  # a letter whose case folds to two: compare as written
                said = reason
            spaced = re.sub(r"\s", " ", said)
            match = difflib.SequenceMatcher(None, spaced, quoted, autojunk=False).find_longest_match()
            if match.size < need:
                break
            reason = reason[:match.a] + REDACTED + reason[match.a + match.size:]
    return reason


def reason_refused_if_quoting(reason: str, texts) -> None:
    if any(quotes(reason, text) for text in texts):
        message = ("The reason repeats what the entry says, and the reason is kept after the text is gone. "
                   "Say why without quoting it, e.g. \"no longer true\" or \"asked to forget\".")
        raise ReasonQuotesEntry(message, errors={"reason": [message]})


def _plain(text: str) -> str:
    return re.sub(r"\s+", " ", text or "").strip().casefold()


def _source_turns(row):
    """The chat turns the entry, or any of its versions, was learned from."""
    turn_ids = {row.source_turn_id, *row.versions.values_list("source_turn_id", flat=True)} - {None}
    return Turn.objects.filter(pk__in=turn_ids)


def _history(row):
    """Versions other than the current one (which is the entry's own text)."""
    return row.versions.exclude(status=MemoryVersion.Status.CURRENT)


def _texts(row) -> list[str]:
    """Every text the entry has had, and the words of the turns it was learned from."""
    said = [t for t in _source_turns(row).values_list("text", flat=True) if not t.startswith("[removed")]
    texts = {row.content, *row.versions.values_list("content", flat=True), *said}
    return sorted(t for t in texts if t)


def _scrub_event_reasons(row, texts):
    # A reason is free text a person typed; if it quoted the entry, it goes too, or the quoted words.
    for text in texts:
        if len(text) <= MemoryEvent._meta.get_field("reason").max_length:
            MemoryEvent.objects.filter(entry=row, reason__contains=text).update(reason=REMOVED)
    for event in MemoryEvent.objects.filter(entry=row).exclude(reason="").exclude(reason=REMOVED):
        redacted = redact(event.reason, texts)
        if redacted != event.reason:
            MemoryEvent.objects.filter(pk=event.pk).update(reason=redacted)


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

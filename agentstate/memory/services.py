"""Writing memory: propose, create, confirm, correct (DESIGN §8). Deletion is in deletion.py,
sweeps in sweeps.py, reads in retrieval.py.

Every write re-reads the entry under a row lock, checks who is asking through the app's
policy, and records a MemoryEvent. Refusals raise DomainError subclasses and store nothing:
unreadable → NotFound (ids cannot be probed), readable but not allowed → NotPermitted,
changed under the caller → Conflict."""
import uuid

from django.db import transaction
from django.utils import timezone

from ..errors import Conflict, DomainError, NotFound, NotPermitted
from . import events, policy
from .models import MemoryEntry, MemoryVersion, Sensitivity, SourceKind
from .validation import check_content, check_new_entry, check_subject, raise_if

Status, VStatus = MemoryEntry.Status, MemoryVersion.Status


def memory_propose(*, by=None, content: str, turn=None, entry=None, scope: str = "", subject: str = "",
                   kind: str = "", sensitivity: str = Sensitivity.NORMAL, valid_from=None, valid_until=None,
                   reason: str = "", task=None) -> MemoryEntry:
    """A proposal waiting for confirmation, with its provenance.

    Without `entry`: a new entry, status `proposed`. With `entry` (an active one): a pending
    version; the active text stays in use until the person it concerns confirms the change.
    `by` defaults to the owner of the session `turn` belongs to; None with no turn is the runtime."""
    if by is None and turn is not None:
        by = turn.session.owner
    if entry is not None:
        return _propose_change(entry=entry, by=by, content=content, turn=turn, reason=reason, task=task)
    text = check_new_entry(scope=scope, subject=subject, kind=kind, content=content, sensitivity=sensitivity,
                           valid_from=valid_from, valid_until=valid_until)
    if by is not None and not policy.current().may_propose(by, scope, subject):
        raise NotPermitted(f"You may not propose {scope} memory for {subject or 'the organisation'}.")
    check_subject(scope, subject)
    # What it is: learned in a chat, proposed by `by` elsewhere, or the runtime's; never "admin",
    # which is what a direct write (memory_create) says.
    source = SourceKind.SESSION if turn is not None else (SourceKind.PROPOSAL if by is not None else SourceKind.SYSTEM)
    with transaction.atomic():
        new = _insert(by=by, scope=scope, subject=subject, kind=kind, content=text, sensitivity=sensitivity,
                      valid_from=valid_from, valid_until=valid_until, status=Status.PROPOSED, source=source,
                      turn=turn, reason=reason)
        events.record(new, "propose", actor=by, reason=reason, task=task, turn=turn)
    return new


def memory_create(*, by, scope: str, subject: str, kind: str, content: str, sensitivity: str = Sensitivity.NORMAL,
                  valid_from=None, valid_until=None, reason: str = "") -> MemoryEntry:
    """Written directly by someone the policy lets write this scope: active at once."""
    text = check_new_entry(scope=scope, subject=subject, kind=kind, content=content, sensitivity=sensitivity,
                           valid_from=valid_from, valid_until=valid_until)
    if by is not None and not policy.current().may_write(by, scope, subject):
        raise NotPermitted(f"You may not write {scope} memory for {subject or 'the organisation'}.")
    check_subject(scope, subject)
    source = SourceKind.ADMIN if by is not None else SourceKind.SYSTEM
    with transaction.atomic():
        new = _insert(by=by, scope=scope, subject=subject, kind=kind, content=text, sensitivity=sensitivity,
                      valid_from=valid_from, valid_until=valid_until, status=Status.ACTIVE, source=source,
                      turn=None, reason=reason)
        events.record(new, "create", actor=by, reason=reason)
    return new


def memory_submit(*, by, **fields) -> MemoryEntry:
    """A person adds an entry: active if they may write that scope directly, else a proposal."""
    check_new_entry(**{k: fields.get(k) for k in ("scope", "subject", "kind", "content")},
                    sensitivity=fields.get("sensitivity", Sensitivity.NORMAL),
                    valid_from=fields.get("valid_from"), valid_until=fields.get("valid_until"))
    if policy.current().may_write(by, fields["scope"], fields["subject"]):
        return memory_create(by=by, **fields)
    return memory_propose(by=by, **fields)


def memory_confirm(*, entry, by, expected_version: int | None = None, reason: str = "") -> MemoryEntry:
    """Confirm a proposed entry, a pending change, or (for an active entry) reconfirm it."""
    now = timezone.now()
    with transaction.atomic():
        row = _locked_for_confirmer(entry, by, expected_version)
        pending = row.versions.filter(status=VStatus.PENDING).first()
        if row.status == Status.PROPOSED:
            if row.valid_until is not None and row.valid_until <= now:
                raise Conflict("This proposal's validity has already ended; it can no longer be confirmed.",
                               current_version=row.version)
            row.status = Status.ACTIVE
        elif row.status == Status.ACTIVE and pending is not None:
            _make_current(row, pending.content, by=by, reason=pending.reason, pending=pending)
        elif row.status != Status.ACTIVE:
            raise Conflict(f"A {row.status} entry cannot be confirmed.", current_version=row.version)
        row.confirmed_by, row.confirmed_at, row.last_confirmed_at = by, now, now
        row.flag_reason, row.flagged_at = "", None
        row.save()
        events.record(row, "confirm", actor=by, reason=reason)
    return row


def memory_correct(*, entry, by, content: str, reason: str = "", expected_version: int | None = None) -> MemoryEntry:
    """A new version with a reason: same id, version + 1, the old text kept in the history."""
    errors = {}
    text = check_content(errors, content)
    raise_if(errors)
    with transaction.atomic():
        row = _locked_for_confirmer(entry, by, expected_version)
        if row.status not in (Status.ACTIVE, Status.PROPOSED):
            raise Conflict(f"A {row.status} entry cannot be corrected.", current_version=row.version)
        if text == row.content:
            raise DomainError("The entry already says that.", errors={"content": ["The content is unchanged."]})
        _make_current(row, text, by=by, reason=reason)
        if row.status == Status.ACTIVE:
            # The person who may confirm wrote this text: it is confirmed as of now.
            row.confirmed_by = by
            row.confirmed_at = row.last_confirmed_at = timezone.now()
        row.save()
        events.record(row, "correct", actor=by, reason=reason)
    return row


def entry_for(user, entry_id) -> MemoryEntry:
    """The entry, if `user` may read it; deleted or unreadable entries are 404 alike."""
    row = get_entry(entry_id)
    if row is None or row.status == Status.DELETED or not policy.current().may_read(user, row):
        raise NotFound("No such memory entry.")
    return row


# -- internals ---------------------------------------------------------------------------

def _propose_change(*, entry, by, content, turn, reason, task) -> MemoryEntry:
    errors = {}
    text = check_content(errors, content)
    raise_if(errors)
    with transaction.atomic():
        row = lock_entry(entry)
        if row is None or row.status == Status.DELETED or (by is not None and not policy.current().may_read(by, row)):
            raise NotFound("No such memory entry.")
        if by is not None and not policy.current().may_propose(by, row.scope, row.subject):
            raise NotPermitted("You may not propose changes to this entry.")
        if row.status != Status.ACTIVE:
            raise Conflict(f"Only an active entry takes a proposed change; this one is {row.status}.",
                           current_version=row.version)
        if text == row.content:
            raise DomainError("The entry already says that.", errors={"content": ["The content is unchanged."]})
        # One pending change at a time: a newer proposal replaces an older one.
        row.versions.filter(status=VStatus.PENDING).update(status=VStatus.REJECTED)
        MemoryVersion.objects.create(entry=row, version=row.version + 1, content=text, status=VStatus.PENDING,
                                     reason=reason[:500], source_turn=turn, created_by=by)
        events.record(row, "propose", actor=by, reason=reason, task=task, turn=turn, version=row.version + 1)
    return row


def _insert(*, by, scope, subject, kind, content, sensitivity, valid_from, valid_until, status, source, turn,
            reason) -> MemoryEntry:
    now = timezone.now()
    active = status == Status.ACTIVE
    entry = MemoryEntry.objects.create(
        scope=scope, subject=subject, kind=kind, content=content, sensitivity=sensitivity, status=status,
        source_kind=source, source_turn=turn, source_session=turn.session if turn is not None else None,
        created_by=by, confirmed_by=by if active else None, confirmed_at=now if active else None,
        last_confirmed_at=now if active else None, valid_from=valid_from or now, valid_until=valid_until)
    MemoryVersion.objects.create(entry=entry, version=1, content=content, status=VStatus.CURRENT,
                                 reason=reason[:500], source_turn=turn, created_by=by)
    return entry


def _make_current(row, text, *, by, reason, pending=None):
    """Retire the current version and make `text` version + 1 (from a pending row if given)."""
    row.versions.filter(status=VStatus.CURRENT).update(status=VStatus.SUPERSEDED)
    row.versions.filter(status=VStatus.PENDING).exclude(pk=getattr(pending, "pk", None)).update(
        status=VStatus.REJECTED)
    row.version += 1
    row.content = text
    if pending is not None:
        MemoryVersion.objects.filter(pk=pending.pk).update(status=VStatus.CURRENT, version=row.version)
    else:
        MemoryVersion.objects.create(entry=row, version=row.version, content=text, status=VStatus.CURRENT,
                                     reason=reason[:500], created_by=by)


def _locked_for_confirmer(entry, by, expected_version) -> MemoryEntry:
    row = lock_entry(entry)
    if row is None or row.status == Status.DELETED or not policy.current().may_read(by, row):
        raise NotFound("No such memory entry.")
    if not policy.current().may_confirm(by, row):
        raise NotPermitted("You may read this entry but not confirm, correct or delete it.")
    if expected_version is not None and expected_version != row.version:
        raise Conflict(f"The entry moved from version {expected_version} to {row.version}; reload it.",
                       current_version=row.version)
    return row


def _pk(entry):
    """The entry's id as a UUID, or None for anything that cannot be one (so it reads as 404)."""
    value = getattr(entry, "pk", entry)
    try:
        return value if isinstance(value, uuid.UUID) else uuid.UUID(str(value))
    except ValueError:
        return None


def get_entry(entry):
    pk = _pk(entry)
    return MemoryEntry.objects.filter(pk=pk).first() if pk else None


def lock_entry(entry):
    pk = _pk(entry)
    return MemoryEntry.objects.select_for_update(no_key=True).filter(pk=pk).first() if pk else None

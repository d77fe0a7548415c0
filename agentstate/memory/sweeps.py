"""Periodic housekeeping, safe to run twice and from beat or a command: expire entries past
`valid_until`, flag entries nobody has reconfirmed, and delete for real what retention says.

Settings (all optional):
    MEMORY_RETENTION_DAYS     {kind: days or None}; an entry not confirmed for that long is deleted
    MEMORY_EXPIRED_PURGE_DAYS an expired entry is deleted this long after its valid_until
    MEMORY_DEPARTED_PURGE_DAYS a departed user's flagged entries are deleted this long after flagging
    MEMORY_RECONFIRM_DAYS     an active entry not confirmed for this long is flagged for reconfirmation
"""
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import F
from django.db.models.functions import Coalesce
from django.utils import timezone

from ..errors import NotFound
from . import events
from .deletion import memory_delete
from .models import Kind, MemoryEntry, Scope

Status = MemoryEntry.Status
DEFAULT_RETENTION_DAYS = {Kind.FACT: 730, Kind.PREFERENCE: 730, Kind.PROCEDURE: 1095, Kind.TERM: 1095,
                          Kind.EVENT: 365}
DEFAULTS = {"MEMORY_EXPIRED_PURGE_DAYS": 30, "MEMORY_DEPARTED_PURGE_DAYS": 90, "MEMORY_RECONFIRM_DAYS": 180}
RECONFIRM, SUBJECT_LEFT = "reconfirm", "subject_left"
BATCH = 500


def setting(name: str):
    if name == "MEMORY_RETENTION_DAYS":
        return {**DEFAULT_RETENTION_DAYS, **getattr(settings, name, {})}
    return getattr(settings, name, DEFAULTS[name])


def _confirmed_or_created():
    return Coalesce(F("last_confirmed_at"), F("created_at"))


def memory_expire_due(*, now=None) -> int:
    """Entries whose validity ended become `expired` (retrieval already ignores them)."""
    now = now or timezone.now()
    due = MemoryEntry.objects.filter(status__in=[Status.ACTIVE, Status.PROPOSED], valid_until__lte=now)
    done = 0
    while True:
        with transaction.atomic():
            rows = list(due.select_for_update(skip_locked=True, no_key=True)[:BATCH])
            if not rows:
                return done
            MemoryEntry.objects.filter(pk__in=[r.pk for r in rows]).update(status=Status.EXPIRED, updated_at=now)
            events.record_many(rows, "expire", reason="valid_until passed")
            done += len(rows)


def memory_flag_unconfirmed(*, days: int | None = None, now=None) -> int:
    """Active entries nobody confirmed for `days` are flagged once, for a person to reconfirm."""
    now = now or timezone.now()
    days = setting("MEMORY_RECONFIRM_DAYS") if days is None else days
    stale = MemoryEntry.objects.annotate(seen=_confirmed_or_created()).filter(
        status=Status.ACTIVE, flag_reason="", seen__lt=now - timedelta(days=days))
    return _flag(stale, RECONFIRM, "reconfirm_flag", f"not confirmed for {days} days", now=now)


def memory_flag_subject_left(*, username: str, by=None, now=None) -> int:
    """A departed user's own entries wait for review (and for deletion under retention)."""
    rows = MemoryEntry.objects.filter(scope=Scope.USER, subject=username).exclude(status=Status.DELETED).exclude(
        flag_reason=SUBJECT_LEFT)
    return _flag(rows, SUBJECT_LEFT, "review_flag", "the person left", actor=by, now=now or timezone.now())


def _flag(queryset, reason: str, action: str, why: str, *, now, actor=None) -> int:
    with transaction.atomic():
        rows = list(queryset.select_for_update(no_key=True))
        MemoryEntry.objects.filter(pk__in=[r.pk for r in rows]).update(flag_reason=reason, flagged_at=now)
        events.record_many(rows, action, actor=actor, reason=why)
    return len(rows)


def purge_candidates(*, now=None, expired_days: int | None = None) -> dict[str, list]:
    """The ids retention would delete now, by rule: for a dry run, and for memory_purge."""
    now = now or timezone.now()
    live = MemoryEntry.objects.exclude(status=Status.DELETED)
    found = {}
    for kind, days in setting("MEMORY_RETENTION_DAYS").items():
        if days is not None:
            old = live.annotate(seen=_confirmed_or_created()).filter(kind=kind, seen__lt=now - timedelta(days=days))
            found[f"retention {kind} {days}d"] = list(old.values_list("pk", flat=True))
    expired_days = setting("MEMORY_EXPIRED_PURGE_DAYS") if expired_days is None else expired_days
    found[f"expired {expired_days}d"] = list(live.filter(
        status=Status.EXPIRED, valid_until__lt=now - timedelta(days=expired_days)).values_list("pk", flat=True))
    departed_days = setting("MEMORY_DEPARTED_PURGE_DAYS")
    inactive = get_user_model().objects.filter(is_active=False).values(get_user_model().USERNAME_FIELD)
    found[f"departed {departed_days}d"] = list(live.filter(
        scope=Scope.USER, subject__in=inactive, flag_reason=SUBJECT_LEFT,
        flagged_at__lt=now - timedelta(days=departed_days)).values_list("pk", flat=True))
    return found


def memory_purge(*, now=None, dry_run: bool = False, expired_days: int | None = None) -> dict[str, int]:
    """Delete (memory_delete: content, history, derived data) what retention says is due."""
    counts = {}
    done = set()
    for rule, ids in purge_candidates(now=now, expired_days=expired_days).items():
        todo = [pk for pk in ids if pk not in done]
        counts[rule] = len(todo)
        done.update(todo)
        for pk in [] if dry_run else todo:
            try:
                memory_delete(entry=pk, by=None, reason=f"retention: {rule}")
            except NotFound:  # deleted by someone else since it was listed
                pass
    return counts


def memory_maintenance(*, now=None) -> dict[str, int]:
    """One housekeeping pass, for beat: expire, flag for reconfirmation, purge."""
    now = now or timezone.now()
    report = {"expired": memory_expire_due(now=now), "flagged": memory_flag_unconfirmed(now=now)}
    report |= {f"purged ({rule})": n for rule, n in memory_purge(now=now).items()}
    return report

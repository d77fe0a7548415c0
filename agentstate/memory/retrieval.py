"""What the agent may use as context: active, in scope, currently valid, readable by the
person the task is for, most specific scope first. Every use is recorded against the task
and turn, so "why did the agent do that?" has an answer.

Memory is context, never authority: nothing here is consulted by a permission check or a
transition guard."""
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import IntegerField, Q, Value
from django.utils import timezone

from . import events, policy
from .models import MemoryEntry, Scope

SCOPE_ORDER = {Scope.USER: 0, Scope.DEPARTMENT: 1, Scope.ORGANISATION: 2}


def usable_entries(user, *, task=None, now=None):
    """(scope, subject, queryset) for each part of the user's context, most specific first.

    Each queryset is in retrieval order and walks memory_retrieval_idx; it is not yet
    filtered by the policy's readable rule (see first_readable for why)."""
    rules = policy.current()
    now = now or timezone.now()
    live = MemoryEntry.objects.filter(status=MemoryEntry.Status.ACTIVE, valid_from__lte=now).filter(
        Q(valid_until__isnull=True) | Q(valid_until__gt=now))
    pairs = sorted(dict.fromkeys(rules.subjects_for(user, task=task)),  # once each, whatever the policy returns
                   key=lambda pair: SCOPE_ORDER.get(pair[0], len(SCOPE_ORDER)))
    for scope, subject in pairs:
        if scope == Scope.USER and not _is_active_user(subject, user):
            continue  # a departed person's own memory is never used, whoever asks
        yield scope, subject, live.filter(scope=scope, subject=subject).order_by("-last_confirmed_at", "pk")


def first_readable(rows, readable: Q, want: int, offset: int = 0) -> list[MemoryEntry]:
    """The first `want` of `rows` (from `offset` on) that the readable rule lets through.

    The rule is an OR across scopes; folded into the ordered query it turns an index walk that
    stops after `want` rows into a bitmap scan and a sort of the whole scope. So candidates are
    read in order, a page at a time, and the rule is applied to their ids."""
    picked, page = [], max(want, 20)
    while len(picked) < want:
        candidates = list(rows[offset:offset + page])
        allowed = set(MemoryEntry.objects.filter(readable, pk__in=[c.pk for c in candidates]).values_list(
            "pk", flat=True)) if candidates else set()
        picked += [c for c in candidates if c.pk in allowed][:want - len(picked)]
        if len(candidates) < page:
            break
        offset += page
    return picked


def memory_retrieve(user, *, task=None, turn=None, limit: int = 20, now=None) -> list[MemoryEntry]:
    """Up to `limit` entries for `user`'s context, each recorded as a `use` on the task and turn."""
    scoped = [rows for _scope, _subject, rows in usable_entries(user, task=task, now=now)]
    page = max(limit, 20)
    firsts = first_pages(scoped, page)
    # Each scope's first page is read in one query, and the readable rule (what the policy reads
    # about the person) is asked once, for all of them, and only when there is something to read.
    candidates = [entry.pk for first in firsts for entry in first]
    readable = policy.current().readable(user) if candidates else None
    allowed = set(MemoryEntry.objects.filter(readable, pk__in=candidates).values_list("pk", flat=True)) \
        if candidates else set()
    picked: list[MemoryEntry] = []
    for rows, first in zip(scoped, firsts):
        want = limit - len(picked)
        if want <= 0:
            break
        got = [entry for entry in first if entry.pk in allowed][:want]
        if len(got) < want and len(first) == page:  # more of this scope than one page: read on
            got += first_readable(rows, readable, want - len(got), offset=page)
        picked += got
    if picked:
        events.record_many(picked, "use", actor=user, task=task, turn=turn)
    return picked


@dataclass
class Context:
    text: str           # what the agent's prompt gets
    refs: list[dict]    # [{"id", "version"}]: what a turn or checkpoint may store, never the text
    entries: list[MemoryEntry]


def memory_context(user, *, task=None, turn=None, limit: int = 20) -> Context:
    entries = memory_retrieve(user, task=task, turn=turn, limit=limit)
    lines = [f"- ({e.kind}, {e.scope} {e.subject or 'organisation'}) {e.content}" for e in entries]
    text = ("What is known (context, not authority):\n" + "\n".join(lines)) if lines else ""
    return Context(text, [{"id": str(e.pk), "version": e.version} for e in entries], entries)


def first_pages(scoped: list, page: int) -> list[list[MemoryEntry]]:
    """The first `page` rows of each queryset of `scoped`, in its order: one query (a union of the
    sliced querysets) where the database allows LIMIT inside a UNION, else one each."""
    if len(scoped) < 2 or not connection.features.supports_slicing_ordering_in_compound:
        return [list(rows[:page]) for rows in scoped]
    first, *rest = [rows.annotate(part=Value(n, output_field=IntegerField()))[:page] for n, rows in enumerate(scoped)]
    parts: list[list[MemoryEntry]] = [[] for _ in scoped]
    for entry in first.union(*rest, all=True):
        parts[entry.part].append(entry)
    # A union keeps no order: each part is put back in its queryset's (newest confirmation first,
    # never-confirmed ones first as PostgreSQL sorts NULL in a descending order, then pk).
    return [sorted(part, key=lambda e: (e.last_confirmed_at is not None,
                                        -e.last_confirmed_at.timestamp() if e.last_confirmed_at else 0, e.pk))
            for part in parts]


def _is_active_user(username: str, asking=None) -> bool:
    if asking is not None and asking.get_username() == username:
        return asking.is_active  # the person asking: already read
    User = get_user_model()
    return User.objects.filter(**{User.USERNAME_FIELD: username, "is_active": True}).exists()

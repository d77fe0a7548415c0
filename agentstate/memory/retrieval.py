"""What the agent may use as context: active, in scope, currently valid, readable by the
person the task is for, most specific scope first. Every use is recorded against the task
and turn, so "why did the agent do that?" has an answer.

Memory is context, never authority: nothing here is consulted by a permission check or a
transition guard."""
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db.models import Q
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
        if scope == Scope.USER and not _is_active_user(subject):
            continue  # a departed person's own memory is never used, whoever asks
        yield scope, subject, live.filter(scope=scope, subject=subject).order_by("-last_confirmed_at", "pk")


def first_readable(rows, readable: Q, want: int) -> list[MemoryEntry]:
    """The first `want` of `rows` that the readable rule lets through.

    The rule is an OR across scopes; folded into the ordered query it turns an index walk that
    stops after `want` rows into a bitmap scan and a sort of the whole scope. So candidates are
    read in order, a page at a time, and the rule is applied to their ids."""
    picked, offset, page = [], 0, max(want, 20)
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
    readable = policy.current().readable(user)
    picked: list[MemoryEntry] = []
    for _scope, _subject, rows in usable_entries(user, task=task, now=now):
        if len(picked) >= limit:
            break
        picked += first_readable(rows, readable, limit - len(picked))
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


def _is_active_user(username: str) -> bool:
    User = get_user_model()
    return User.objects.filter(**{User.USERNAME_FIELD: username, "is_active": True}).exists()

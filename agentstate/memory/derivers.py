"""What else holds a memory's text: summaries, cached context, embeddings. Each holder
registers a deriver, so a deletion can say what goes with it and then remove it all.

A deriver counts and purges what was derived from an entry, given its id and every text it
has had (current, past and pending versions). The engine registers session summaries; the
app adds its own caches or embeddings with `register()`."""
import hashlib
import json
from dataclasses import dataclass
from functools import reduce
from operator import or_
from typing import Callable

from django.contrib.auth import get_user_model
from django.db.models import Q


@dataclass(frozen=True)
class Deriver:
    name: str                                   # plural noun for previews: "session summaries"
    singular: str                               # "session summary"
    count: Callable[[str, list[str]], int]      # (entry_id, texts) -> how many would go
    purge: Callable[[str, list[str]], int]      # (entry_id, texts) -> how many went


_registry: dict[str, Deriver] = {}


def register(deriver: Deriver) -> Deriver:
    _registry[deriver.name] = deriver
    return deriver


def unregister(name: str):
    _registry.pop(name, None)


def all_derivers() -> list[Deriver]:
    return list(_registry.values())


# -- where the text can be ------------------------------------------------------------------
# A memory's text reaches a session or task in three ways only: it was said there (the turns it
# was learned from, and the task those sessions drafted); the agent used it there (a `use`
# MemoryEvent names the turn and the task); or the record belongs to the person a user-scope
# entry is about (their own words, anywhere). Every deriver below looks only at those rows, so a
# deletion reads a few sessions and tasks, never whole tables.

def reach(entry_id) -> tuple[list, list]:
    """(session ids, task ids) where the entry's text can be. Each step is an indexed lookup, and
    the lists are handed to the derivers as literal ids, so the planner never scans a table."""
    from ..models import Session, Task, Turn
    from .models import MemoryEntry, MemoryEvent, MemoryVersion, Scope

    entry = MemoryEntry.objects.filter(pk=entry_id).values("scope", "subject", "source_turn_id").first() or {}
    source_turns = {entry.get("source_turn_id"), *MemoryVersion.objects.filter(entry_id=entry_id).values_list(
        "source_turn_id", flat=True)} - {None}
    sessions = set(Turn.objects.filter(pk__in=source_turns).values_list("session_id", flat=True))
    tasks = set()
    for session_id, task_id in MemoryEvent.objects.filter(entry_id=entry_id).values_list("turn__session_id",
                                                                                          "task_id"):
        sessions.add(session_id)
        tasks.add(task_id)
    if entry.get("scope") == Scope.USER:
        person = get_user_model().objects.filter(username=entry["subject"]).values_list("pk", flat=True).first()
        sessions |= set(Session.objects.filter(owner_id=person).order_by().values_list("pk", flat=True))
        tasks |= set(Task.objects.filter(initiator_id=person).order_by().values_list("pk", flat=True))
    sessions.discard(None)
    tasks |= set(Session.objects.filter(pk__in=sessions, task__isnull=False).values_list("task_id", flat=True))
    tasks.discard(None)
    # And every conversation about those tasks: the agent may have repeated a draft's words there.
    sessions |= set(Session.objects.filter(task_id__in=tasks).values_list("pk", flat=True))
    return sorted(sessions), sorted(tasks)


# -- session summaries ---------------------------------------------------------------------
# A summary may fold in the memory the agent used in that session, or quote it; either way
# it is cleared, and can be rebuilt from the turns, which refer to memory by id only.

def _summaries(entry_id, texts):
    from ..models import Session

    used_in = Q(turns__memory_events__entry_id=entry_id)
    quoting = [Q(summary__contains=text) for text in texts if text]
    sessions, _tasks_reached = reach(entry_id)
    return Session.objects.filter(pk__in=sessions).exclude(summary="").filter(reduce(or_, quoting, used_in)).distinct()


def _count_summaries(entry_id, texts) -> int:
    return _summaries(entry_id, texts).count()


def _purge_summaries(entry_id, texts) -> int:
    from ..models import Session

    ids = list(_summaries(entry_id, texts).values_list("pk", flat=True))
    return Session.objects.filter(pk__in=ids).update(summary="")


register(Deriver("session summaries", "session summary", _count_summaries, _purge_summaries))


# -- copies of the text elsewhere ----------------------------------------------------------
# Turns that quote it (the agent repeating it back; the turn it was learned from is the
# deletion's own to redact), task data and the checkpoints that snapshot it, and the reasons
# on task events: each occurrence of the text is masked, the rest of the record stays.

MASK = "[removed]"


def mask(value, texts):
    """`value` with every occurrence of each text replaced by MASK, inside JSON too."""
    if isinstance(value, str):
        for text in sorted(texts, key=len, reverse=True):
            value = value.replace(text, MASK)
        return value
    if isinstance(value, list):
        return [mask(item, texts) for item in value]
    if isinstance(value, dict):
        return {mask(key, texts): mask(item, texts) for key, item in value.items()}
    return value


def _quoting(queryset, fields, texts):
    from django.db.models import TextField
    from django.db.models.functions import Cast

    annotated = queryset.annotate(**{f"_{f}_text": Cast(f, TextField()) for f in fields})
    found = [Q(**{f"_{f}_text__contains": text}) for f in fields for text in texts if text]
    return annotated.filter(reduce(or_, found)) if found else queryset.none()


def _other_turns(entry_id, texts):
    from ..models import Turn
    from .models import MemoryEntry, MemoryVersion

    sources = [*MemoryEntry.objects.filter(pk=entry_id).values_list("source_turn_id", flat=True),
               *MemoryVersion.objects.filter(entry_id=entry_id).values_list("source_turn_id", flat=True)]
    sessions, _tasks_reached = reach(entry_id)
    turns = Turn.objects.filter(session_id__in=sessions).exclude(pk__in=[s for s in sources if s])
    return _quoting(turns, ["text", "data"], texts)


def _purge_turns(entry_id, texts) -> int:
    from ..models import Turn

    rows = list(_other_turns(entry_id, texts).values_list("pk", "text", "data"))
    for pk, text, data in rows:  # append-only rows: masked through the queryset, not save()
        Turn.objects.filter(pk=pk).update(text=mask(text, texts), data=mask(data, texts))
    return len(rows)


def _tasks(entry_id, texts):
    from ..models import Task

    _sessions, tasks = reach(entry_id)
    return _quoting(Task.objects.filter(pk__in=tasks), ["data", "data_overlay"], texts)


def _checkpoints(entry_id, texts):
    from ..models import Checkpoint

    # A checkpoint's body is JSON text: the memory's text may sit there escaped.
    escaped = {json.dumps(text, ensure_ascii=False)[1:-1] for text in texts}
    _sessions, tasks = reach(entry_id)
    return _quoting(Checkpoint.objects.filter(task_id__in=tasks), ["body"], sorted(set(texts) | escaped))


def _count_task_data(entry_id, texts) -> int:
    return _tasks(entry_id, texts).count() + _checkpoints(entry_id, texts).count()


def _purge_task_data(entry_id, texts) -> int:
    """Task data is masked in place (state and version untouched); checkpoints are masked and
    sealed again, so they still load and say what the agent knew, less the deleted words."""
    from ..models import Checkpoint, Task
    from ..sql import dumps

    tasks = list(_tasks(entry_id, texts).values_list("pk", "data", "data_overlay"))
    for pk, data, overlay in tasks:
        Task.objects.filter(pk=pk).update(data=mask(data, texts), data_overlay=mask(overlay, texts))
    checkpoints = list(_checkpoints(entry_id, texts).values_list("pk", "body", "checksum"))
    for pk, body, checksum in checkpoints:
        was_sealed = hashlib.sha256(body.encode()).hexdigest() == checksum
        body = dumps(mask(json.loads(body), texts))
        # One that no longer verified before stays unverifiable: a deletion never vouches for it.
        Checkpoint.objects.filter(pk=pk).update(
            body=body, checksum=hashlib.sha256(body.encode()).hexdigest() if was_sealed else checksum)
    return len(tasks) + len(checkpoints)


def _events(entry_id, texts):
    from ..models import TaskEvent

    _sessions, tasks = reach(entry_id)
    return _quoting(TaskEvent.objects.filter(task_id__in=tasks), ["reason", "data"], texts)


def _purge_events(entry_id, texts) -> int:
    from ..models import TaskEvent

    rows = list(_events(entry_id, texts).values_list("pk", "reason", "data"))
    for pk, reason, data in rows:
        TaskEvent.objects.filter(pk=pk).update(reason=mask(reason, texts), data=mask(data, texts))
    return len(rows)


register(Deriver("chat turns quoting it", "chat turn quoting it", lambda e, t: _other_turns(e, t).count(),
                 _purge_turns))
register(Deriver("task records quoting it", "task record quoting it", _count_task_data, _purge_task_data))
register(Deriver("task event reasons quoting it", "task event reason quoting it", lambda e, t: _events(e, t).count(),
                 _purge_events))

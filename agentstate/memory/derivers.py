"""What else holds a memory's text: summaries, cached context, embeddings. Each holder
registers a deriver, so a deletion can say what goes with it and then remove it all.

A deriver counts and purges what was derived from an entry, given its id and every text it
has had (current, past and pending versions). The engine registers session summaries; the
app adds its own caches or embeddings with `register()`."""
from dataclasses import dataclass
from functools import reduce
from operator import or_
from typing import Callable

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


# -- session summaries ---------------------------------------------------------------------
# A summary may fold in the memory the agent used in that session, or quote it; either way
# it is cleared, and can be rebuilt from the turns, which refer to memory by id only.

def _summaries(entry_id, texts):
    from ..models import Session

    used_in = Q(turns__memory_events__entry_id=entry_id)
    quoting = [Q(summary__contains=text) for text in texts if text]
    return Session.objects.exclude(summary="").filter(reduce(or_, quoting, used_in)).distinct()


def _count_summaries(entry_id, texts) -> int:
    return _summaries(entry_id, texts).count()


def _purge_summaries(entry_id, texts) -> int:
    from ..models import Session

    ids = list(_summaries(entry_id, texts).values_list("pk", flat=True))
    return Session.objects.filter(pk__in=ids).update(summary="")


register(Deriver("session summaries", "session summary", _count_summaries, _purge_summaries))

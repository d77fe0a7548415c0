"""Retention of artifacts (part of `manage.py prune_state`, agentstate.retention).

An artifact's bytes go once nothing still needs them: every version naming the blob belongs to a
task that ended more than CHECKPOINT_KEEP_DAYS_AFTER_END ago (DESIGN names no period of its own
for files, so they share the checkpoints'), or to a draft nobody can return to (all its
conversations expired) untouched as long. A task with a pending approval, a task a kept fork was
made from, and every other task keep theirs. Only the bytes go: the Blob row (SHA-256, size), the
Artifact and its versions (who uploaded which file, when, its name) stay, so history, State and
receipts that name them still read, and `artifact_read` says the content was removed."""
from dataclasses import dataclass
from datetime import timedelta

from django.db import transaction
from django.db.models import Exists, OuterRef, Q, Sum

from ..kinds import all_kinds
from ..models import Approval, Session, Task
from .models import Artifact, ArtifactVersion, Blob
from .services import artifact_storage

BATCH = 500


@dataclass
class ArtifactPrune:
    blobs: int = 0
    bytes: int = 0
    artifacts: int = 0


def _let_go_tasks(*, keep_days: int, now):
    """Tasks whose files may go (see the module docstring)."""
    cutoff = now - timedelta(days=keep_days)
    ended, abandoned = Q(), Q()
    for kind in all_kinds():
        if kind.terminal:
            ended |= Q(kind=kind.name, state__in=kind.terminal)
        abandoned |= Q(kind=kind.name, state=kind.initial)
    live_session = Session.objects.filter(task=OuterRef("pk")).exclude(status=Session.Status.EXPIRED)
    abandoned &= Q(Exists(Session.objects.filter(task=OuterRef("pk"))), ~Exists(live_session))
    pending = Approval.objects.filter(task=OuterRef("pk"), status=Approval.Status.PENDING)
    let_go = Task.objects.filter(ended | abandoned, runnable=False, updated_at__lt=cutoff).exclude(Exists(pending))
    return let_go.exclude(pk__in=_origins_of_kept_forks(let_go))


def _origins_of_kept_forks(let_go) -> set[str]:
    """Every task a kept fork was made from, up the chain: a fork reads the file its original read
    (artifact_version_of's `referenced`), and a fork of a fork the file of the first original."""
    forks = Task.objects.filter(data__has_key="forked_from")
    origins, frontier = set(), forks.exclude(pk__in=let_go.values("pk"))
    while True:
        found = {str(pk) for pk in frontier.values_list("data__forked_from__task", flat=True) if pk} - origins
        if not found:
            return origins
        origins |= found
        frontier = forks.filter(pk__in=found)


def _prunable_blobs(let_go):
    kept = ArtifactVersion.objects.exclude(artifact__task__in=let_go.values("pk")).values("blob")
    return (Blob.objects.filter(pruned_at__isnull=True, versions__artifact__task__in=let_go.values("pk"))
            .exclude(pk__in=kept).distinct())


def artifacts_prune(*, keep_days: int, now, dry_run: bool = False) -> ArtifactPrune:
    """Remove the bytes of the blobs nothing kept uses (dry run: count only)."""
    blobs = _prunable_blobs(_let_go_tasks(keep_days=keep_days, now=now))
    found = ArtifactPrune()
    ids = list(blobs.values_list("pk", flat=True))
    for start in range(0, len(ids), BATCH):
        batch = ids[start:start + BATCH]
        if not dry_run:
            batch = _prune_batch(batch, keep_days=keep_days, now=now)
        found.blobs += len(batch)
        found.bytes += Blob.objects.filter(pk__in=batch).aggregate(n=Sum("size"))["n"] or 0
        found.artifacts += Artifact.objects.filter(versions__blob__in=batch).distinct().count()
    return found


def _prune_batch(ids: list[str], *, keep_days: int, now) -> list[str]:
    """Mark and delete under the blobs' row locks, re-checked: an upload of the same bytes takes
    the same lock (services._blob_restore), so it either comes first and keeps the blob, or
    after and stores the bytes again."""
    with transaction.atomic():
        locked = list(Blob.objects.select_for_update().filter(pk__in=ids, pruned_at__isnull=True)
                      .values_list("pk", flat=True))
        still = list(_prunable_blobs(_let_go_tasks(keep_days=keep_days, now=now)).filter(pk__in=locked)
                     .values_list("pk", "path"))
        Blob.objects.filter(pk__in=[pk for pk, _ in still]).update(pruned_at=now)
        storage = artifact_storage()
        for _, path in still:
            storage.delete(path)
    return [pk for pk, _ in still]

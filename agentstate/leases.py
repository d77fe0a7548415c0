"""Leases: which worker may run a task's next step, fenced by a token (DESIGN §5).

Claiming bumps `lease_token` but never `version`, so a worker picking a task up does not
make a manager's approval stale. Every write a worker makes passes its token; once the
lease is reclaimed the token is old and the write is refused (machine.fire).
"""
from dataclasses import dataclass
from datetime import timedelta

from django.db import connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from . import sql
from .models import Task


@dataclass(frozen=True)
class Lease:
    task_id: object
    worker: str
    token: int
    until: object


def lease_claim(*, task_id, worker: str, seconds: int) -> Lease | None:
    """Claim the task for `worker`, or None if another worker holds it or its row is locked."""
    if connection.vendor == "postgresql":
        claimed = lease_claim_task(task_id=task_id, worker=worker, seconds=seconds)
        return None if claimed is None else claimed[0]
    return _claim_orm(task_id, worker, seconds)


def _claim_orm(task_id, worker: str, seconds: int) -> Lease | None:
    now = timezone.now()
    with transaction.atomic():
        free = (Task.objects.select_for_update(skip_locked=True, no_key=True)
                .filter(pk=task_id).filter(Q(lease_until__isnull=True) | Q(lease_until__lt=now))
                .values_list("lease_token", flat=True).first())
        if free is None:
            return None
        until = now + timedelta(seconds=seconds)
        Task.objects.filter(pk=task_id).update(leased_by=worker, lease_until=until, lease_token=F("lease_token") + 1)
    return Lease(task_id=task_id, worker=worker, token=free + 1, until=until)


def lease_claim_task(*, task_id, worker: str, seconds: int) -> tuple[Lease, Task] | None:
    """lease_claim, and the task as it stands once claimed (a worker's first read of a step). On
    PostgreSQL both are one statement; None if another worker holds it or its row is locked."""
    if connection.vendor != "postgresql":
        lease = _claim_orm(task_id, worker, seconds)
        return None if lease is None else (lease, Task.objects.get(pk=task_id))
    now = timezone.now()
    until = now + timedelta(seconds=seconds)
    task = sql.claim_task(task_id, worker=worker, until=until, now=now)
    if task is None:
        return None
    return Lease(task_id=task_id, worker=worker, token=task.lease_token, until=until), task


def lease_renew(*, lease: Lease, seconds: int) -> Lease | None:
    until = timezone.now() + timedelta(seconds=seconds)
    renewed = Task.objects.filter(pk=lease.task_id, lease_token=lease.token).update(lease_until=until)
    return Lease(lease.task_id, lease.worker, lease.token, until) if renewed else None


def lease_release(*, lease: Lease, failures: int = 0) -> bool:
    """Give the task back, with how many times in a row its current step has failed (0: it
    finished, or someone moved the task). False if the lease had already been reclaimed."""
    return bool(Task.objects.filter(pk=lease.task_id, lease_token=lease.token).update(
        leased_by="", lease_until=None, attempts=failures))


def lease_reclaim_expired(*, task_id, token: int) -> bool:
    """Fence off an expired lease: bump the token so its holder can no longer write."""
    return bool(Task.objects.filter(pk=task_id, lease_token=token, lease_until__lt=timezone.now()).update(
        leased_by="", lease_until=None, lease_token=F("lease_token") + 1))


def leases_expired():
    return Task.objects.filter(lease_until__lt=timezone.now())

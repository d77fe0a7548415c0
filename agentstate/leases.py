"""Leases: which worker may run a task's next step, fenced by a token (DESIGN §5).

Claiming bumps `lease_token` but never `version`, so a worker picking a task up does not
make a manager's approval stale. Every write a worker makes passes its token; once the
lease is reclaimed the token is old and the write is refused (machine.fire).
"""
from dataclasses import dataclass
from datetime import timedelta

from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from .models import Task


@dataclass(frozen=True)
class Lease:
    task_id: object
    worker: str
    token: int
    until: object


def lease_claim(*, task_id, worker: str, seconds: int) -> Lease | None:
    """Claim the task for `worker`, or None if another worker holds it or its row is locked."""
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

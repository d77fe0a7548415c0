"""One recovery pass (beat schedules it; `manage.py recover` runs it by hand).

1. Expired leases are fenced off (token bumped) and their tasks handed back to their kind.
2. Runnable tasks nobody picked up for a while are handed back to their kind.
3. Receipts left `sent` or `unknown` are settled by looking their key up, and compensations a
   committed move planned but a crash kept from sending (a rewind's cancellations) are sent.
4. Approvals past their deadline expire.
Each recovery is a TaskEvent, so a person can see why a task moved again. A task is handed
back only after its newest checkpoint verifies (checkpoints.checkpoint_latest); one that fails
stays unrun, with the refusal on its record, and goes to its kind's review state if it has one.
"""
import logging
from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from . import trace
from .actors import Actor
from .approvals import approvals_expire
from .checkpoints import checkpoint_latest
from .errors import CheckpointNotFound, CheckpointRefused, DomainError, SchemaTooNew
from .kinds import get_kind
from .leases import lease_reclaim_expired, leases_expired
from .machine import fire, runnable_tasks
from .models import Receipt, Task, TaskEvent
from .receipts import receipt_perform, receipt_reconcile, receipts_open
from .said import Said, event_fields, say

log = logging.getLogger(__name__)


@dataclass
class RecoveryReport:
    leases_reclaimed: list = field(default_factory=list)
    tasks_resumed: list = field(default_factory=list)
    receipts_settled: list = field(default_factory=list)
    approvals_expired: list = field(default_factory=list)
    checkpoints_refused: list = field(default_factory=list)

    def __str__(self):
        return (f"leases reclaimed: {len(self.leases_reclaimed)}, tasks resumed: {len(self.tasks_resumed)}, "
                f"receipts settled: {len(self.receipts_settled)}, approvals expired: {len(self.approvals_expired)}, "
                f"checkpoints refused: {len(self.checkpoints_refused)}")


def recovery_pass(*, stale_seconds: int | None = None, receipt_grace_seconds: int | None = None) -> RecoveryReport:
    stale = settings.RECOVERY_STALE_SECONDS if stale_seconds is None else stale_seconds
    grace = settings.AGENT_LEASE_SECONDS if receipt_grace_seconds is None else receipt_grace_seconds
    report = RecoveryReport()
    for task in leases_expired():
        if lease_reclaim_expired(task_id=task.pk, token=task.lease_token):
            _note(task, "recovery.lease_expired", say("lease_expired", worker=task.leased_by))
            report.leases_reclaimed.append(task.pk)
            _resume(task, report)
    for task in runnable_tasks(timezone.now() - timedelta(seconds=stale)):
        if task.pk not in report.tasks_resumed:
            _note(task, "recovery.resumed", say("idle_handed_back"))
            _resume(task, report)
    _settle_receipts(grace, report)
    _send_planned_compensations(grace, report)
    report.approvals_expired = approvals_expire()
    # What settling and expiry made runnable (a compensation, the next step) runs now, not a pass later.
    settled = Receipt.objects.filter(pk__in=report.receipts_settled).values_list("task_id", flat=True)
    moved = set(settled) | set(report.approvals_expired)
    for task in Task.objects.filter(pk__in=moved, runnable=True).exclude(pk__in=report.tasks_resumed):
        _resume(task, report)
    return report


def _resume(task: Task, report: RecoveryReport):
    kind = get_kind(task.kind)
    if task.state in kind.runnable and kind.on_runnable is not None and _checkpoint_verifies(task, kind, report):
        with trace.using(task.trace_id):  # the message that hands it back carries its trace
            kind.on_runnable(str(task.pk))
        report.tasks_resumed.append(task.pk)
    # Touch it, so the next pass does not hand it out again before a worker had its chance.
    Task.objects.filter(pk=task.pk).update(updated_at=timezone.now())


def _settle_receipts(grace: int, report: RecoveryReport):
    cutoff = timezone.now() - timedelta(seconds=grace)
    candidates = receipts_open().filter(Q(status="unknown") | Q(updated_at__lt=cutoff)).select_related("task")
    for receipt in candidates:
        task = receipt.task
        if task.lease_until is not None and task.lease_until > timezone.now():
            continue  # a live worker owns this task and will settle its own receipt
        kind = get_kind(task.kind)
        if kind.client_for is None:
            continue
        before = receipt.status
        with trace.using(task.trace_id):  # the ERP lookup is part of the task's trace
            settled = receipt_reconcile(receipt=receipt, client=kind.client_for(receipt.operation),
                                        on_outcome=kind.on_receipt_resolved)
        if settled.status != before:
            _note(task, "recovery.receipt", say("receipt_settled", operation=settled.operation, before=before,
                                                    after=settled.status))
            report.receipts_settled.append(settled.pk)


def _send_planned_compensations(grace: int, report: RecoveryReport):
    """A compensation is planned only by a move that committed (a rewind): it is owed, and sent
    under its key like any receipt (never twice, whoever sends it first)."""
    cutoff = timezone.now() - timedelta(seconds=grace)
    planned = Receipt.objects.filter(status=Receipt.Status.PLANNED, updated_at__lt=cutoff).select_related("task")
    for receipt in planned:
        task = receipt.task
        kind = get_kind(task.kind)
        if receipt.operation not in kind.compensations or kind.client_for is None:
            continue
        if task.lease_until is not None and task.lease_until > timezone.now():
            continue  # a live worker owns this task and sends what it planned
        with trace.using(task.trace_id):
            sent = receipt_perform(receipt=receipt, client=kind.client_for(receipt.operation),
                                   on_outcome=kind.on_receipt_resolved)
        _note(task, "recovery.receipt", say("receipt_settled", operation=sent.operation, before="planned",
                                                after=sent.status))
        report.receipts_settled.append(sent.pk)


def _not_resumed(refused: DomainError) -> Said:
    if isinstance(refused, SchemaTooNew):
        return say("not_resumed_schema", found=refused.extra.get("found"), detail=str(refused))
    return say("not_resumed_checkpoint", version=refused.extra.get("version"), detail=str(refused))


def _note(task: Task, event: str, reason: Said):
    text, data = event_fields(reason)
    TaskEvent.objects.create(task_id=task.pk, actor="recovery", event=event, from_state=task.state,
                             to_state=task.state, version=task.version, reason=text, data=data)


def _checkpoint_verifies(task: Task, kind, report: RecoveryReport) -> bool:
    """Resume continues from the newest checkpoint: it must be the task's own, intact and of a
    schema this code knows. A refusal is already an event (checkpoint_load); the task then goes
    where a person looks, if its kind says where, and is not handed to a worker."""
    try:
        checkpoint_latest(task, tenant=task.tenant, actor=Actor.runtime("recovery"))
        return True
    except CheckpointNotFound:
        return True  # a task whose transitions write no checkpoints resumes from its row
    except (CheckpointRefused, SchemaTooNew) as refused:
        log.warning("task %s: not resumed: %s", task.pk, refused)
        if isinstance(refused, SchemaTooNew):
            _note(task, "recovery.schema_too_new", refused.said)
        report.checkpoints_refused.append(task.pk)
        if kind.checkpoint_refused_event:
            try:
                fire(task.pk, kind.checkpoint_refused_event, actor=Actor.runtime("recovery"),
                     expected_version=task.version, reason=_not_resumed(refused))
            except DomainError as exc:
                log.warning("task %s: could not hand it to a person: %s", task.pk, exc)
        return False

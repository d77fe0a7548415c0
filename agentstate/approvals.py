"""Approvals bound to the version a person saw (DESIGN §7).

An approval authorises exactly its scope, for exactly one task version, for the people on
its frozen route. Deciding locks the task row and re-checks all of it; of several
identical clicks exactly one decides and the others get a 409.
"""
import hashlib
from datetime import timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from . import sql
from .actors import Actor
from .errors import Conflict, DomainError, NotFound, NotPermitted, StaleVersion
from .ids import is_uuid
from .kinds import APPROVER, get_kind
from .machine import fire
from .models import Approval, Task

DECISIONS = {"approve": Approval.Status.APPROVED, "reject": Approval.Status.REJECTED,
             "return": Approval.Status.RETURNED}


def scope_hash(scope: dict) -> str:
    return hashlib.sha256(sql.dumps(scope).encode()).hexdigest()


def approval_open(*, task: Task, scope: dict, approvers: list, rule: dict, ttl_seconds: int) -> Approval:
    """Open the approval for the task's current version. Call it in the transaction that
    moved the task into its waiting state, with the task as that move returned it."""
    approval = Approval.objects.create(task_id=task.pk, state_version=task.version, scope=scope,
                                       scope_hash=scope_hash(scope), rule=rule,
                                       expires_at=timezone.now() + timedelta(seconds=ttl_seconds))
    approval.approvers.set(approvers)
    return approval


def approval_decide(*, approval_id, user, decision: str, state_version: int, scope_hash: str | None = None,
                    comment: str = "", data: dict | None = None) -> Approval:
    """Decide under the task's row lock; `data` is merged into the task's data by the same move."""
    if decision not in DECISIONS:
        raise DomainError(f"Unknown decision {decision!r}; expected one of: {', '.join(DECISIONS)}.")
    if decision != "approve" and not comment.strip():
        raise DomainError(f"A comment is required to {decision}.", errors={"comment": [gettext("This field is required.")]})
    with transaction.atomic():
        approval = _lock(approval_id)
        kind = get_kind(approval.task.kind)
        if kind.may_view is not None and not kind.may_view(user, approval.task):
            raise NotFound("No such approval.")
        task = Task.objects.select_for_update(no_key=True).get(pk=approval.task_id)
        _check_allowed(kind, user, approval, task)
        _check_current(approval, task, state_version, scope_hash)
        approval.status = DECISIONS[decision]
        approval.decided_by, approval.decided_at, approval.comment = user, timezone.now(), comment
        approval.save(update_fields=["status", "decided_by", "decided_at", "comment"])
        fire(task.pk, decision, actor=Actor(user=user, roles=frozenset({APPROVER})), expected_version=state_version,
             reason=comment, data=data, refs=[{"approval": str(approval.pk), "scope_hash": approval.scope_hash}])
    return approval


def _lock(approval_id) -> Approval:
    approval = (Approval.objects.select_for_update(no_key=True).select_related("task").filter(pk=approval_id).first()
                if is_uuid(approval_id) else None)
    if approval is None:
        raise NotFound("No such approval.")
    return approval


def _check_allowed(kind, user, approval: Approval, task: Task):
    if task.initiator_id == user.pk:
        raise NotPermitted("Nobody decides their own request.")
    if not approval.approvers.filter(pk=user.pk).exists():
        raise NotPermitted("You are not on this approval's route.")
    if kind.may_decide is not None:
        refusal = kind.may_decide(user, approval)
        if refusal:
            raise NotPermitted(refusal)


def _check_current(approval: Approval, task: Task, state_version: int, expected_hash: str | None):
    if approval.status != Approval.Status.PENDING:
        raise Conflict(f"This approval is already {approval.status}; nothing was decided.",
                       current_version=task.version, status=approval.status)
    if approval.expires_at <= timezone.now():
        raise Conflict("This approval has expired; nothing was decided.", current_version=task.version)
    if state_version != approval.state_version or task.version != approval.state_version:
        raise StaleVersion(f"This request changed since you opened it (v{state_version} → v{task.version}).",
                           current_version=task.version)
    if expected_hash is not None and expected_hash != approval.scope_hash:
        raise Conflict("The scope you saw is not the scope of this approval; reload before deciding.",
                       current_version=task.version)


def approvals_expire(now=None) -> list:
    """Expire pending approvals past their deadline (swept from the database, not a Celery ETA).
    Returns the ids of the tasks whose approval expired."""
    now = now or timezone.now()
    expired = []
    for approval_id in Approval.objects.filter(status=Approval.Status.PENDING, expires_at__lte=now).values_list(
            "pk", flat=True):
        with transaction.atomic():
            approval = Approval.objects.select_for_update(no_key=True, skip_locked=True).filter(
                pk=approval_id, status=Approval.Status.PENDING).select_related("task").first()
            if approval is None:
                continue
            approval.status = Approval.Status.EXPIRED
            approval.save(update_fields=["status"])
            event = get_kind(approval.task.kind).approval_expired_event
            expired.append(approval.task_id)
            if not event:
                continue
            try:
                fire(approval.task_id, event, actor=Actor.runtime("expiry"), expected_version=approval.state_version,
                     reason=f"approval {approval.pk} expired at {approval.expires_at.isoformat()}")
            except DomainError:
                pass  # the task already moved on; the approval is expired all the same
    return expired

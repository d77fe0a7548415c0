"""Approvals bound to the version a person saw (DESIGN §7).

An approval authorises exactly its scope, for exactly one task version, for the people on
its frozen route. Deciding locks the task row and re-checks all of it; of several
identical clicks exactly one decides and the others get a 409.

An approval may carry a chain of steps, frozen when it opens. Each decision is recorded per
step (ApprovalDecision); approving a step that is not the last moves the task to a new
version in the same state (the kind's step event) and binds the approval to it, so a click
from a page opened before that step was done is refused like any stale click. A reject or a
return at any step ends the approval. Nobody decides twice in one chain, in person or
through someone standing in for them.
"""
import hashlib
from datetime import timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext

from . import sql
from .actors import Actor
from .errors import Conflict, DomainError, NotFound, NotPermitted, StaleVersion
from .ids import is_uuid
from .kinds import APPROVER, get_kind
from .machine import fire
from .models import Approval, ApprovalDecision, Task
from .said import say

DECISIONS = {"approve": Approval.Status.APPROVED, "reject": Approval.Status.REJECTED,
             "return": Approval.Status.RETURNED}


def scope_hash(scope: dict) -> str:
    return hashlib.sha256(sql.dumps(scope).encode()).hexdigest()


def approval_open(*, task: Task, scope: dict, approvers: list, rule: dict, ttl_seconds: int,
                  chain: list | None = None) -> Approval:
    """Open the approval for the task's current version. Call it in the transaction that
    moved the task into its waiting state, with the task as that move returned it. With a
    `chain`, `approvers` are those of its first step; each step notes `since` when it starts waiting."""
    if chain:
        chain = [dict(step) for step in chain]
        chain[0]["since"] = timezone.now().isoformat()
    approval = Approval.objects.create(task_id=task.pk, state_version=task.version, scope=scope,
                                       scope_hash=scope_hash(scope), rule=rule, chain=chain or [],
                                       expires_at=timezone.now() + timedelta(seconds=ttl_seconds))
    approval.approvers.set(_step_people(chain[0]) if chain else approvers)
    return approval


def _step_people(step: dict) -> list:
    return sorted(set(step.get("user_ids", [])) | set(step.get("offered_ids", [])))


def approval_decide(*, approval_id, user, decision: str, state_version: int, scope_hash: str | None = None,
                    comment: str = "", data: dict | None = None) -> Approval:
    """Decide under the task's row lock; `data` is merged into the task's data by the same move."""
    if decision not in DECISIONS:
        raise DomainError(said=say("unknown_decision", decision=decision))
    if decision != "approve" and not comment.strip():
        raise DomainError(said=say("comment_required", decision=decision), errors={"comment": [gettext("This field is required.")]})
    with transaction.atomic():
        approval = _lock(approval_id)
        kind = get_kind(approval.task.kind)
        if kind.may_view is not None and not kind.may_view(user, approval.task):
            raise NotFound("No such approval.")
        task = Task.objects.select_for_update(no_key=True).get(pk=approval.task_id)
        behalf = _check_allowed(kind, user, approval, task)
        _check_current(approval, task, state_version, scope_hash)
        if approval.chain:
            _check_not_twice(user, behalf, approval)
            ApprovalDecision.objects.create(approval=approval, step=approval.step, decided_by=user,
                                            on_behalf_of_id=behalf, decision=decision, comment=comment)
            if decision == "approve":
                number = approval.step + 1
                if not _advance(approval, user, behalf, comment):
                    return _step_approved(kind, approval, user, behalf, number)
        approval.status = DECISIONS[decision]
        approval.decided_by, approval.decided_at, approval.comment = user, timezone.now(), comment
        approval.on_behalf_of_id = behalf
        approval.save(update_fields=["status", "decided_by", "decided_at", "comment", "on_behalf_of", "step"])
        # A delegate's decision says for whom in the timeline; the comment itself stays on the approval.
        reason = comment if not behalf else say("decided_for", note=comment, **{"for": _username(behalf)})
        fire(task.pk, decision, actor=Actor(user=user, roles=frozenset({APPROVER})), expected_version=state_version,
             reason=reason, data=data, refs=[{"approval": str(approval.pk), "scope_hash": approval.scope_hash}])
    return approval


def _step_done(approval: Approval) -> bool:
    step = approval.chain[approval.step]
    approved = approval.decisions.filter(step=approval.step, decision="approve")
    if step.get("mode") != "all":
        return approved.exists()
    covered = {pk for d in approved for pk in (d.decided_by_id, d.on_behalf_of_id) if pk}
    return bool(covered & set(step.get("offered_ids", []))) or set(step.get("user_ids", [])) <= covered


def _advance(approval: Approval, user, behalf, comment: str) -> bool:
    """After an approving decision: move past the step if it is complete. A person the step was
    offered to (escalation) who also sits on the steps right after it approves those with the
    same one decision. True when the whole chain is approved."""
    if not _step_done(approval):
        return False
    people = {user.pk, behalf} - {None}
    offered = people & set(approval.chain[approval.step].get("offered_ids", []))
    approval.step += 1
    while offered and approval.step < len(approval.chain) and offered & set(approval.chain[approval.step]["user_ids"]):
        ApprovalDecision.objects.create(approval=approval, step=approval.step, decided_by=user,
                                        on_behalf_of_id=behalf, decision="approve", comment=comment)
        approval.step += 1
    if approval.step >= len(approval.chain):
        approval.step = len(approval.chain) - 1
        return True
    return False


def _step_approved(kind, approval: Approval, user, behalf, number: int) -> Approval:
    """A step (or one person of an "all of" step) approved, more to come: the task stays waiting at a
    new version, and the approval follows it to that version."""
    moved = fire(approval.task_id, kind.approval_step_event, actor=Actor(user=user, roles=frozenset({APPROVER})),
                 expected_version=approval.state_version,
                 reason=(say("step_approved_for", n=number, of=len(approval.chain), who=user.get_username(),
                             **{"for": _username(behalf)}) if behalf
                         else say("step_approved", n=number, of=len(approval.chain), who=user.get_username())),
                 refs=[{"approval": str(approval.pk), "step": number}])
    approval.state_version = moved.version
    if number != approval.step + 1:  # a new step waits from now
        approval.chain[approval.step]["since"] = timezone.now().isoformat()
    approval.save(update_fields=["state_version", "step", "chain"])
    approval.approvers.set(_step_people(approval.chain[approval.step]))
    return approval


def _username(user_id) -> str:
    from django.contrib.auth import get_user_model

    return get_user_model().objects.filter(pk=user_id).values_list("username", flat=True).first() or "?"


def approval_offer(*, approval_id, user_ids: list, actor: Actor, reason: str) -> Approval | None:
    """Offer the waiting step to more people (escalation): they may decide it as if on it from the
    start. The task stays waiting at a new version; None when the approval is no longer pending
    or nobody new is offered."""
    with transaction.atomic():
        approval = _lock(approval_id)
        task = Task.objects.select_for_update(no_key=True).get(pk=approval.task_id)
        if approval.status != Approval.Status.PENDING or task.version != approval.state_version or not approval.chain:
            return None
        step = approval.chain[approval.step]
        new = [pk for pk in user_ids if pk not in _step_people(step)]
        step["offered_ids"] = sorted(set(step.get("offered_ids", [])) | set(new))
        step["offered_at"] = timezone.now().isoformat()
        if not new:
            approval.save(update_fields=["chain"])
            return None
        moved = fire(task.pk, get_kind(task.kind).approval_offer_event, actor=actor, expected_version=task.version,
                     reason=reason, refs=[{"approval": str(approval.pk), "step": approval.step + 1}])
        approval.state_version = moved.version
        approval.save(update_fields=["chain", "state_version"])
        approval.approvers.set(_step_people(step))
        return approval


def _lock(approval_id) -> Approval:
    """The approval and its task under their row locks, the task's first: every move (a rewind, an
    amendment) locks the task before the approvals it supersedes, so a decision taking the same
    order never deadlocks with one."""
    if not is_uuid(approval_id):
        raise NotFound("No such approval.")
    # The task's row only (`of`), found through the approval: one statement.
    Task.objects.select_for_update(no_key=True, of=("self",)).filter(approvals__pk=approval_id).values("pk").first()
    approval = Approval.objects.select_for_update(no_key=True).select_related("task").filter(pk=approval_id).first()
    if approval is None:
        raise NotFound("No such approval.")
    return approval


def _check_allowed(kind, user, approval: Approval, task: Task):
    """None when `user` decides in person, or the id of the person they stand in for."""
    if task.initiator_id == user.pk:
        raise NotPermitted(said=say("own_request"))
    if approval.chain:
        return _check_step_allowed(kind, user, approval, task)
    if not approval.approvers.filter(pk=user.pk).exists():
        raise NotPermitted(said=say("not_on_route"))
    if kind.may_decide is not None:
        refusal = kind.may_decide(user, approval)
        if refusal:
            raise NotPermitted(said=refusal)
    return None


def _check_step_allowed(kind, user, approval: Approval, task: Task):
    if kind.step_decider is None:
        raise NotPermitted(said=say("not_on_route"))
    refusal, behalf = kind.step_decider(user, approval)
    if refusal:
        raise NotPermitted(said=refusal)
    if behalf == task.initiator_id:
        raise NotPermitted(said=say("own_request"))
    return behalf


def _check_not_twice(user, behalf, approval: Approval):
    people = {user.pk, behalf} - {None}
    if approval.decisions.filter(Q(decided_by_id__in=people) | Q(on_behalf_of_id__in=people)).exists():
        raise NotPermitted(said=say("decides_twice"))


def _check_current(approval: Approval, task: Task, state_version: int, expected_hash: str | None):
    if approval.status != Approval.Status.PENDING:
        raise Conflict(said=say("approval_decided", status=approval.status),
                       current_version=task.version, status=approval.status)
    if approval.expires_at <= timezone.now():
        raise Conflict(said=say("approval_past_deadline"), current_version=task.version)
    if state_version != approval.state_version or task.version != approval.state_version:
        raise StaleVersion(said=say("changed_since_opened", old=state_version, new=task.version),
                           current_version=task.version)
    if expected_hash is not None and expected_hash != approval.scope_hash:
        raise Conflict(said=say("scope_differs"),
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
                     reason=say("approval_expired", approval=str(approval.pk), at=approval.expires_at.isoformat()))
            except DomainError:
                pass  # the task already moved on; the approval is expired all the same
    return expired

"""Escalation: a step waiting past its escalation time (policy data) is offered to its backup,
the next step's people (`backup_role` "next") or the holders of the backup role in the
department, with notices to them and to those it waited on. Run by Celery beat
(procurement.tasks.escalate_approvals); each step escalates once, and expiry stays the last resort."""
from datetime import datetime, timedelta

from django.db.models import Q
from django.utils import timezone

from agentstate.actors import Actor
from agentstate.approvals import approval_offer
from agentstate.models import Approval
from agentstate.said import say

from procurement import workflow
from procurement.models import Membership
from procurement.models.policy import NEXT_STEP as NEXT


def approvals_escalate(now=None) -> list:
    """Offer every overdue step to its backup. Returns the ids of the approvals escalated."""
    now = now or timezone.now()
    escalated = []
    candidates = (Approval.objects.filter(status=Approval.Status.PENDING, expires_at__gt=now, task__kind=workflow.KIND)
                  .exclude(chain=[]).select_related("task"))
    for approval in candidates:
        step = approval.chain[approval.step]
        if not _overdue(step, now):
            continue
        backup = _backup(approval, step)
        hours = step["escalate_after_seconds"] / 3600
        reason = say("escalated", n=approval.step + 1, hours=f"{hours:g}", people=sorted(backup.values()))
        done = approval_offer(approval_id=approval.pk, user_ids=sorted(backup), actor=Actor.runtime("escalation"),
                              reason=reason)
        if done is not None:
            escalated.append(approval.pk)
    return escalated


def _overdue(step: dict, now) -> bool:
    seconds = step.get("escalate_after_seconds")
    if not seconds or step.get("offered_at") or not step.get("since"):
        return False
    return now - datetime.fromisoformat(step["since"]) >= timedelta(seconds=seconds)


def _backup(approval, step: dict) -> dict:
    """{user id: username} of the people the step is offered to: never the requester, nobody who
    already decided a step of this chain, nobody it already waits on."""
    role = step.get("backup_role")
    if role == NEXT:
        following = approval.chain[approval.step + 1] if approval.step + 1 < len(approval.chain) else {}
        people = dict(zip(following.get("user_ids", []), following.get("usernames", [])))
    elif role:
        rows = Membership.objects.filter(role=role, user__is_active=True).filter(
            Q(department__code=approval.task.tenant) | Q(department__isnull=True))
        people = dict(rows.values_list("user_id", "user__username"))
    else:
        people = {}
    decided = {pk for row in approval.decisions.values_list("decided_by_id", "on_behalf_of_id") for pk in row}
    waiting = set(step.get("user_ids", []))
    return {pk: name for pk, name in people.items()
            if pk != approval.task.initiator_id and pk not in decided and pk not in waiting}

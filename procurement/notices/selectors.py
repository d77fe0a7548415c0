"""Reads of a person's notices: their own only, newest first."""
from agentstate.models import Approval

from procurement.models import Notice

ASKS_FOR_A_DECISION = ("approval_new", "approval_reminder", "approval_escalated")


def notices_for(user):
    return Notice.objects.filter(recipient=user).order_by("-created_at", "-id")


def notices_unread_count(user) -> int:
    if not user.is_authenticated:
        return 0
    return Notice.objects.filter(recipient=user, read_at__isnull=True).count()


def nothing_left_to_decide(notices) -> set:
    """The notices among these that asked for a decision no approval waits for any more: the request
    was decided or ended, or a newer version's approval replaced the one they asked about. Their ids;
    the list says so beside them. One query."""
    asked = [n for n in notices if n.kind in ASKS_FOR_A_DECISION and n.task_id]
    opened = dict(Approval.objects.filter(task_id__in={n.task_id for n in asked}, status=Approval.Status.PENDING)
                  .values_list("task_id", "created_at"))
    return {n.pk for n in asked if n.task_id not in opened or n.created_at < opened[n.task_id]}

"""Reads of a person's notices: their own only, newest first."""
from agentstate.models import Approval

from ..models import Notice

ASKS_FOR_A_DECISION = ("approval_new", "approval_reminder", "approval_escalated")


def notices_for(user):
    return Notice.objects.filter(recipient=user).order_by("-created_at", "-id")


def notices_unread_count(user) -> int:
    if not user.is_authenticated:
        return 0
    return Notice.objects.filter(recipient=user, read_at__isnull=True).count()


def nothing_left_to_decide(notices) -> set:
    """The tasks of these notices that asked for a decision and have no approval waiting any more
    (decided, replaced by a new version, or ended): their notice says so on the list. One query."""
    asked = {n.task_id for n in notices if n.kind in ASKS_FOR_A_DECISION and n.task_id}
    waiting = set(Approval.objects.filter(task_id__in=asked, status=Approval.Status.PENDING)
                  .values_list("task_id", flat=True))
    return asked - waiting

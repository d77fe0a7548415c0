"""Reads for the REST API: what a caller may see, fetched in a fixed number of queries."""

from django.db.models import Prefetch, prefetch_related_objects

from agentstate.errors import NotFound
from agentstate.ids import is_uuid
from agentstate.models import Approval, Session, Task

from .. import services, workflow
from ..access import visible_tasks
from ..requests import with_request_reads

# Everything the task body shows, whatever the number of events, receipts or approvals.
TASK_DETAIL = ("initiator", "purchase_request__department", "purchase_request__lines", "receipts",
               Prefetch("approvals", queryset=Approval.objects.select_related("decided_by")), "events")


def tasks_visible_to(user):
    """The caller's purchase tasks, newest first, with what the list shows already joined."""
    tasks = with_request_reads(Task.objects.filter(kind=workflow.KIND))
    return visible_tasks(user, tasks).order_by("-created_at", "-pk")


def task_detail_for(user, task_id) -> Task:
    """The task with everything its body shows; 404 unless `user` may see it."""
    task = services.task_for(user, task_id)
    prefetch_related_objects([task], *TASK_DETAIL)
    return task


def task_detail(task_id) -> Task:
    """A fresh read after a write: the steps may already have moved the task on."""
    return Task.objects.prefetch_related(*TASK_DETAIL).get(pk=task_id)


def approvals_for(user, status: str | None = None):
    """The approvals `user` is on the route of, newest first."""
    approvals = Approval.objects.filter(approvers=user).select_related("decided_by").order_by("-created_at", "-pk")
    return approvals.filter(status=status) if status else approvals


def approval_for(user, approval_id) -> Approval:
    """An approval its approvers (and admins) may see; anyone else gets 404, so ids cannot be probed."""
    approvals = Approval.objects.select_related("decided_by")
    if not user.is_superuser:
        approvals = approvals.filter(approvers=user)
    approval = approvals.filter(pk=approval_id).first() if is_uuid(approval_id) else None
    if approval is None:
        raise NotFound("No such approval.")
    return approval


def session_for(user, session_id) -> Session:
    """A session its owner may read (unless locked when they left); admins may read any."""
    sessions = Session.objects.prefetch_related("turns")
    if not user.is_superuser:
        sessions = sessions.filter(owner=user, locked=False)
    session = sessions.filter(pk=session_id).first() if is_uuid(session_id) else None
    if session is None:
        raise NotFound("No such session.")
    return session

"""Which purchase tasks a person may see, and the task reads pages, API and chat share (DESIGN §9).

A requester sees her own tasks; a manager or director those of the departments they decide
for (a director of every department, all of them); an admin every one. Not visible: 404."""
from django.db.models import Prefetch, Q, prefetch_related_objects

from agentstate.errors import NotFound
from agentstate.ids import is_uuid
from agentstate.models import Approval, Task

from .. import workflow
from ..requests import with_request_reads
from .roles import decides_for, deciding_memberships

# Everything the task body shows, whatever the number of events, receipts or approvals.
TASK_DETAIL = ("initiator", "purchase_request__department", "purchase_request__lines", "receipts",
               Prefetch("approvals", queryset=Approval.objects.select_related("decided_by")), "events")


def may_view(user, task) -> bool:
    if not user.is_authenticated or not user.is_active:
        return False
    if user.is_superuser or task.initiator_id == user.pk:
        return True
    return decides_for(user, task.tenant) or _on_its_approvals(user, task)


def _on_its_approvals(user, task) -> bool:
    """A person the task's approval waits on (a finance step, a named person, a delegate standing in
    today) or who decided a step of it."""
    from .approvals import decided_by, routed_to

    return Approval.objects.filter(task=task).filter(Q(pk__in=routed_to(user)) | Q(pk__in=decided_by(user))).exists()


def may_travel(user, task) -> bool:
    """May `user` replay, rewind or fork the task (DESIGN §13): admins only (staff with the engine's
    change permission; asked of staff alone, so a requester's page reads no permissions for it)."""
    return user.is_active and user.is_staff and (user.is_superuser or user.has_perm(workflow.REVIEW))


def visible_tasks(user, queryset):
    """The tasks `user` may see: their own, their departments' as a decider, or all for admins."""
    if user.is_superuser:
        return queryset
    codes = deciding_memberships(user)
    if codes.filter(department__isnull=True).exists():
        return queryset
    return queryset.filter(Q(initiator=user) | Q(tenant__in=codes.values("department__code")))


def task_for(user, task_id) -> Task:
    """The task, if `user` may see it; otherwise 404, so ids cannot be probed."""
    task = Task.objects.filter(pk=task_id, kind=workflow.KIND).first() if is_uuid(task_id) else None
    if task is None or not may_view(user, task):
        raise NotFound("No such task.")
    return task


def tasks_visible_to(user):
    """The caller's purchase tasks, newest first, with what the list shows already joined."""
    tasks = with_request_reads(Task.objects.filter(kind=workflow.KIND))
    return visible_tasks(user, tasks).order_by("-created_at", "-pk")


def task_detail_for(user, task_id) -> Task:
    """The task with everything its body shows; 404 unless `user` may see it."""
    task = task_for(user, task_id)
    prefetch_related_objects([task], *TASK_DETAIL)
    return task


def task_detail(task_id) -> Task:
    """A fresh read after a write: the steps may already have moved the task on."""
    return Task.objects.prefetch_related(*TASK_DETAIL).get(pk=task_id)


def task_timeline(task: Task) -> Task:
    """The task with its events, receipts, approvals, checkpoints and request lines, prefetched."""
    return (Task.objects.filter(pk=task.pk).select_related("initiator", "purchase_request__department")
            .prefetch_related("events", "receipts", "checkpoints", "purchase_request__lines",
                              Prefetch("approvals", queryset=Approval.objects.select_related("decided_by"))).get())


def is_requester(user, task) -> bool:
    """Only the person who asked changes, cancels, answers or continues a request."""
    return task.initiator_id == user.pk


def shows_beside_chat(user, task) -> bool:
    """The task's panel beside a conversation: for its requester (and admins)."""
    return is_requester(user, task) or user.is_superuser


def own_task_for(user, task_id) -> Task:
    """A task the caller asked for herself (chat continues only those); 404 otherwise."""
    task = task_for(user, task_id)
    if not is_requester(user, task):
        raise NotFound("No such task.")
    return task

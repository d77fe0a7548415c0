"""Which purchase tasks a person may see, and the task reads pages, API and chat share (DESIGN §9).

A requester sees her own tasks (and those she was granted: a colleague's she watches); an
approver those whose approvals were routed to her (a delegate, for the delegation's dates); a
manager or director those of the departments they decide for (a director of every department,
all of them); an admin every one. Not visible: 404. Visible but only the requester's to act on:
403 with the reason."""
from django.db.models import Prefetch, Q, prefetch_related_objects

from agentstate.errors import NotFound, NotPermitted
from agentstate.ids import is_uuid
from agentstate.said import Said, say
from agentstate.models import Approval, ApprovalDecision, Receipt, Task

from procurement.infra import erp
from procurement import workflow
from procurement.models import PurchaseRequest
from procurement.purchase.progress import PROGRESS_READS
from procurement.purchase.requests import with_request_reads
from procurement.selectors.grants import approval_task_grants, task_grants
from procurement.selectors.roles import deciding_memberships
from procurement.selectors.approvals import decided_by, routed_to

# Everything the task body shows, whatever the number of events, receipts or approvals.
TASK_DETAIL = ("initiator", "purchase_request__department", "purchase_request__lines", "receipts",
               *PROGRESS_READS,
               Prefetch("approvals", queryset=Approval.objects.select_related("decided_by")), "events")


def may_view(user, task) -> bool:
    if not user.is_authenticated or not user.is_active:
        return False
    if user.is_superuser or task.initiator_id == user.pk:
        return True
    return visible_tasks(user, Task.objects.filter(pk=task.pk)).exists()


def _on_its_approvals(user):
    """Ids of the tasks whose approval waits on `user` (a finance step, a named person, a delegate
    standing in today) or had a step decided by them."""
    return Approval.objects.filter(Q(pk__in=routed_to(user)) | Q(pk__in=decided_by(user))).values("task_id")


def may_travel(user, task) -> bool:
    """May `user` replay, rewind or fork the task (DESIGN §13): admins only (staff with the engine's
    change permission; asked of staff alone, so a requester's page reads no permissions for it)."""
    return user.is_active and user.is_staff and (user.is_superuser or user.has_perm(workflow.REVIEW))


def task_to_travel(user, task_id) -> Task:
    """A task `user` may replay, rewind or fork: 404 if she may not see it, 403 with the reason if
    she may see it but is no admin. Asked before the input is read."""

    task = task_for(user, task_id)
    if not may_travel(user, task):
        raise NotPermitted(said=say("travel_admin_only"))
    return task


def visible_tasks(user, queryset):
    """The tasks `user` may see: their own, those granted to them (watched, or routed to them for
    approval), their departments' as a decider, or all for admins. One query, joined by keys."""
    if not user.is_authenticated or not user.is_active:
        return queryset.none()
    if user.is_superuser:
        return queryset
    codes = deciding_memberships(user)
    if codes.filter(department__isnull=True).exists():
        return queryset
    return queryset.filter(Q(initiator=user) | Q(pk__in=task_grants(user)) | Q(pk__in=approval_task_grants(user))
                           | Q(pk__in=_on_its_approvals(user)) | Q(tenant__in=codes.values("department__code")))


def task_for(user, task_id) -> Task:
    """The task, if `user` may see it; otherwise 404, so ids cannot be probed."""
    task = Task.objects.filter(pk=task_id, kind=workflow.KIND).first() if is_uuid(task_id) else None
    if task is None or not may_view(user, task):
        raise NotFound(said=say("no_such", thing="task"))
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
                              Prefetch("approvals", queryset=Approval.objects.select_related("decided_by")),
                              # each step's decision of a chain, with its comment (the page lists them)
                              Prefetch("approvals__decisions",
                                       queryset=ApprovalDecision.objects.select_related("decided_by",
                                                                                        "on_behalf_of"))).get())


def is_requester(user, task) -> bool:
    """Only the person who asked changes, cancels, answers or continues a request."""
    return task.initiator_id == user.pk


def shows_beside_chat(user, task) -> bool:
    """The task's panel beside a conversation: for its requester (and admins)."""
    return is_requester(user, task) or user.is_superuser


def change_refusal(user, task, *, cancel: bool = False) -> Said | None:
    """Why `user`, who sees the task, may not change (or cancel) it; "" if she may. Only the
    requester changes her request; an admin may cancel it too (offboarding does)."""
    if is_requester(user, task) or (cancel and user.is_superuser):
        return None
    return say("only_the_requester")


def share_refusal(user, task) -> Said | None:
    """Why `user`, who sees the task, may not share it with a colleague; "" if she may."""
    return None if is_requester(user, task) else say("only_the_requester_shares")


def task_to_change(user, task_id, *, cancel: bool = False) -> Task:
    """A task the caller may change (or cancel): 404 if she may not see it, 403 with the reason
    if she may see it but not do that."""
    task = task_for(user, task_id)
    refused = change_refusal(user, task, cancel=cancel)
    if refused:
        raise NotPermitted(said=refused)
    return task


def task_to_share(user, task_id) -> Task:
    """A task the caller may share (her own): 404 if she may not see it, 403 if it is not hers."""
    task = task_for(user, task_id)
    refused = share_refusal(user, task)
    if refused:
        raise NotPermitted(said=refused)
    return task


def own_tasks(user, queryset=None):
    """The purchase tasks the caller asked for herself: all the chat talks about or acts on (a
    manager chats about her own requests, never her department's)."""
    tasks = queryset if queryset is not None else Task.objects.filter(kind=workflow.KIND)
    return tasks.filter(initiator=user)


def own_task_by_ref(user, ref: str) -> str:
    """The id of the caller's own task behind a request number (REQ-2026-00042) or an ERP
    requisition or PO number; "" if none of hers has it."""
    task_id = PurchaseRequest.objects.filter(requester=user, number__iexact=ref).values_list("task_id", flat=True).first()
    if task_id is None:
        found = Receipt.objects.filter(task__in=own_tasks(user), external_id__iexact=ref,
                                       operation__in=(erp.CREATE_REQUISITION, erp.ISSUE_PURCHASE_ORDER))
        task_id = found.values_list("task_id", flat=True).first()
    return str(task_id) if task_id else ""


def own_task_for(user, task_id) -> Task:
    """A task the caller asked for herself (chat continues only those); 404 otherwise."""
    task = task_for(user, task_id)
    if not is_requester(user, task):
        raise NotFound(said=say("no_such", thing="task"))
    return task

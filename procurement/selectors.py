"""Reads for the pages: a fixed number of queries however many rows there are."""
from agentstate.errors import NotFound
from agentstate.ids import is_uuid
from agentstate.models import Approval, Task, TaskEvent


def approvals_pending_for(user):
    """Pending approvals `user` is on the route of, oldest first (the longest waiting)."""
    return (Approval.objects.filter(status=Approval.Status.PENDING, approvers=user)
            .select_related("task__initiator").order_by("created_at"))


def approval_for_decider(user, approval_id) -> Approval:
    """The approval, if `user` is (or was) on its route; 404 otherwise, so ids cannot be probed."""
    approval = (Approval.objects.filter(pk=approval_id, approvers=user).select_related("task__initiator", "decided_by")
                .first() if is_uuid(approval_id) else None)
    if approval is None:
        raise NotFound("No such approval.")
    return approval


def previous_scope(approval: Approval) -> dict | None:
    """The scope of the approval this one replaced, to show what changed."""
    earlier = (Approval.objects.filter(task_id=approval.task_id, created_at__lt=approval.created_at)
               .order_by("-created_at").values_list("scope", "state_version").first())
    return {"scope": earlier[0], "state_version": earlier[1]} if earlier else None


def scope_changes(old: dict | None, new: dict) -> list[str]:
    if old is None:
        return []
    changes = []
    for key, label in (("supplier", "supplier"), ("total", "total"), ("lines", "lines"),
                       ("erp_requisition", "ERP requisition"), ("cost_centre", "cost centre")):
        before, after = old.get(key), new.get(key)
        if before != after:
            changes.append(f"{label}: {_short(before)} → {_short(after)}")
    return changes


def changes_since(approval: Approval) -> dict:
    """For a refused stale click: what happened to the task after the version the approver saw,
    and the approval now open for it, if any."""
    return {
        "events_since": list(TaskEvent.objects.filter(task_id=approval.task_id, version__gt=approval.state_version)
                             .order_by("id")),
        "current_approval": Approval.objects.filter(task_id=approval.task_id, status=Approval.Status.PENDING).first(),
    }


def task_timeline(task: Task) -> Task:
    """The task with its events, receipts, approvals, checkpoints and request lines, prefetched."""
    return (Task.objects.filter(pk=task.pk).select_related("initiator", "purchase_request__department")
            .prefetch_related("events", "receipts", "approvals", "checkpoints", "purchase_request__lines").get())


def _short(value) -> str:
    if isinstance(value, dict):
        return value.get("name") or str(value)
    if isinstance(value, list):
        return ", ".join(f"{line.get('quantity')} × {line.get('description')}" for line in value)
    return str(value)

"""The requester's requests as State records them, for the chat: one read for one request or
for her most recent ones, in a fixed number of queries however many she has (DESIGN §2, §14).

Every answer about a request (status, PO number, the approver's comment, what to change)
is written from these views, never from what was said in the conversation."""
from django.db.models import Prefetch

from agentstate.models import Approval, Receipt, Task

from .. import erp, workflow
from .brain import TaskView

RECEIPTS, APPROVALS = 6, 3
RECENT_REQUESTS = 10      # what "the laptop one" or "my requests" can point at in one turn
DECIDED = ("approved", "rejected", "returned", "expired")


def _tasks():
    return (Task.objects.filter(kind=workflow.KIND)
            .select_related("purchase_request")
            .prefetch_related("purchase_request__lines",
                              Prefetch("receipts", queryset=Receipt.objects.order_by("created_at")),
                              Prefetch("approvals", queryset=Approval.objects.select_related("decided_by")
                                       .order_by("-created_at"))))


def view_of(task_id) -> TaskView | None:
    task = _tasks().filter(pk=task_id).first()
    return task_view(task) if task else None


def my_requests(user, *, limit: int = RECENT_REQUESTS, open_only: bool = False, exclude=None,
                drafts: bool = False) -> list[TaskView]:
    """The caller's own requests, newest first (drafts nobody submitted only if asked for)."""
    tasks = _tasks().filter(initiator=user).order_by("-created_at", "-pk")
    if not drafts:
        tasks = tasks.exclude(state=workflow.DRAFT)
    if open_only:
        tasks = tasks.exclude(state__in=workflow.TERMINAL)
    if exclude is not None:
        tasks = tasks.exclude(pk=exclude)
    return [task_view(t) for t in tasks[:limit]]


def task_view(task: Task) -> TaskView:
    draft = task.data.get("draft") or {}
    base = {"id": str(task.pk), "state": task.state, "version": task.version, "draft": draft,
            "created_at": task.created_at.isoformat() if task.created_at else ""}
    if task.state == workflow.DRAFT:  # nothing submitted, nothing outside: the draft is all there is
        return TaskView(**base, lines=draft.get("lines") or [], justification=draft.get("justification", ""),
                        budget=draft.get("budget"))
    request = getattr(task, "purchase_request", None)
    if request is not None:
        lines = [{"description": line.description, "quantity": line.quantity} for line in request.lines.all()]
        justification, budget = request.justification, request.budget
    else:
        lines, justification, budget = draft.get("lines") or [], draft.get("justification", ""), draft.get("budget")
    receipts = list(task.receipts.all())
    approvals = list(task.approvals.all())
    award = task.data.get("award") or {}
    return TaskView(
        **base, lines=lines, justification=justification or "", budget=None if budget is None else str(budget),
        question=(task.data.get("question") or "") if task.state == workflow.AWAITING_INPUT else "",
        receipts=[{"operation": r.operation, "status": r.status, "external_id": r.external_id}
                  for r in receipts[-RECEIPTS:]],
        approvals=[{"status": a.status, "state_version": a.state_version, "approvers": a.rule.get("usernames", [])}
                   for a in approvals[:APPROVALS]],
        number=_latest_id(receipts, erp.CREATE_REQUISITION), po_number=_latest_id(receipts, erp.ISSUE_PURCHASE_ORDER),
        supplier=award.get("supplier") or "", subtotal=award.get("subtotal"), total=award.get("total"),
        waiting_on=_waiting_on(task, approvals), decision=_decision(approvals))


def _latest_id(receipts, operation: str) -> str:
    confirmed = [r.external_id for r in receipts if r.operation == operation and r.status == "confirmed"
                 and r.external_id]
    return confirmed[-1] if confirmed else ""


def _waiting_on(task: Task, approvals) -> dict:
    """Who the request waits for and since when: {"who": [usernames] or "requester", "since": iso}."""
    if task.state == workflow.AWAITING_APPROVAL:
        pending = next((a for a in approvals if a.status == "pending"), None)
        if pending is not None:
            return {"who": list(pending.rule.get("usernames", [])), "since": pending.created_at.isoformat()}
    if task.state == workflow.AWAITING_INPUT:
        return {"who": "requester", "since": task.updated_at.isoformat()}
    return {}


def _decision(approvals) -> dict:
    """The newest decided approval: what was decided, by whom, when, and the comment verbatim."""
    decided = next((a for a in approvals if a.status in DECIDED), None)
    if decided is None:
        return {}
    return {"status": decided.status, "by": decided.decided_by.get_username() if decided.decided_by else "",
            "at": decided.decided_at.isoformat() if decided.decided_at else "", "comment": decided.comment,
            "state_version": decided.state_version}

"""The requester's requests as State records them, for the chat: `request_now` (the one
reading of a request as it stands now, shared with the API and the pages) plus the receipts
and the decided approval, for one request or her most recent ones, in a fixed number of
queries however many she has (DESIGN §2, §3, §14).

Every answer about a request (status, PO number, the approver's comment, what to change)
is written from these views, never from what was said in the conversation."""
from django.db import connection
from django.db.models import BooleanField, ExpressionWrapper, Prefetch, Q, prefetch_related_objects

from agentstate.models import Approval, Receipt, Task

from procurement.infra import erp
from procurement import workflow
from procurement.purchase.progress import PROGRESS_READS
from procurement.purchase.requests import AFTER_THE_ORDER, NEVER_SUBMITTED, request_now
from procurement.selectors.tasks import own_tasks
from procurement.chat.brain import TaskView

RECEIPTS, APPROVALS = 6, 3
RECENT_REQUESTS = 10      # what "the laptop one" or "my requests" can point at in one turn
DECIDED = ("approved", "rejected", "returned", "expired")


def _tasks():
    """Everything request_now and the chat's answers read, in a fixed number of queries."""
    return (Task.objects.filter(kind=workflow.KIND)
            .select_related("initiator", "purchase_request__department")
            .prefetch_related("purchase_request__lines",
                              Prefetch("receipts", queryset=Receipt.objects.order_by("created_at")),
                              Prefetch("approvals", queryset=Approval.objects.select_related("decided_by")
                                       .order_by("-created_at"))))


def with_receipts(tasks: list) -> list:
    """`tasks`, the ordered ones with their goods receipts and supplier invoices read (what
    request_now's progress reads): the same queries for all of them, none when none is ordered."""
    prefetch_related_objects([t for t in tasks if t.state in AFTER_THE_ORDER], *PROGRESS_READS)
    return tasks


def task_read(task_id) -> Task | None:
    """The task with all that task_view reads (its request, lines, receipts, approvals, deliveries)."""
    task = _tasks().filter(pk=task_id).first()
    return with_receipts([task])[0] if task else None


def view_of(task_id) -> TaskView | None:
    task = task_read(task_id)
    return task_view(task) if task else None


def own_task(user, task_id, *, progress_only: bool = False) -> Task | None:
    """One of the caller's own tasks (selectors.own_tasks), with all that task_view and its progress
    (goods receipts, supplier invoices) read, in one read; None if it is not hers. `progress_only`:
    the task with its progress alone, for a caller that has its view already."""
    tasks = Task.objects.filter(kind=workflow.KIND).prefetch_related(*PROGRESS_READS) if progress_only else _tasks()
    task = own_tasks(user, tasks).filter(pk=task_id).first()
    return task if task is None or progress_only else with_receipts([task])[0]


def my_requests(user, *, limit: int = RECENT_REQUESTS, open_only: bool = False, exclude=None,
                drafts: bool = False) -> list[TaskView]:
    """The caller's own requests, newest first (drafts nobody submitted only if asked for)."""
    return [task_view(t) for t in with_receipts(list(_mine(user, open_only=open_only, exclude=exclude,
                                                          drafts=drafts)[:limit]))]


def conversation_reads(user, task_id, *, open_limit: int) -> tuple[Task | None, list[TaskView], list[TaskView]]:
    """The conversation's task `task_id` (as task_read reads it), my_requests(user), and
    my_requests(user, limit=open_limit, open_only=True, exclude=task_id, drafts=True), from one
    read, however many requests she has: the rows of the three, each once (a request in both lists
    is the same view in both), each marked with the lists it is in."""
    lists = (_mine(user).values("pk")[:RECENT_REQUESTS],
             _mine(user, open_only=True, exclude=task_id, drafts=True).values("pk")[:open_limit])
    recent, still_open = (Q(pk__in=ids) for ids in lists)
    if connection.features.supports_slicing_ordering_in_compound:  # the ids' union: an index probe each
        rows = Q(pk__in=lists[0].union(lists[1], Task.objects.filter(pk=task_id).values("pk"), all=True))
    else:  # SQLite: no LIMIT inside a UNION
        rows = recent | still_open | Q(pk=task_id)
    tasks = with_receipts(list(_tasks().filter(rows).annotate(
        recent=ExpressionWrapper(recent, BooleanField()), still_open=ExpressionWrapper(still_open, BooleanField()))
        .order_by("-created_at", "-pk")))  # as _mine
    views = {t.pk: task_view(t) for t in tasks}
    return (next((t for t in tasks if t.pk == task_id), None),
            [views[t.pk] for t in tasks if t.recent], [views[t.pk] for t in tasks if t.still_open])


def my_requests_count(user, *, open_only: bool = False, drafts: bool = False) -> int:
    """How many my_requests() would list without its limit."""
    return _mine(user, open_only=open_only, drafts=drafts).count()


def _mine(user, *, open_only: bool = False, exclude=None, drafts: bool = False):
    tasks = own_tasks(user, _tasks()).order_by("-created_at", "-pk")
    if not drafts:
        tasks = tasks.exclude(state=workflow.DRAFT)
    tasks = tasks.exclude(NEVER_SUBMITTED)
    if open_only:
        tasks = tasks.exclude(state__in=workflow.AGENT_DONE)
    if exclude is not None:
        tasks = tasks.exclude(pk=exclude)
    return tasks


def task_view(task: Task) -> TaskView:
    """The request as it stands now (procurement.purchase.requests.request_now), as the chat's brains see it."""
    now = request_now(task)
    draft = task.data.get("draft") or {}
    receipts = list(task.receipts.all())
    approvals = sorted(task.approvals.all(), key=lambda a: a.created_at, reverse=True)
    waiting = now.waiting_on
    return TaskView(
        id=str(task.pk), state=task.state, version=task.version, draft=draft,
        lines=[{"description": line.description, "quantity": line.quantity} for line in now.lines],
        justification=now.justification or "", budget=None if now.budget is None else str(now.budget),
        question=now.question.text if now.question else "", asked=now.question.asked if now.question else None,
        receipts=[{"operation": r.operation, "status": r.status, "external_id": r.external_id,
                   "cancels": (r.request or {}).get("requisition_id", "") if r.operation == erp.CANCEL_REQUISITION
                   else ""} for r in receipts[-RECEIPTS:]],
        approvals=[{"status": a.status, "state_version": a.state_version, "approvers": a.rule.get("usernames", []),
                    "expires_at": a.expires_at.isoformat() if a.expires_at else ""} for a in approvals[:APPROVALS]],
        number=now.number or "", po_number=now.po_number or "", supplier=now.supplier or "",
        subtotal=None if now.subtotal is None else str(now.subtotal),
        total=None if now.total is None else str(now.total),
        waiting_on={"kind": waiting.kind, "people": list(waiting.people), "since": waiting.since.isoformat(),
                    "stand_ins": [list(pair) for pair in waiting.stand_ins]}
        if waiting else {},
        decision=_decision(approvals), created_at=task.created_at.isoformat() if task.created_at else "",
        progress=now.progress)


def _decision(approvals) -> dict:
    """The newest decided approval: what was decided, by whom, when, and the comment verbatim."""
    decided = next((a for a in approvals if a.status in DECIDED), None)
    if decided is None:
        return {}
    return {"status": decided.status, "by": decided.decided_by.get_username() if decided.decided_by else "",
            "at": decided.decided_at.isoformat() if decided.decided_at else "", "comment": decided.comment,
            "state_version": decided.state_version}

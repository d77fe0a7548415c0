"""The work queue (DESIGN §14): tasks in review, and who may act on them (admins and the
department's managers). Not visible: 404; visible but not theirs to act on: 403."""
from dataclasses import dataclass, field

from django.db.models import Q

from agentstate.errors import NotPermitted
from agentstate.said import say
from agentstate.models import Receipt, Task, TaskEvent

from procurement import workflow
from procurement.selectors.roles import deciding_memberships
from procurement.selectors.tasks import task_for


@dataclass
class ReviewRow:
    """A task in review: why it is there, its last error and the receipts in doubt."""
    task: Task
    why: TaskEvent | None
    last_error: str
    doubts: list
    approvers: list = field(default_factory=list)  # whom an admin may name, above every limit


def reviewers_of(user):
    """The department codes whose tasks in review `user` may act on; None means every one."""
    if user.is_superuser:
        return None
    rows = deciding_memberships(user).filter(user__is_active=True)
    if rows.filter(department__isnull=True).exists():
        return None
    return set(rows.exclude(department__isnull=True).values_list("department__code", flat=True))


def uses_review_queue(user) -> bool:
    """Is the work queue a page for `user` at all: admins, directors and managers. For anyone else
    (a requester, a watcher, a delegate without a role of their own) it does not exist: 404."""
    if not (user.is_authenticated and user.is_active):
        return False
    return user.is_superuser or deciding_memberships(user).exists()


def may_review(user, task) -> bool:
    """May `user` act on the task from the work queue: admins and the department's managers."""
    if not (user.is_authenticated and user.is_active):
        return False
    codes = reviewers_of(user)
    return codes is None or task.tenant in codes


def review_task_for(*, user, task_id) -> Task:
    """The task, if `user` may act on it from the work queue: 404 if they may not see it, 403 if
    they may see it but not act."""
    task = task_for(user, task_id)  # 404 for anyone who may not see it
    if not may_review(user, task):
        raise NotPermitted(said=say("review_not_allowed", department=task.tenant))
    return task


def review_tasks_for(user):
    """Tasks in `needs_review` that `user` may act on, longest waiting first."""
    tasks = (Task.objects.filter(kind=workflow.KIND, state=workflow.NEEDS_REVIEW)
             .select_related("initiator", "purchase_request__department").order_by("updated_at", "pk"))
    codes = reviewers_of(user)
    return tasks if codes is None else tasks.filter(tenant__in=codes)


def why_in_review(task_id, events=None) -> TaskEvent | None:
    """The event that last put a task in review (its reason says why); ask it of a task in review.
    `events`: the task's events already read, oldest first, so a page asks nothing more."""
    if events is None:
        return (TaskEvent.objects.filter(task_id=task_id, to_state=workflow.NEEDS_REVIEW)
                .exclude(from_state=workflow.NEEDS_REVIEW).order_by("-version").first())
    entered = [e for e in events if e.to_state == workflow.NEEDS_REVIEW and e.from_state != workflow.NEEDS_REVIEW]
    return entered[-1] if entered else None


def review_rows(tasks) -> list[ReviewRow]:
    """Rows for a page of review_tasks_for, in three queries however many rows."""
    tasks = list(tasks)
    ids = [t.pk for t in tasks]
    entered, errors = {}, {}
    for event in TaskEvent.objects.filter(task_id__in=ids).filter(
            Q(to_state="needs_review") & ~Q(from_state="needs_review") | Q(event="step_failed")).order_by("id"):
        (errors if event.event == "step_failed" else entered)[event.task_id] = event
    doubts = {}
    for receipt in Receipt.objects.filter(task_id__in=ids, status__in=["sent", "unknown"]).order_by("created_at"):
        doubts.setdefault(receipt.task_id, []).append(receipt)
    rows = []
    for task in tasks:
        last = [r.error for r in doubts.get(task.pk, []) if r.error]
        error = errors.get(task.pk)
        rows.append(ReviewRow(task=task, why=entered.get(task.pk), doubts=doubts.get(task.pk, []),
                              last_error=last[-1] if last else (error.reason if error else "")))
    return rows

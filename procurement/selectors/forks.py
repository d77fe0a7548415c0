"""A request and the requests forked from the same one, read together: a fork tries another way
to buy the same goods, so while two of them are alive, approving both would buy twice. Each
approval page names the others and links them; approving one asks, in the same click, whether to
cancel the others (procurement.purchase.services.approval_decide). Two purchase orders for the same goods
are never issued without that answer."""
from dataclasses import dataclass

from agentstate.models import Task
from agentstate.timetravel import forks_of

from procurement import workflow

ENDED = frozenset({workflow.REJECTED, workflow.CANCELLED, workflow.EXPIRED})
ORDERED = frozenset({workflow.SUBMITTED, workflow.CONFIRMED, workflow.CLOSED})
# Cancelled in the approver's click; one in review is cancelled from the work queue, which settles
# what is in doubt in the ERP first.
CANCELLABLE_HERE = frozenset(workflow.CANCELLABLE) - {workflow.NEEDS_REVIEW, workflow.DRAFT}
CANCEL, KEEP = "cancel", "keep"


@dataclass(frozen=True)
class Relative:
    task: Task
    ordered: bool
    cancellable: bool

    @property
    def number(self) -> str:
        request = getattr(self.task, "purchase_request", None)
        return request.number if request else ""


def live_relatives(task: Task) -> list[Relative]:
    """The other requests of the same fork family (its original, the original's other forks, its own
    forks) that were not rejected, cancelled or expired; oldest first."""
    original = ((task.data or {}).get("forked_from") or {}).get("task")
    ids = set(forks_of(task))
    if original:
        ids |= {original, *forks_of(Task(pk=original))}
    ids.discard(str(task.pk))
    if not ids:
        return []
    rows = (Task.objects.filter(pk__in=ids).exclude(state__in=ENDED).select_related("purchase_request")
            .order_by("created_at"))
    return [Relative(row, ordered=row.state in ORDERED, cancellable=row.state in CANCELLABLE_HERE) for row in rows]

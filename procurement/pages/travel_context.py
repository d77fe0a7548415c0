"""What the request page shows of checkpoints, forks and the ways back (DESIGN §13), for its viewer;
the buttons themselves post to procurement.pages.timetravel."""
from agentstate.models import Task
from agentstate.timetravel import FORKED_EVENT

from procurement import selectors, workflow
from procurement.history import timetravel
from procurement.models import PurchaseRequest, Supplier


def travel_context(user, task) -> dict:
    """What the page shows of checkpoints, forks and the ways back, for this viewer."""
    is_requester = task.initiator_id == user.pk
    can_travel = selectors.may_travel(user, task)
    context = {
        "can_travel": can_travel,
        "can_pause": (is_requester or can_travel) and task.state in workflow.PAUSABLE,
        "can_resume": (task.state == workflow.PAUSED and (is_requester or can_travel)),
        "forked_from": _linked([(task.data or {}).get("forked_from", {}) or {}]),
        "forks": _linked([{"task": e.data["fork"]} for e in task.events.all()
                          if e.event == FORKED_EVENT and e.data.get("fork")]),
    }
    if can_travel:
        rows = timetravel.task_checkpoints(user=user, task_id=task.pk)
        context |= {"checkpoint_rows": rows, "suppliers": list(Supplier.objects.values_list("name", flat=True)),
                    "picked": next((c.id for c in reversed(rows) if c.state == workflow.PROCESSING), None)}
    return context


def _linked(links: list[dict]) -> list[dict]:
    """Each linked task with its request number, for a link on the page."""
    ids = [link["task"] for link in links if link.get("task")]
    if not ids:
        return []
    numbers = dict(PurchaseRequest.objects.filter(task_id__in=ids).values_list("task_id", "number"))
    return [{"task": link["task"], "number": numbers.get(_uuid(link["task"])) or "—",
             "version": link.get("version")} for link in links if link.get("task")]


def _uuid(value):
    return Task._meta.pk.to_python(value)

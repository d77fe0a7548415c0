"""After the need-by date with nothing received, the requester is asked once whether it arrived
(DESIGN §16): a notice in her language, also posted in her conversation about the request, so her
answer there (「東西到了」) is heard as a receipt. Idempotent by its source key, whoever runs it;
the recovery pass (beat) runs it."""
from datetime import date

from django.utils import timezone

from agentstate.models import Task

from procurement import workflow
from procurement.models import NoticeSource
from procurement.notices.derive import Delivery, _handle
from procurement.notices.render import request_facts
from procurement.people.language import language_of

KIND = "arrival_check"


def _due(today: date) -> list[Task]:
    tasks = (Task.objects.filter(kind=workflow.KIND, state=workflow.CONFIRMED, goods_receipts__isnull=True)
             .select_related("initiator"))
    due = []
    for task in tasks:
        needed_by = (task.data.get("draft") or {}).get("needed_by") or ""
        try:
            if needed_by and date.fromisoformat(needed_by) < today:
                due.append(task)
        except ValueError:
            continue
    return due


def arrival_checks(today: date | None = None) -> int:
    """Ask each requester once, the day after her need-by date, whether what nothing recorded arrived."""
    today = today or timezone.localdate()
    due = _due(today)
    done = set(NoticeSource.objects.filter(key__in=[f"{KIND}:{t.pk}" for t in due]).values_list("key", flat=True))
    made = 0
    for task in due:
        key = f"{KIND}:{task.pk}"
        if key not in done:
            made += _handle(key, None, lambda t=task, k=key: _deliveries(t, k))
    return made


def _deliveries(task: Task, key: str) -> list[Delivery]:
    context = request_facts(task) | {"needed_by": task.data["draft"]["needed_by"]}
    return [Delivery(KIND, task, key, language_of(task.initiator), context["task_url"], context,
                     user=task.initiator, in_chat=True)]

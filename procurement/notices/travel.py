"""What the requester is told when an admin rewinds, forks or replays her request (DESIGN §13,
§14): who did it, their reason, and what happens next, in words (the labels), never codes."""
from django.contrib.auth import get_user_model

from agentstate.models import Checkpoint, Task, TaskEvent
from agentstate.timetravel import FORKED_EVENT, REPLAY_EVENT, why_of

from procurement.words.labels import STATE_LABELS, STATE_MEANINGS, STEP_LABELS
from procurement.models import PurchaseRequest
from procurement.notices.render import display_name, task_url

TRAVEL_KINDS = {"rewind": "rewound", FORKED_EVENT: "forked", REPLAY_EVENT: "replayed"}


def travel_context(task: Task, event: TaskEvent) -> tuple[dict, str | None]:
    """The notice's words for this event, and the link it leads to when not the request's own
    page (a fork: the new request). Labels stay lazy: the notice renders them in her language."""
    person = get_user_model().objects.filter(username=event.actor).first()
    context = {"by": display_name(person) if person is not None else event.actor, "why": why_of(event)}
    if event.event == FORKED_EVENT:
        fork_id = event.data.get("fork")
        number = PurchaseRequest.objects.filter(task_id=fork_id).values_list("number", flat=True).first()
        return context | {"fork_number": number or "", "fork_url": task_url(fork_id),
                          "stays": STATE_MEANINGS.get(event.to_state, "")}, task_url(fork_id)
    if event.event == REPLAY_EVENT:
        return context | {"stays": STATE_MEANINGS.get(event.to_state, "")}, None
    cursor = (Checkpoint.objects.filter(task_id=task.pk, version=event.version).values_list("cursor", flat=True)
              .first())
    return context | {"next_step": STEP_LABELS.get(cursor) or STATE_LABELS.get(event.to_state, "")}, None

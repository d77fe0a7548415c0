"""What changed since a person looked: the words of a 409, from the events after the version she saw."""
from django.utils.translation import gettext as _

from agentstate.models import Task, TaskEvent
from procurement.words import event_reason
from procurement.words.labels import state_label


def what_changed(task: Task, seen_version: int) -> str:
    """For a 409: where the task is now and what moved it since the version the person saw."""
    events = TaskEvent.objects.filter(task_id=task.pk, version__gt=seen_version).order_by("id")
    moves = "; ".join(_("%(actor)s: %(from)s → %(to)s (%(reason)s)") % {
        "actor": e.actor, "from": state_label(e.from_state), "to": state_label(e.to_state), "reason": event_reason(e) or e.reason}
        for e in events[:5])
    now = _("This request changed since you looked: it is now “%(state)s”, version %(version)d.") % {
        "state": state_label(task.state), "version": task.version}
    return f"{now} {moves}".strip()

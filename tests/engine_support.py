"""A task put straight into a state for a test, with the first event the database's change
guard (DESIGN §15) requires of every new (task, version)."""
from django.db import transaction

from agentstate.machine import checkpoint_payload
from agentstate.models import Checkpoint, Task, TaskEvent


def task_in_state(*, state: str, initiator, **fields) -> Task:
    with transaction.atomic():
        task = Task.objects.create(state=state, initiator=initiator, **fields)
        TaskEvent.objects.create(task=task, actor=initiator.get_username(), event="create", from_state="",
                                 to_state=state, version=task.version)
        Checkpoint.objects.create(task=task, version=task.version,
                                  **checkpoint_payload(task, label="create", pending=[], refs=[]))
    return task

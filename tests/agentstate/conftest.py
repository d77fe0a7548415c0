import pytest

from agentstate.machine import checkpoint_payload, task_create

from .sample_kind import SAMPLE  # noqa: F401  (registers the kind)


@pytest.fixture
def make_task(alice):
    def make(state="draft", **data):
        task = task_create(kind="sample", initiator=alice, tenant="T1", data=data)
        if state != "draft":
            # Straight into `state` at version 1, its first event saying so: the database's
            # change guard (DESIGN §15) refuses a state change without a version and an event.
            from django.db import transaction

            from agentstate.models import Checkpoint, Task, TaskEvent
            with transaction.atomic():
                Task.objects.filter(pk=task.pk).delete()
                task = Task.objects.create(pk=task.pk, kind="sample", initiator=alice, tenant="T1", state=state,
                                           data=data, schema_version=task.schema_version)
                TaskEvent.objects.create(task=task, actor=alice.username, event="create", from_state="",
                                         to_state=state, version=1)
                Checkpoint.objects.create(task=task, version=1, **checkpoint_payload(task, label="create", pending=[],
                                                                                     refs=[]))
            task.refresh_from_db()
        return task
    return make

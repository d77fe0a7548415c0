import pytest

from agentstate.machine import task_create

from .sample_kind import SAMPLE  # noqa: F401  (registers the kind)


@pytest.fixture
def make_task(alice):
    def make(state="draft", **data):
        task = task_create(kind="sample", initiator=alice, tenant="T1", data=data)
        if state != "draft":
            from agentstate.models import Task
            Task.objects.filter(pk=task.pk).update(state=state)
            task.refresh_from_db()
        return task
    return make

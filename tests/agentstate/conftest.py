import pytest

from agentstate.machine import task_create
from tests.engine_support import task_in_state

from tests.agentstate.sample_kind import SAMPLE  # noqa: F401  (registers the kind)


@pytest.fixture
def make_task(alice):
    def make(state="draft", **data):
        if state == "draft":
            return task_create(kind="sample", initiator=alice, tenant="T1", data=data)
        # Straight into `state`, with the first event the database's change guard requires.
        return task_in_state(kind="sample", initiator=alice, tenant="T1", state=state, data=data, schema_version=1)
    return make

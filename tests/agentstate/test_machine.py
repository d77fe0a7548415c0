import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from agentstate.actors import Actor
from agentstate.errors import GuardRefused, IllegalTransition, NotPermitted, StaleVersion
from agentstate.machine import checkpoint_is_intact, fire
from agentstate.models import Checkpoint, Task, TaskEvent

from tests.agentstate.sample_kind import SAMPLE, actor_for

PAIRS = [(state, event) for state in SAMPLE.states for event in SAMPLE.events]


def _written(task):
    return (Task.objects.get(pk=task.pk).version, TaskEvent.objects.filter(task=task).count(),
            Checkpoint.objects.filter(task=task).count())


@pytest.mark.django_db
@pytest.mark.parametrize("state,event", PAIRS, ids=[f"{s}-{e}" for s, e in PAIRS])
def test_every_state_event_pair_is_allowed_or_refused_by_the_table(state, event, make_task, bob):
    task = make_task(state, result="ok")
    before = _written(task)
    try:
        transition = SAMPLE.transition(state, event)
    except IllegalTransition:
        with pytest.raises(IllegalTransition, match=f"not allowed in state '{state}'"):
            fire(task.pk, event, actor=Actor.runtime())
        assert _written(task) == before
        return
    moved = fire(task.pk, event, actor=actor_for(event, task, approver=bob), expected_version=task.version)
    row = Task.objects.get(pk=task.pk)
    assert (row.state, row.version) == (transition.target, task.version + 1) == (moved.state, moved.version)
    last = TaskEvent.objects.filter(task=task).last()
    assert (last.event, last.from_state, last.to_state, last.version) == (event, state, transition.target, row.version)
    assert _written(task)[1:] == (before[1] + 1, before[2] + (1 if transition.checkpoint else 0))


@pytest.mark.django_db
def test_unknown_event_names_the_known_ones_and_writes_nothing(make_task):
    task = make_task("queued")
    with pytest.raises(IllegalTransition, match="Unknown event 'explode'.*known events: answer, approve"):
        fire(task.pk, "explode", actor=Actor.runtime())
    assert _written(task) == (1, 1, 1)


@pytest.mark.django_db
def test_stale_version_names_both_versions_and_writes_nothing(make_task):
    task = make_task("queued")
    with pytest.raises(StaleVersion, match="Expected version 7, found 1") as refused:
        fire(task.pk, "start", actor=Actor.runtime(), expected_version=7)
    assert refused.value.extra["current_version"] == 1
    assert _written(task) == (1, 1, 1)


@pytest.mark.django_db
def test_a_person_cannot_fire_a_runtime_event(make_task, alice):
    task = make_task("queued")
    with pytest.raises(NotPermitted, match="alice may not fire 'start'.*allowed: runtime"):
        fire(task.pk, "start", actor=alice)
    assert _written(task) == (1, 1, 1)


@pytest.mark.django_db
def test_only_the_initiator_may_submit(make_task, erin):
    task = make_task()
    with pytest.raises(NotPermitted):
        fire(task.pk, "submit", actor=erin)
    with pytest.raises(NotPermitted):
        fire(task.pk, "submit", actor=Actor.runtime())
    assert _written(task) == (1, 1, 1)


@pytest.mark.django_db
def test_guard_refusal_explains_itself_and_writes_nothing(make_task):
    task = make_task("working")
    with pytest.raises(GuardRefused, match="no result to finish with"):
        fire(task.pk, "finish", actor=Actor.runtime())
    assert _written(task) == (1, 1, 1)


@pytest.mark.django_db
def test_data_is_merged_and_checkpoint_holds_a_verifiable_snapshot(make_task):
    task = make_task("queued", a=1)
    fire(task.pk, "start", actor=Actor.runtime(), data={"b": 2}, step="compare_quotes",
         pending=[{"op": "x"}], refs=[{"erp": "REQ-1"}])
    row = Task.objects.get(pk=task.pk)
    assert row.data == {"a": 1, "b": 2} and row.step == "compare_quotes"
    checkpoint = Checkpoint.objects.filter(task=task).last()
    assert checkpoint.snapshot["state"] == "working" and checkpoint.snapshot["version"] == 2
    assert checkpoint.cursor == "compare_quotes" and checkpoint.external_refs == [{"erp": "REQ-1"}]
    assert checkpoint.parent_id == Checkpoint.objects.filter(task=task).first().pk
    assert checkpoint_is_intact(checkpoint)
    checkpoint.snapshot["state"] = "done"
    assert not checkpoint_is_intact(checkpoint)


@pytest.mark.django_db
@pytest.mark.postgres
def test_a_transition_is_two_queries_on_postgres(make_task, django_assert_num_queries):
    task = make_task("queued")
    # One read for the table, caller and guard checks; one statement for row, event, checkpoint.
    with django_assert_num_queries(2):
        fire(task.pk, "start", actor=Actor.runtime(), expected_version=1)
    assert _written(task) == (2, 2, 2)


@pytest.mark.django_db
def test_a_transition_query_count_does_not_grow_with_history(make_task, django_assert_max_num_queries):
    def queries_of_one_round(task):
        with CaptureQueriesContext(connection) as captured:
            fire(task.pk, "ask", actor=Actor.runtime())
            fire(task.pk, "answer", actor=task.initiator)
        return len(captured)

    task = make_task("working", result="x")
    first = queries_of_one_round(task)
    for _ in range(5):
        queries_of_one_round(task)
    assert queries_of_one_round(task) == first
    # PostgreSQL: read, move, and the guard's read of the JSON; the ORM's path elsewhere (SQLite): 9.
    with django_assert_max_num_queries(3 if connection.vendor == "postgresql" else 9):
        fire(task.pk, "finish", actor=Actor.runtime())


@pytest.mark.django_db
def test_what_the_caller_keeps_with_a_step_goes_on_its_event_row_and_nowhere_else(make_task):
    task = make_task("queued")
    moved = fire(task.pk, "start", actor=Actor.runtime(), event_data={"why": "asked twice by phone"})
    event = TaskEvent.objects.get(task_id=task.pk, version=moved.version)
    assert event.data == {"why": "asked twice by phone"}
    assert "why" not in Task.objects.get(pk=task.pk).data
    # Without it the event's data stays empty, as before.
    again = fire(task.pk, "finish", actor=Actor.runtime(), data={"result": "ok"})
    assert TaskEvent.objects.get(task_id=task.pk, version=again.version).data == {}

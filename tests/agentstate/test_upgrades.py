"""Schema upgrades (DESIGN §4, §13): a kind registers one upgrade per version; tasks and
checkpoints of older versions are read in the current shape, oldest upgrade first, and data of a
newer version than the code knows is refused with nothing changed."""
import secrets

import pytest

from agentstate.actors import Actor
from agentstate.errors import SchemaTooNew
from agentstate.kinds import RUNTIME, TaskKind, Transition, register
from agentstate.machine import checkpoint_latest, checkpoint_load, fire
from agentstate.models import Checkpoint, Task, TaskEvent
from agentstate.upgrades import UPGRADED_EVENT, task_upgrade
from tests.engine_support import task_in_state

APPLIED = []


def _split_name(data):  # 1 → 2: "name" becomes "first" and "last"
    APPLIED.append(1)
    first, _, last = data.pop("name", "").partition(" ")
    return {**data, "first": first, "last": last}


def _price_as_string(data):  # 2 → 3: the price keeps its cents as a string
    APPLIED.append(2)
    return {**data, "price": f"{data['price']:.2f}"} if "price" in data else data


KIND = register(TaskKind(name="schema_test", initial="a", schema_version=3,
                         upgrades={1: _split_name, 2: _price_as_string}, transitions=[
                             Transition("a", "go", "b", (RUNTIME,)), Transition("b", "go", "a", (RUNTIME,))]))


@pytest.fixture(autouse=True)
def _clean():
    APPLIED.clear()


def _old_task(alice, *, schema_version=1, **data) -> Task:
    return task_in_state(kind="schema_test", initiator=alice, tenant="T1", state="a", schema_version=schema_version,
                         data=data)


def _go(task, **kwargs):
    return fire(task.pk, "go", actor=Actor.runtime(), **kwargs)


@pytest.mark.django_db
def test_a_task_of_schema_one_is_upgraded_oldest_first_before_its_next_move(alice):
    task = _old_task(alice, name="Ada Lovelace", price=12)
    moved = _go(task, expected_version=1, data={"n": 1})
    assert APPLIED == [1, 2]
    row = Task.objects.get(pk=task.pk)
    assert row.data == {"first": "Ada", "last": "Lovelace", "price": "12.00", "n": 1} == moved.data
    assert (row.schema_version, row.version, row.state) == (3, 2, "b")
    upgraded = TaskEvent.objects.get(task=task, event=UPGRADED_EVENT)
    assert upgraded.version == 1 and {k: upgraded.data[k] for k in ("from", "to")} == {"from": 1, "to": 3}
    # The checkpoint the move wrote is of the new shape; the old one stays as it was written.
    assert Checkpoint.objects.get(task=task, version=2).schema_version == 3
    assert Checkpoint.objects.get(task=task, version=1).content["snapshot"]["data"]["name"] == "Ada Lovelace"


@pytest.mark.django_db
def test_an_old_checkpoint_loads_in_the_current_shape_and_keeps_its_checksum(alice):
    task = _old_task(alice, name="Ada Lovelace", price=12)
    _go(task, expected_version=1)
    loaded = checkpoint_load(task, tenant="T1", version=1)
    assert loaded.snapshot["data"] == {"first": "Ada", "last": "Lovelace", "price": "12.00"}
    assert loaded.schema_version == 3
    stored = Checkpoint.objects.get(task=task, version=1)
    assert stored.schema_version == 1 and '"name": "Ada Lovelace"' in stored.body


@pytest.mark.django_db
def test_a_delta_chain_that_spans_an_upgrade_merges_each_delta_onto_its_own_shape(alice):
    big = {"lines": [secrets.token_hex(64) for _ in range(100)], "name": "Ada Lovelace", "price": 1}
    task = _old_task(alice, **big)
    # A move written by the old code: the delta of schema 1 sets the price as a number.
    Task.objects.filter(pk=task.pk).update(schema_version=1)
    KIND.schema_version, saved = 1, KIND.schema_version
    try:
        task = _go(task, expected_version=1, data={"price": 5})
    finally:
        KIND.schema_version = saved
    task = _go(Task.objects.get(pk=task.pk), expected_version=2, data={"n": 1})
    assert [(c.depth, c.schema_version) for c in Checkpoint.objects.filter(task=task).order_by("version")] == [
        (0, 1), (1, 1), (2, 3)]
    latest = checkpoint_latest(task, tenant="T1")
    assert latest.snapshot["data"] == {"lines": big["lines"], "first": "Ada", "last": "Lovelace", "price": "5.00",
                                       "n": 1} == Task.objects.get(pk=task.pk).data


@pytest.mark.django_db
def test_data_of_a_newer_schema_is_refused_and_nothing_changes(alice):
    task = _old_task(alice, schema_version=4, whatever=1)
    events = TaskEvent.objects.filter(task=task).count()
    with pytest.raises(SchemaTooNew, match="schema version 4; this code knows versions up to 3") as refused:
        _go(task, expected_version=1)
    assert refused.value.code == "schema_too_new"
    with pytest.raises(SchemaTooNew):
        task_upgrade(task)
    with pytest.raises(SchemaTooNew):
        checkpoint_latest(task, tenant="T1")
    row = Task.objects.get(pk=task.pk)
    assert (row.version, row.state, row.data, row.schema_version) == (1, "a", {"whatever": 1}, 4)
    assert TaskEvent.objects.filter(task=task).count() == events and APPLIED == []


def test_a_kind_without_an_upgrade_for_every_older_version_is_refused_at_registration():
    with pytest.raises(ValueError, match=r"no upgrade from schema version\(s\) \[2\]"):
        TaskKind(name="schema_gap", initial="a", transitions=[], schema_version=3, upgrades={1: _split_name})

"""Checkpoints as fire() writes them and checkpoint_latest() reads them back: whole snapshots,
delta chains and pruning; the remembered-task fast path; supersede and durability as table data."""
import io
import secrets

import pytest
from django.core.management import call_command
from django.db import connection

from agentstate import machine, sql
from agentstate.actors import Actor
from agentstate.approvals import approval_open
from agentstate.errors import CheckpointTampered, LeaseLost, StaleVersion
from agentstate.kinds import RUNTIME, TaskKind, Transition, register
from agentstate.leases import lease_claim
from agentstate.machine import (checkpoint_is_intact, checkpoint_latest, checkpoint_load, checkpoints_prune, fire,
                                task_create)
from agentstate.models import Approval, Checkpoint, MergedData, Task, TaskEvent

KIND = register(TaskKind(name="cp_test", initial="a", transitions=[
    Transition("a", "go", "b", (RUNTIME,)),
    Transition("b", "go", "a", (RUNTIME,)),
    Transition("a", "note", "a", (RUNTIME,), supersedes_approvals=False),
    Transition("b", "quick", "a", (RUNTIME,), durable=False),
]))
RUNTIME_ACTOR = Actor.runtime("test")


def big_state() -> dict:
    # Random text does not compress, so the stored JSON stays above sql.DELTA_ABOVE.
    return {"lines": [secrets.token_hex(64) for _ in range(100)], "n": 0}


def _move(task_id, version, **kwargs):
    return fire(task_id, "go", actor=RUNTIME_ACTOR, expected_version=version, **kwargs)


def _stored(task_id):
    return list(Checkpoint.objects.filter(task_id=task_id).order_by("version"))


@pytest.mark.django_db
def test_checkpoint_latest_returns_exactly_what_fire_wrote_as_a_whole_snapshot(alice, django_assert_num_queries):
    task = task_create(kind="cp_test", initiator=alice, tenant="T1", data={"a": 1}, step="first")
    moved = _move(task.pk, 1, data={"b": [1, "two"]}, step="second", pending=[{"op": "erp"}], refs=[{"po": "PO-1"}])
    with django_assert_num_queries(1):
        latest = checkpoint_latest(task, tenant="T1")
    row = Task.objects.get(pk=task.pk)
    assert latest.snapshot == {"state": "b", "version": 2, "step": "second", "data": {"a": 1, "b": [1, "two"]}}
    assert (latest.version, latest.cursor, latest.pending, latest.external_refs) == (2, "second", [{"op": "erp"}],
                                                                                     [{"po": "PO-1"}])
    assert latest.snapshot["data"] == row.data == moved.data and latest.depth == 0 and latest.tenant == "T1"
    assert checkpoint_is_intact(latest) and checkpoint_is_intact(_stored(task.pk)[-1])


@pytest.mark.django_db
def test_a_large_state_is_stored_once_and_checkpoint_latest_merges_the_deltas(alice):
    state = big_state()
    task = task_create(kind="cp_test", initiator=alice, tenant="T1", data=state)
    version = 1
    for n in range(1, 4):
        version = _move(task.pk, version, data={"n": n}, refs=[{"step": n}]).version
    stored = _stored(task.pk)
    assert [c.depth for c in stored] == [0, 1, 2, 3]
    # A delta holds the key that moved, not the state.
    assert stored[-1].content["snapshot"]["delta"] == {"n": 3} and state["lines"][0] not in stored[-1].body
    latest = checkpoint_latest(task, tenant="T1")
    assert latest.snapshot["data"] == Task.objects.get(pk=task.pk).data == {**state, "n": 3}
    assert (latest.version, latest.depth, latest.external_refs) == (4, 3, [{"step": 3}])
    assert checkpoint_is_intact(latest) and all(checkpoint_is_intact(c) for c in stored)
    # Any version loads whole, and the ORM row of a delta shows the whole state too.
    assert machine.checkpoint_load(task, tenant="T1", version=2).snapshot["data"] == {**state, "n": 1} == stored[1].snapshot["data"]


@pytest.mark.django_db
def test_a_large_state_that_compresses_well_is_still_stored_once(alice):
    # 10 KB of similar request lines: PostgreSQL stores it in a few hundred bytes, but a move must
    # still write only the key it set, not the 10 KB again.
    line = {"description": "Laptop 14-inch, 32 GB", "quantity": 2, "unit_price": "35000.00", "amount": "70000.00",
            "supplier": "S-01", "note": "for the new hires in the platform team"}
    state = {"lines": [dict(line, index=i) for i in range(60)], "n": 0}
    assert len(sql.dumps(state)) > 4 * sql.DELTA_ABOVE
    task = task_create(kind="cp_test", initiator=alice, tenant="T1", data=state)
    if connection.vendor == "postgresql":
        assert Task.objects.filter(pk=task.pk).extra(select={"size": "pg_column_size(data)"}).values_list(
            "size", flat=True).get() < sql.DELTA_ABOVE
    version = 1
    for n in range(1, 3):
        version = _move(task.pk, version, data={"n": n}).version
    stored = _stored(task.pk)
    assert [c.depth for c in stored] == [0, 1, 2] and "Laptop" not in stored[-1].body
    assert checkpoint_latest(task, tenant="T1").snapshot["data"] == {**state, "n": 2} == Task.objects.get(pk=task.pk).data


@pytest.mark.django_db
def test_a_tampered_link_of_a_delta_chain_fails_the_check(alice):
    task = task_create(kind="cp_test", initiator=alice, tenant="T1", data=big_state())
    _move(task.pk, 1, data={"n": 1})
    _move(task.pk, 2, data={"n": 2})
    link = _stored(task.pk)[1]
    Checkpoint.objects.filter(pk=link.pk).update(body=link.body.replace('"n": 1', '"n": 7'))
    assert not checkpoint_is_intact(Checkpoint.objects.get(pk=link.pk))
    with pytest.raises(CheckpointTampered):  # and loading refuses it (tests/agentstate/test_checkpoint_load.py)
        checkpoint_latest(task, tenant="T1")


@pytest.mark.django_db
def test_after_pruning_the_delta_chain_still_loads_the_whole_state(alice, monkeypatch):
    monkeypatch.setattr(machine, "FULL_EVERY", 4)
    state = big_state()
    task = task_create(kind="cp_test", initiator=alice, tenant="T1", data=state)
    version = 1
    for n in range(1, 11):
        version = _move(task.pk, version, data={"n": n}).version
    assert [c.depth for c in _stored(task.pk)] == [0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2]
    assert checkpoints_prune(task.pk) == 8
    assert [(c.version, c.depth) for c in _stored(task.pk)] == [(9, 0), (10, 1), (11, 2)]
    latest = checkpoint_latest(task, tenant="T1")
    assert latest.snapshot["data"] == {**state, "n": 10} and checkpoint_is_intact(latest)
    # Events are never pruned.
    assert TaskEvent.objects.filter(task_id=task.pk).count() == 11


@pytest.mark.django_db
def test_a_step_that_replaces_a_large_state_writes_it_whole_and_reads_back_exactly_that(alice, django_assert_num_queries):
    # A new quote sheet or a rewritten request: every key of a large state set at once. The move
    # writes a full checkpoint (not a delta as large as the state), and the next small step a delta on it.
    state = big_state()
    task = task_create(kind="cp_test", initiator=alice, tenant="T1", data=state)
    version = _move(task.pk, 1, data={"n": 1}).version
    rewritten = {"lines": [secrets.token_hex(64) for _ in range(100)], "n": 2, "sheet": "Q-2"}
    assert len(sql.dumps(rewritten)) >= sql.FULL_FROM_CHANGES
    version = _move(task.pk, version, data=rewritten).version
    with django_assert_num_queries(1):
        latest = checkpoint_latest(task, tenant="T1")
    assert latest.snapshot["data"] == rewritten and latest.version == 3 and latest.depth == 0
    assert [c.depth for c in _stored(task.pk)] == [0, 1, 0]
    version = _move(task.pk, version, data={"n": 3}).version
    latest = checkpoint_latest(task, tenant="T1")
    assert latest.snapshot["data"] == {**rewritten, "n": 3} and latest.depth == 1 and checkpoint_is_intact(latest)
    # Pruned back to the rewrite, the state still reads back whole, from the checkpoint and the task.
    assert checkpoints_prune(task.pk) == 2
    assert [(c.version, c.depth) for c in _stored(task.pk)] == [(3, 0), (4, 1)]
    assert checkpoint_latest(task, tenant="T1").snapshot["data"] == {**rewritten, "n": 3}
    assert Task.objects.get(pk=task.pk).data == {**rewritten, "n": 3}
    assert TaskEvent.objects.filter(task_id=task.pk).count() == 4


@pytest.mark.django_db
@pytest.mark.parametrize("kept", [False, True], ids=["every key set", "one key kept"])
def test_a_large_rewrite_reads_back_what_was_written_whether_or_not_it_set_every_key(alice, kept):
    # A step that sets every key of the state is its own full snapshot (on PostgreSQL its body is the
    # move's own text, spliced); one that leaves a key as it was gets that key in its snapshot too.
    # Either way the checkpoint, the task and a verified read agree, to the last value.
    state = {**big_state(), **({"kept": {"note": "agentstate:spliced-state", "at": "2026-12-04"}} if kept else {})}
    task = task_create(kind="cp_test", initiator=alice, tenant="T1", data=state)
    version = _move(task.pk, 1, data={"n": 1}).version
    rewritten = {"lines": [{"i": i, "text": secrets.token_hex(40), "price": "1.50", "qty": 2.5, "big": 2 ** 62}
                           for i in range(100)], "n": 2, "名稱": "螢幕"}
    version = _move(task.pk, version, data=rewritten, step="agentstate:spliced-state").version
    expected = {**({"kept": state["kept"]} if kept else {}), **rewritten}
    latest = checkpoint_latest(task, tenant="T1")
    assert latest.depth == 0 and latest.snapshot["data"] == expected and latest.snapshot["version"] == version
    assert latest.cursor == latest.snapshot["step"] == "agentstate:spliced-state"
    assert checkpoint_is_intact(latest) and checkpoint_is_intact(_stored(task.pk)[-1])
    assert Task.objects.get(pk=task.pk).data == expected
    assert checkpoint_load(task, tenant="T1", version=version).snapshot["data"] == expected


@pytest.mark.django_db
@pytest.mark.postgres
def test_a_move_of_a_large_state_rewrites_the_key_it_set_and_a_full_checkpoint_folds_it_back(alice, monkeypatch):
    monkeypatch.setattr(machine, "FULL_EVERY", 4)
    state = big_state()
    task = task_create(kind="cp_test", initiator=alice, tenant="T1", data=state)
    version = 1
    for n in range(1, 4):
        version = _move(task.pk, version, data={"n": n, f"k{n}": n}).version
    stored = Task.objects.filter(pk=task.pk)
    # The large JSON is left as it was stored; the keys the moves set wait in the overlay.
    assert stored.values_list("data", "data_overlay").get() == (state, {"n": 3, "k1": 1, "k2": 2, "k3": 3})
    whole = {**state, "n": 3, "k1": 1, "k2": 2, "k3": 3}
    # Every way of reading the task sees the whole JSON.
    assert Task.objects.get(pk=task.pk).data == whole == stored.values_list(MergedData(), flat=True).get()
    deferred = Task.objects.defer("data", "data_overlay").get(pk=task.pk)
    assert deferred.data == whole
    assert checkpoint_latest(task, tenant="T1").snapshot["data"] == whole
    # The fourth checkpoint is full: the overlay is folded into `data` by the same statement.
    version = _move(task.pk, version, data={"n": 4}).version
    assert stored.values_list("data", "data_overlay").get() == ({**whole, "n": 4}, {})
    assert _stored(task.pk)[-1].depth == 0 and checkpoint_latest(task, tenant="T1").snapshot["data"] == {**whole, "n": 4}


@pytest.mark.django_db
@pytest.mark.postgres
def test_saving_a_loaded_task_writes_its_json_whole_and_clears_the_overlay(alice):
    state = big_state()
    task = task_create(kind="cp_test", initiator=alice, tenant="T1", data=state)
    _move(task.pk, 1, data={"n": 1})
    loaded = Task.objects.get(pk=task.pk)
    loaded.data["note"] = "by hand"
    loaded.save(update_fields=["data"])
    assert Task.objects.filter(pk=task.pk).values_list("data", "data_overlay").get() == (
        {**state, "n": 1, "note": "by hand"}, {})


@pytest.mark.django_db
def test_a_move_after_a_checkpointless_one_writes_a_whole_snapshot(alice, make_task):
    task = make_task("working", **big_state())
    fire(task.pk, "ask", actor=Actor.runtime(), data={"n": 1})  # the sample kind's ask has no checkpoint
    fire(task.pk, "answer", actor=task.initiator)
    assert _stored(task.pk)[-1].depth == 0
    assert checkpoint_latest(task, tenant="T1").snapshot["data"]["n"] == 1


@pytest.mark.django_db
@pytest.mark.postgres
def test_a_remembered_task_moves_in_one_statement_and_keeps_every_guarantee(
        alice, django_capture_on_commit_callbacks, django_assert_num_queries):
    task = task_create(kind="cp_test", initiator=alice, tenant="T1", data={"n": 0})
    with django_capture_on_commit_callbacks(execute=True):
        moved = _move(task.pk, 1, data={"n": 1})
    with django_capture_on_commit_callbacks(execute=True), django_assert_num_queries(1):
        moved = _move(task.pk, moved.version, data={"n": 2})
    assert moved.data == {"n": 2} and (moved.state, moved.version) == ("a", 3)
    # Another process moves the task: what this one remembers no longer holds, and nothing is written.
    # (With its event: the database's change guard refuses a version without one, DESIGN §15.)
    Task.objects.filter(pk=task.pk).update(version=4, state="b")
    TaskEvent.objects.create(task_id=task.pk, actor="another process", event="elsewhere", from_state="a",
                             to_state="b", version=4)
    with pytest.raises(StaleVersion):
        _move(task.pk, 3, data={"n": 99})
    assert TaskEvent.objects.filter(task_id=task.pk).count() == 4
    moved = _move(task.pk, 4, data={"n": 4})  # decided on a fresh read
    assert (moved.state, moved.version) == ("a", 5)
    # A lease taken meanwhile fences the remembered token off.
    with django_capture_on_commit_callbacks(execute=True):
        lease = lease_claim(task_id=task.pk, worker="w1", seconds=60)
        moved = fire(task.pk, "go", actor=RUNTIME_ACTOR, expected_version=5, lease_token=lease.token)
    Task.objects.filter(pk=task.pk).update(lease_until=None)  # the lease runs out; another worker claims
    assert lease_claim(task_id=task.pk, worker="w2", seconds=60).token == lease.token + 1
    with pytest.raises(LeaseLost):
        fire(task.pk, "go", actor=RUNTIME_ACTOR, expected_version=6, lease_token=lease.token)
    assert Task.objects.get(pk=task.pk).version == 6


@pytest.mark.django_db
@pytest.mark.postgres
def test_a_task_the_caller_read_with_its_checkpoint_moves_in_one_statement_and_keeps_every_guarantee(
        alice, django_assert_num_queries):
    task = task_create(kind="cp_test", initiator=alice, tenant="T1", data=big_state())
    _move(task.pk, 1, data={"n": 1})  # a large state: the next moves write deltas
    seen = machine.with_checkpoint(Task.objects).get(pk=task.pk)
    with django_assert_num_queries(1):
        moved = _move(task.pk, seen.version, data={"n": 2}, seen=seen)
    # Its JSON comes back merged as the database merged it, and the chain of deltas goes on.
    assert moved.data == Task.objects.get(pk=task.pk).data and moved.data["n"] == 2
    assert [c.depth for c in _stored(task.pk)] == [0, 1, 2]
    assert checkpoint_latest(task, tenant="T1").snapshot["data"] == moved.data
    # A copy read before another move is refused, and nothing is written.
    stale = machine.with_checkpoint(Task.objects).get(pk=task.pk)
    _move(task.pk, stale.version, data={"n": 3})
    with pytest.raises(StaleVersion):
        _move(task.pk, stale.version, data={"n": 99}, seen=stale)
    assert Task.objects.get(pk=task.pk).data["n"] == 3 and TaskEvent.objects.filter(task_id=task.pk).count() == 4


@pytest.mark.django_db
def test_supersede_is_a_flag_of_the_transition(alice, bob):
    task = task_create(kind="cp_test", initiator=alice, tenant="T1")
    approval = approval_open(task=task, scope={"total": "1"}, approvers=[bob], rule={}, ttl_seconds=60)
    fire(task.pk, "note", actor=RUNTIME_ACTOR, expected_version=1)
    assert Approval.objects.get(pk=approval.pk).status == Approval.Status.PENDING
    fire(task.pk, "go", actor=RUNTIME_ACTOR, expected_version=2)
    assert Approval.objects.get(pk=approval.pk).status == Approval.Status.SUPERSEDED
    # The table says so where people read it.
    out = io.StringIO()
    call_command("show_transitions", "cp_test", stdout=out)
    rows = {tuple(line.split()[:3]): line.split()[-1] for line in out.getvalue().splitlines()[2:] if line.strip()
            and not line.startswith(("```", "stateDiagram", " "))}
    assert "supersedes pending approvals" in out.getvalue()
    assert rows[("a", "note", "a")] == "no" and rows[("a", "go", "b")] == "yes"


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgres
def test_a_move_declared_not_durable_relaxes_only_its_own_commit(alice):
    task = task_create(kind="cp_test", initiator=alice, tenant="T1")
    fire(task.pk, "go", actor=RUNTIME_ACTOR, expected_version=1)
    fire(task.pk, "quick", actor=RUNTIME_ACTOR, expected_version=2)
    with connection.cursor() as cursor:
        cursor.execute("SHOW synchronous_commit")
        assert cursor.fetchone()[0] == "on"
    assert (Task.objects.get(pk=task.pk).version, checkpoint_latest(task, tenant="T1").version) == (3, 3)
    assert sql.PG_MOVES[True, True, False].count("set_config('synchronous_commit', 'off', true)") == 1
    assert "synchronous_commit" not in sql.PG_MOVES[True, True, True]


@pytest.mark.django_db
@pytest.mark.postgres
def test_the_move_and_the_checkpoint_read_are_planned_once_per_connection_not_per_call(alice):
    # Django opens connections with psycopg's preparation off; the engine's statements must still
    # be prepared, or every move pays PostgreSQL's planning of the whole statement again.
    task = task_create(kind="cp_test", initiator=alice, tenant="T1", data={"n": 0})
    version = 1
    for n in range(8):
        version = _move(task.pk, version, data={"n": n}).version
        assert checkpoint_latest(task, tenant="T1").snapshot["data"]["n"] == n
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements")
        plans = {("move" if "WITH moved" in statement else "chain" if "BETWEEN" in statement else statement):
                 (generic, custom) for statement, generic, custom in cursor.fetchall()}
    executions = {name: sum(counts) for name, counts in plans.items()}
    assert executions.get("move") == 8 and executions.get("chain") == 8
    # One generic plan from the first run: neither statement is planned again on a later call
    # (left to choose, PostgreSQL kept planning the chain read on every call in the bench).
    assert plans["move"] == (8, 0) and plans["chain"] == (8, 0)
    # Django's own queries are not touched: they still bind on the client and are never prepared.
    assert len(executions) <= 3

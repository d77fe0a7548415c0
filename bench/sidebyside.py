"""agentstate against LangGraph's PostgreSQL checkpointer and a DBOS step, side by side in one run, and pgbench.

    .venv/bin/python bench/sidebyside.py [--iterations 300] [--json out.json]

One process, one PostgreSQL server, one database (`procurement_bench`, created if missing).
For each state size (1, 10, 100 KB) the two sides alternate call by call, so both see the same
noise from the rest of the machine:

- agentstate: `fire()` of a runtime event with its checkpoint (the transition, its event and
  its checkpoint in one statement, conditional on the version), then `checkpoint_latest()`;
- LangGraph: `PostgresSaver.put()` of a checkpoint then `get_tuple()` of the latest one, on
  the connection LangGraph's own `from_conn_string` makes (autocommit, no prepared statements);
- DBOS (flush mode only): one `@DBOS.step` inside a running `@DBOS.workflow`, the step returning
  the new state, which DBOS checkpoints (its output row in `dbos.operation_outputs`, committed
  before the workflow goes on) in the same PostgreSQL database. The workflow runs in DBOS's own
  thread and takes each step from a queue; the time is taken inside the workflow around the step
  call, so the hand-over between threads is not counted against DBOS.

Two shapes of step, each measured the same way: "one key" changes one small top-level key of a
large state (below); "whole state" replaces the whole state, as when a new quote sheet or a
rewritten request arrives (every line is new: LangGraph then writes every channel's blob,
agentstate gets every key in `data`; DBOS returns the whole output in both shapes).

Each step changes one small top-level key of a state holding the rest of the size, as an agent
step usually does: LangGraph gets `new_versions` naming only that channel (so it rewrites no
blob), agentstate gets `data={"n": i}` merged into the task. Then `pgbench -N` (simple update)
runs 10 s at 1 and 4 clients on the same server, so transitions per second can be read as a
share of what the server does with a plain write transaction.

Last, the floor of the design (design_floor): a row shaped and indexed like the task row, written
once conditionally and read back, with nothing else, against LangGraph the same way: what is
left for the engine's guarantees before the 1.2x target is missed.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "procurement.settings")
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/procurement_bench")
import django  # noqa: E402

from bench.pgadmin import ensure_database, pct  # noqa: E402

django.setup()
from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402

from agentstate.actors import Actor  # noqa: E402
from agentstate.kinds import RUNTIME, TaskKind, Transition, register  # noqa: E402
from agentstate.machine import checkpoint_is_intact, checkpoint_latest, fire, task_create  # noqa: E402
from agentstate.models import Task  # noqa: E402

KIND, TENANT = "bench_sbs", "BENCH"
SIZES_KB = (1, 10, 100)
SHAPES = ("one key", "whole state")
FLOOR_SIZES_KB = (1, 10)
# Two modes, each side by side with LangGraph on the same setting: "flush" (both commit as the
# server says: synchronous_commit=on), and "no-wait" (agentstate's runtime moves declared
# durable=False; LangGraph's connection with synchronous_commit=off).
MODES = {"flush": (KIND, ""), "no-wait": (KIND + "_nowait", "options=-c%20synchronous_commit%3Doff")}
for durable, kind_name in ((True, KIND), (False, KIND + "_nowait")):
    register(TaskKind(name=kind_name, initial="ping", transitions=[
        Transition("ping", "pong", "pong", (RUNTIME,), durable=durable),
        Transition("pong", "ping", "ping", (RUNTIME,), durable=durable)]))
NEXT_EVENT = {"ping": "pong", "pong": "ping"}
ACTOR = Actor.runtime("bench")


def state_of(kb: int) -> dict:
    """A purchase-like state of about `kb` KB of JSON: request lines plus a few scalars."""
    line = {"description": "Laptop 14-inch, 32 GB", "quantity": 2, "unit_price": "35000.00", "amount": "70000.00",
            "supplier": "S-01", "note": "for the new hires in the platform team"}
    per_line = len(json.dumps(line)) + 2
    state = {"department": "ENG", "currency": "TWD", "total": "110250.00", "n": 0}
    state["lines"] = [dict(line, index=i) for i in range(max(1, (kb * 1024 - 120) // (per_line + 12)))]
    return state


def replaced(state: dict, i: int) -> dict:
    """The whole state rewritten for step `i`: every line new, the same size."""
    return dict(state, n=i, lines=[dict(line, note=f"rewritten by step {i:08d}") for line in state["lines"]])


def step_data(state: dict, i: int, shape: str) -> dict:
    """What a step sets: one small key, or the whole state."""
    return {"n": i} if shape == "one key" else replaced(state, i)


# This process's CPU time inside each timed call (process_time: the client's Python, its drivers and
# serialisation; the rest of the wall time is the server's work and the waits for it), per side.
CLIENT_CPU = {"agentstate": [], "langgraph": []}


def measure_agentstate(task_id, version, i, data=None):
    data = {"n": i} if data is None else data
    started, cpu = time.perf_counter(), time.process_time()
    task = fire(task_id, NEXT_EVENT["ping" if version % 2 else "pong"], actor=ACTOR, expected_version=version,
                data=data)
    checkpoint = checkpoint_latest(task, tenant=task.tenant)
    elapsed = time.perf_counter() - started
    CLIENT_CPU["agentstate"].append(time.process_time() - cpu)
    got = checkpoint.snapshot["data"]
    assert checkpoint.version == task.version and got["n"] == i
    assert "lines" not in data or got["lines"][-1] == data["lines"][-1]
    return elapsed, task.version


def _forget_bench_workflows(url: str):
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        if conn.execute("SELECT to_regclass('dbos.workflow_status') IS NOT NULL").fetchone()[0]:
            conn.execute("DELETE FROM dbos.workflow_status WHERE name LIKE '%%bench_loop%%'")


class DBOSSide:
    """A DBOS workflow that runs one `@DBOS.step` per request, in DBOS's own thread: the step gets the
    state and returns the new one, which DBOS records as the step's output before the workflow goes
    on (flush mode: the server's synchronous_commit). The elapsed time is taken inside the workflow,
    around the step call."""

    def __init__(self, url: str):
        import queue
        import threading

        from dbos import DBOS

        self.DBOS, self.inbox, self.outbox = DBOS, queue.Queue(), queue.Queue()
        self.lock = threading.Lock()
        DBOS(config={"name": "agentstate-bench", "system_database_url": url, "log_level": "WARNING",
                     "run_admin_server": False, "sys_db_pool_size": 4})
        inbox, outbox = self.inbox, self.outbox

        @DBOS.step()
        def bench_step(state: dict, i: int, whole: bool) -> dict:
            return state if whole else dict(state, n=i)  # whole: the new state was built before the step

        @DBOS.workflow()
        def bench_loop(label: str) -> int:
            steps = 0
            while (request := inbox.get()) is not None:
                state, i, whole = request
                started = time.perf_counter()
                out = bench_step(state, i, whole)
                elapsed = time.perf_counter() - started
                steps += 1
                outbox.put((elapsed, out))
            return steps

        self.loop = bench_loop
        _forget_bench_workflows(url)  # a run stopped midway left its loop pending: launch would recover it
        DBOS.launch()
        self.handle = None

    def start(self):
        self.stop()
        self.handle = self.DBOS.start_workflow(self.loop, f"bench-{uuid.uuid4()}")

    def measure(self, state: dict, i: int, shape: str) -> float:
        self.inbox.put((state, i, shape == "whole state"))
        elapsed, out = self.outbox.get(timeout=60)
        assert out["n"] == i and len(out["lines"]) == len(state["lines"])
        assert shape == "one key" or out["lines"][-1]["note"].endswith(f"{i:08d}")
        return elapsed

    def stop(self):
        if self.handle is not None:
            self.inbox.put(None)
            self.handle.get_result()
            self.handle = None

    def close(self):
        self.stop()
        self.DBOS.destroy()


def langgraph_saver(url: str):
    from langgraph.checkpoint.postgres import PostgresSaver

    return PostgresSaver.from_conn_string(url)


def measure_langgraph(saver, thread_id, state, i, parent, whole=False):
    """`whole`: `state` is the step's new state, every channel new (each written again)."""
    from langgraph.checkpoint.base import empty_checkpoint

    checkpoint = empty_checkpoint()
    values = dict(state, n=i)
    checkpoint["channel_values"] = values
    checkpoint["channel_versions"] = {k: ("1" if k != "n" and not whole else str(i + 2)) for k in values}
    config = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}
    if parent:
        config["configurable"]["checkpoint_id"] = parent
    new_versions = checkpoint["channel_versions"] if i == 0 or whole else {"n": str(i + 2)}
    started, cpu = time.perf_counter(), time.process_time()
    saved = saver.put(config, checkpoint, {"source": "loop", "step": i}, new_versions)
    got = saver.get_tuple({"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}})
    elapsed = time.perf_counter() - started
    CLIENT_CPU["langgraph"].append(time.process_time() - cpu)
    assert got.checkpoint["channel_values"]["n"] == i and len(got.checkpoint["channel_values"]) == len(values)
    return elapsed, saved["configurable"]["checkpoint_id"]


def summary(seconds: list[float]) -> dict:
    return {"p50_ms": round(pct(seconds, 50) * 1000, 3), "p95_ms": round(pct(seconds, 95) * 1000, 3),
            "mean_ms": round(sum(seconds) / len(seconds) * 1000, 3), "n": len(seconds)}


def warm_up(user, saver, moves: int = 300, dbos=None):
    """Fill both sides' tables a little and ANALYZE them, as autovacuum does on a live server.
    On a new database the statistics say the tables are empty, and a statement prepared then keeps
    a plan that scans them (agentstate prepares its statements; LangGraph plans each call), so an
    unanalysed run would measure the planner's first guess rather than either store."""
    task = task_create(kind=KIND, initiator=user, tenant=TENANT, data=state_of(10))
    thread_id, parent, version = f"bench-{uuid.uuid4()}", None, task.version
    for i in range(moves):
        _elapsed, version = measure_agentstate(task.pk, version, i)
        _elapsed, parent = measure_langgraph(saver, thread_id, state_of(10), i, parent)
    tables = ["agentstate_task", "agentstate_taskevent", "agentstate_checkpoint", "agentstate_approval",
              "checkpoints", "checkpoint_blobs", "checkpoint_writes"]
    if dbos is not None:
        dbos.start()
        for i in range(moves):
            dbos.measure(state_of(10), i, "one key")
        dbos.stop()
        tables += ["dbos.workflow_status", "dbos.operation_outputs"]
    with connection.cursor() as cursor:
        for table in tables:
            cursor.execute(f"ANALYZE {table}")


def rotate(sides: list, i: int) -> list:
    """The sides in a different order on each call: each goes first, second and last as often."""
    k = i % len(sides)
    return sides[k:] + sides[:k]


def side_by_side(user, saver, iterations: int, mode: str, dbos=None, shapes=SHAPES) -> list[dict]:
    rows = []
    for shape in shapes:
        for kb in SIZES_KB:
            rows.append(one_size(user, saver, iterations, mode, dbos, shape, kb))
    return rows


def one_size(user, saver, iterations, mode, dbos, shape, kb) -> dict:
    state = state_of(kb)
    task = task_create(kind=MODES[mode][0], initiator=user, tenant=TENANT, data=state)
    thread_id, parent, version = f"bench-{uuid.uuid4()}", None, task.version
    whole = shape == "whole state"
    times = {"agentstate": [], "langgraph": [], "dbos": []}
    if dbos is not None:
        dbos.start()

    def ours(i):
        nonlocal version
        elapsed, version = measure_agentstate(task.pk, version, i, step_data(state, i, shape))
        return elapsed

    def theirs(i):
        nonlocal parent
        elapsed, parent = measure_langgraph(saver, thread_id, replaced(state, i) if whole else state, i, parent, whole)
        return elapsed

    def dbos_step(i):
        return dbos.measure(replaced(state, i) if whole else state, i, shape)

    sides = [("agentstate", ours), ("langgraph", theirs)] + ([("dbos", dbos_step)] if dbos is not None else [])
    for i in range(iterations + 10):  # the first 10 of each warm up and are not counted
        if i == 10:
            for spent in CLIENT_CPU.values():
                spent.clear()
        for name, call in rotate(sides, i):
            elapsed = call(i)
            if i >= 10:
                times[name].append(elapsed)
    client_cpu = {name: round(pct(spent, 50) * 1000, 3) for name, spent in CLIENT_CPU.items()}
    assert checkpoint_is_intact(checkpoint_latest(task, tenant=task.tenant))
    # Then each side alone, one block after the other: what each costs without the other's
    # calls in between (the alternating figures above remain the comparison).
    alone = {}
    for name, call in sides:
        alone[name] = summary([call(iterations + 10 + i) for i in range(iterations)])
    row = {"mode": mode, "shape": shape, "size_kb": kb, "state_bytes": len(json.dumps(state)),
           **{name: summary(times[name]) for name, _ in sides}, "alone": alone, "client_cpu_p50_ms": client_cpu}
    for name, _ in sides[1:]:
        suffix = "" if name == "langgraph" else "_" + name
        row["ratio_p50" + suffix] = round(row[name]["p50_ms"] / row["agentstate"]["p50_ms"], 2)
        row["ratio_p95" + suffix] = round(row[name]["p95_ms"] / row["agentstate"]["p95_ms"], 2)
        alone["ratio_p50" + suffix] = round(alone[name]["p50_ms"] / alone["agentstate"]["p50_ms"], 2)
    line = (f"{mode:>7} {shape:>11} {kb:>4} KB  agentstate p50 {row['agentstate']['p50_ms']:6.2f} ms p95 "
            f"{row['agentstate']['p95_ms']:6.2f}  |  langgraph p50 {row['langgraph']['p50_ms']:6.2f} p95 "
            f"{row['langgraph']['p95_ms']:6.2f} ratio {row['ratio_p50']:.2f}x/{row['ratio_p95']:.2f}x")
    if dbos is not None:
        line += (f"  |  dbos p50 {row['dbos']['p50_ms']:6.2f} p95 {row['dbos']['p95_ms']:6.2f} ratio "
                 f"{row['ratio_p50_dbos']:.2f}x/{row['ratio_p95_dbos']:.2f}x")
    line += "  |  alone " + ", ".join(f"{name} {alone[name]['p50_ms']:.2f}" for name, _ in sides)
    line += "  |  client CPU p50 " + ", ".join(f"{name} {ms:.2f}" for name, ms in client_cpu.items())
    print(line, flush=True)
    return row


def fire_only(user, iterations: int) -> dict:
    """fire() alone at 1 KB, the figure compared with pgbench."""
    task = task_create(kind=KIND, initiator=user, tenant=TENANT, data=state_of(1))
    version, seconds = task.version, []
    for i in range(iterations):
        started = time.perf_counter()
        version = fire(task.pk, NEXT_EVENT["ping" if version % 2 else "pong"], actor=ACTOR, expected_version=version,
                       data={"n": i}).version
        seconds.append(time.perf_counter() - started)
    return summary(seconds)


def floor(url: str, iterations: int) -> dict:
    """What no store can beat on this server: one round trip (`SELECT 1`), and one durable write of a
    single small row committed on its own (an UPDATE, autocommit, waiting for the WAL flush like both
    sides in flush mode), each p50 on a plain psycopg connection. A step that writes and then reads
    back costs at least their sum."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS bench_floor (id int PRIMARY KEY, n bigint NOT NULL)")
        conn.execute("INSERT INTO bench_floor VALUES (1, 0) ON CONFLICT (id) DO NOTHING")
        figures = {}
        for name, statement in (("round_trip", "SELECT 1"), ("durable_write", "UPDATE bench_floor SET n = n + 1 WHERE id = 1")):
            seconds = []
            for i in range(iterations + 10):
                started = time.perf_counter()
                conn.execute(statement, prepare=True)
                if i >= 10:
                    seconds.append(time.perf_counter() - started)
            figures[name] = summary(seconds)
        conn.execute("DROP TABLE bench_floor")
    return figures


def design_floor(url: str, user, saver, iterations: int) -> list[dict]:
    """The least any store can do that keeps DESIGN §4's task row as the one source of truth, against
    LangGraph, alternating as above (flush mode). Per step: one UPDATE of a row shaped and indexed like
    agentstate_task, conditional on its version (new state, version + 1, the step's key merged into the
    overlay), committed alone, then one SELECT of its state, parsed as the engine parses it; prepared
    statements on a plain psycopg connection. Nothing else: no event, no checkpoint, no commit-time
    guard, no foreign keys, no engine code. What agentstate costs above this is what those guarantees
    cost; where this floor is itself under 1.2x LangGraph, no store keeping the task row reaches it.
    At 1 and 10 KB only: at 100 KB the read dominates, and this one (the row's jsonb turned back into
    text by the server, about 1 ms per 100 KB) is slower than the engine's own read of a checkpoint's
    stored text, so it would be no floor there."""
    import psycopg

    from agentstate.sql import loads

    rows = []
    with psycopg.connect(url, autocommit=True, prepare_threshold=0) as conn:
        conn.execute("DROP TABLE IF EXISTS bench_floor_task")
        # LIKE copies the columns, storage, compression, checks and indexes; never triggers or foreign keys.
        conn.execute("CREATE TABLE bench_floor_task (LIKE agentstate_task INCLUDING ALL)")
        try:
            for kb in FLOOR_SIZES_KB:
                state = state_of(kb)
                task = task_create(kind=KIND, initiator=user, tenant=TENANT, data=state)
                conn.execute("INSERT INTO bench_floor_task SELECT * FROM agentstate_task WHERE id = %s", [task.pk])
                conn.execute("ANALYZE bench_floor_task")
                thread_id, parent, version, current = f"bench-{uuid.uuid4()}", None, task.version, task.state
                ours, theirs = [], []
                for i in range(iterations + 10):
                    started = time.perf_counter()
                    moved = conn.execute(
                        "UPDATE bench_floor_task SET state = %s, version = version + 1, updated_at = now(), "
                        "data_overlay = data_overlay || %s::jsonb WHERE id = %s AND version = %s",
                        [NEXT_EVENT[current], json.dumps({"n": i}), task.pk, version]).rowcount
                    stored, overlay = conn.execute("SELECT data::text, data_overlay::text FROM bench_floor_task "
                                                   "WHERE id = %s", [task.pk]).fetchone()
                    read = {**loads(stored), **loads(overlay)}
                    elapsed = time.perf_counter() - started
                    assert moved == 1 and read["n"] == i and len(read) == len(state)
                    version, current = version + 1, NEXT_EVENT[current]
                    if i >= 10:
                        ours.append(elapsed)
                    elapsed, parent = measure_langgraph(saver, thread_id, state, i, parent)
                    if i >= 10:
                        theirs.append(elapsed)
                row = {"size_kb": kb, "floor": summary(ours), "langgraph": summary(theirs)}
                row["ratio_p50"] = round(row["langgraph"]["p50_ms"] / row["floor"]["p50_ms"], 2)
                rows.append(row)
                print(f"  floor {kb:>4} KB  one task-row write + one read p50 {row['floor']['p50_ms']:6.2f} ms  |  "
                      f"langgraph p50 {row['langgraph']['p50_ms']:6.2f} ms  |  ratio p50 {row['ratio_p50']:.2f}x",
                      flush=True)
        finally:
            conn.execute("DROP TABLE IF EXISTS bench_floor_task")
    return rows


_TWO_ROW_TABLES = """
DROP TABLE IF EXISTS bench_floor2_event, bench_floor2_task;
CREATE TABLE bench_floor2_task (
    id uuid PRIMARY KEY, tenant varchar(50) NOT NULL, state varchar(40) NOT NULL, version int NOT NULL,
    step varchar(60) NOT NULL, lease_token bigint NOT NULL DEFAULT 0, updated_at timestamptz NOT NULL
) WITH (fillfactor = 70);
CREATE TABLE bench_floor2_event (
    id bigserial PRIMARY KEY, task_id uuid NOT NULL, version int NOT NULL, at timestamptz NOT NULL,
    actor varchar(120) NOT NULL, event varchar(50) NOT NULL, from_state varchar(40) NOT NULL,
    to_state varchar(40) NOT NULL, reason text NOT NULL, trace_id varchar(32) NOT NULL, data jsonb NOT NULL,
    depth int NOT NULL, body text COMPRESSION lz4, checksum varchar(64) NOT NULL
);
CREATE UNIQUE INDEX bench_floor2_event_task_version ON bench_floor2_event (task_id, version DESC);
"""
_TWO_ROW_MOVE = """
WITH moved AS (
    UPDATE bench_floor2_task SET state = %(to)s, version = version + 1, step = %(to)s, updated_at = now()
     WHERE id = %(id)s AND version = %(version)s AND state = %(from)s AND lease_token = 0
    RETURNING id, version
)
INSERT INTO bench_floor2_event (task_id, version, at, actor, event, from_state, to_state, reason, trace_id, data,
                                depth, body, checksum)
SELECT id, version, now(), 'runtime:bench', %(to)s, %(from)s, %(to)s, '', '', '{}'::jsonb, %(depth)s, %(body)s,
       %(checksum)s FROM moved
RETURNING version"""
_TWO_ROW_READ = """
SELECT depth, body, checksum FROM bench_floor2_event
 WHERE task_id = %(id)s
   AND version BETWEEN (SELECT version - depth FROM bench_floor2_event WHERE task_id = %(id)s ORDER BY version DESC LIMIT 1)
                   AND (SELECT version FROM bench_floor2_event WHERE task_id = %(id)s ORDER BY version DESC LIMIT 1)
 ORDER BY version"""


def two_row_floor(url: str, saver, dbos, iterations: int, shapes=SHAPES) -> list[dict]:
    """The floor of DESIGN §4's storage after the decision, against LangGraph and DBOS, alternating
    (flush mode): the state stored once, the checkpoint riding on its event's row. Per step, one
    statement: a conditional UPDATE of a task row holding only hot fields (state, version, cursor,
    lease, timestamps; only its primary key indexed, so the update is HOT) and the INSERT of the
    event carrying the checkpoint (a delta of the keys the step set, or the whole state when the
    step replaced it or every 32nd move; lz4, its sha256 sent with it); then the newest checkpoint
    with its delta chain in one indexed query, every link hashed and parsed (orjson), merged.
    Nothing else: no engine code, no change guard, no foreign keys, no approval probe. Above this is
    what the engine's code and its other guarantees cost; below 1.2x here, no engine on this storage
    reaches the target."""
    import hashlib

    import orjson
    import psycopg

    rows = []
    with psycopg.connect(url, autocommit=True, prepare_threshold=0) as conn:
        for statement in filter(str.strip, _TWO_ROW_TABLES.split(";")):
            conn.execute(statement, prepare=False)
        try:
            for shape in shapes:
                for kb in SIZES_KB:
                    rows.append(_two_row_size(conn, saver, dbos, iterations, shape, kb, hashlib, orjson))
        finally:
            conn.execute("DROP TABLE IF EXISTS bench_floor2_event, bench_floor2_task")
    return rows


def _two_row_size(conn, saver, dbos, iterations, shape, kb, hashlib, orjson) -> dict:
    state, whole = state_of(kb), shape == "whole state"
    task_id = uuid.uuid4()
    conn.execute("INSERT INTO bench_floor2_task VALUES (%s, %s, 'ping', 1, 'ping', 0, now())", [task_id, TENANT])
    body = orjson.dumps({"snapshot": {"state": "ping", "version": 1, "data": state}}).decode()
    conn.execute("INSERT INTO bench_floor2_event (task_id, version, at, actor, event, from_state, to_state, reason, "
                 "trace_id, data, depth, body, checksum) VALUES (%s, 1, now(), 'bench', 'create', '', 'ping', '', '', "
                 "'{}', 0, %s, %s)", [task_id, body, hashlib.sha256(body.encode()).hexdigest()])
    conn.execute("ANALYZE bench_floor2_task", prepare=False)
    conn.execute("ANALYZE bench_floor2_event", prepare=False)
    version, current, depth, held = 1, "ping", 0, dict(state)
    thread_id, parent = f"bench-{uuid.uuid4()}", None
    times = {"floor": [], "langgraph": [], "dbos": []}
    if dbos is not None:
        dbos.start()

    def floor_step(i):
        nonlocal version, current, depth, held
        changes = step_data(state, i, shape)
        new_state = {**held, **changes}
        started = time.perf_counter()
        full = whole or depth + 1 >= FULL_EVERY_FLOOR
        snapshot = {"state": NEXT_EVENT[current], "version": version + 1}
        snapshot["data" if full else "delta"] = new_state if full else changes
        text = orjson.dumps({"snapshot": snapshot, "cursor": NEXT_EVENT[current], "pending": [], "external_refs": [],
                             "tenant": TENANT, "schema_version": 1}).decode()
        moved = conn.execute(_TWO_ROW_MOVE, {"to": NEXT_EVENT[current], "from": current, "id": task_id,
                                             "version": version, "depth": 0 if full else depth + 1, "body": text,
                                             "checksum": hashlib.sha256(text.encode()).hexdigest()}).fetchone()
        links = conn.execute(_TWO_ROW_READ, {"id": task_id}).fetchall()
        assert [d for d, _b, _c in links] == list(range(len(links)))
        assert all(hashlib.sha256(b.encode()).hexdigest() == c for _d, b, c in links)
        contents = [orjson.loads(b) for _d, b, _c in links]
        read = dict(contents[0]["snapshot"]["data"])
        for content in contents[1:]:
            read.update(content["snapshot"]["delta"])
        elapsed = time.perf_counter() - started
        assert moved is not None and read["n"] == i and len(read) == len(state)
        version, current, depth, held = version + 1, NEXT_EVENT[current], 0 if full else depth + 1, read
        return elapsed

    def theirs(i):
        nonlocal parent
        elapsed, parent = measure_langgraph(saver, thread_id, replaced(state, i) if whole else state, i, parent, whole)
        return elapsed

    sides = [("floor", floor_step), ("langgraph", theirs)]
    if dbos is not None:
        sides.append(("dbos", lambda i: dbos.measure(replaced(state, i) if whole else state, i, shape)))
    for i in range(iterations + 10):
        for name, call in rotate(sides, i):
            elapsed = call(i)
            if i >= 10:
                times[name].append(elapsed)
    row = {"shape": shape, "size_kb": kb, **{name: summary(times[name]) for name, _ in sides}}
    for name, _ in sides[1:]:
        row["ratio_p50" + ("" if name == "langgraph" else "_" + name)] = round(
            row[name]["p50_ms"] / row["floor"]["p50_ms"], 2)
    print(f"  two-row floor {shape:>11} {kb:>4} KB  p50 {row['floor']['p50_ms']:6.2f} p95 {row['floor']['p95_ms']:6.2f}"
          f"  |  langgraph p50 {row['langgraph']['p50_ms']:6.2f} ratio {row['ratio_p50']:.2f}x"
          + (f"  |  dbos p50 {row['dbos']['p50_ms']:6.2f} ratio {row['ratio_p50_dbos']:.2f}x" if dbos else ""),
          flush=True)
    return row


FULL_EVERY_FLOOR = 32


def pgbench(clients: int, seconds: int) -> dict:
    params = connection.get_connection_params()
    env = dict(os.environ, PGPASSWORD=str(params.get("password") or ""))
    base = ["pgbench", "-h", str(params.get("host") or "127.0.0.1"), "-p", str(params.get("port") or 5432),
            "-U", str(params.get("user") or "postgres")]
    database = params["dbname"] + "_pgbench"
    with psycopg_admin() as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{database}"')
    try:
        subprocess.run([*base, "-i", "-q", "-s", "1", database], env=env, check=True, capture_output=True)
        out = subprocess.run([*base, "-N", "-c", str(clients), "-j", str(clients), "-T", str(seconds), database],
                             env=env, check=True, capture_output=True, text=True).stdout
    finally:
        with psycopg_admin() as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
    tps = float(re.search(r"tps = ([\d.]+)", out).group(1))
    latency = re.search(r"latency average = ([\d.]+) ms", out)
    return {"clients": clients, "tps": round(tps, 1), "latency_ms": float(latency.group(1)) if latency else None}


def psycopg_admin():
    import psycopg

    params = {k: v for k, v in connection.get_connection_params().items()
              if k in ("host", "port", "user", "password") and v}
    return psycopg.connect(**params, dbname="postgres", autocommit=True)


def transitions_per_second(user, clients: int, seconds: float) -> float:
    """fire() from `clients` processes, each moving its own task, for `seconds`: moves per second."""
    tasks = [task_create(kind=KIND, initiator=user, tenant=TENANT, data=state_of(1)).pk for _ in range(clients)]
    script = Path(__file__).resolve().parent / "sidebyside.py"
    procs = [subprocess.Popen([sys.executable, str(script), "--spin", str(pk), str(seconds)], stdout=subprocess.PIPE,
                              text=True, env=dict(os.environ, DATABASE_URL=os.environ["DATABASE_URL"]))
             for pk in tasks]
    moves = sum(int(p.communicate()[0].strip().splitlines()[-1]) for p in procs)
    return moves / seconds


def spin(task_id, seconds: float):
    """Child of transitions_per_second: fire on one task for `seconds` after a short warm-up."""
    version = Task.objects.get(pk=task_id).version
    for i in range(20):
        version = fire(task_id, NEXT_EVENT["ping" if version % 2 else "pong"], actor=ACTOR, expected_version=version,
                       data={"n": i}).version
    moves, deadline = 0, time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        version = fire(task_id, NEXT_EVENT["ping" if version % 2 else "pong"], actor=ACTOR, expected_version=version,
                       data={"n": moves}).version
        moves += 1
    print(moves)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iterations", type=int, default=300)
    parser.add_argument("--seconds", type=int, default=10, help="length of each pgbench and throughput run")
    parser.add_argument("--json")
    parser.add_argument("--skip-pgbench", action="store_true")
    parser.add_argument("--skip-dbos", action="store_true")
    parser.add_argument("--two-row-floor", action="store_true",
                        help="also the floor of the two-row storage (DESIGN §4 after the decision)")
    parser.add_argument("--no-sizes", action="store_true", help="skip the engine's side-by-side table")
    parser.add_argument("--flush-only", action="store_true", help="only the flush mode (the target's)")
    parser.add_argument("--sizes-only", action="store_true", help="only the side-by-side table, no floors or pgbench")
    parser.add_argument("--spin", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.spin:
        return spin(args.spin[0], float(args.spin[1]))
    if connection.vendor != "postgresql":
        sys.exit("bench/sidebyside.py measures PostgreSQL; set DATABASE_URL=postgres://...")
    ensure_database()
    call_command("migrate", verbosity=0)
    Task.objects.filter(kind__in=[k for k, _ in MODES.values()]).delete()
    user, _ = get_user_model().objects.get_or_create(username="bench-runner")
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('server_version'), current_setting('synchronous_commit'), "
                       "current_setting('fsync'), current_setting('default_toast_compression')")
        version, sync_commit, fsync, toast = cursor.fetchone()
    print(f"PostgreSQL {version}: synchronous_commit={sync_commit}, fsync={fsync}, toast compression {toast}; "
          f"{args.iterations} iterations per size, alternating", flush=True)
    url = os.environ["DATABASE_URL"].replace("postgres://", "postgresql://", 1)
    result = {"server": {"version": version, "synchronous_commit": sync_commit, "fsync": fsync,
                         "default_toast_compression": toast},
              "iterations": args.iterations}
    result["sizes"] = []
    dbos = DBOSSide(url) if not args.skip_dbos else None
    try:
        for mode, (_kind, options) in MODES.items():
            if args.no_sizes or (args.flush_only and mode != "flush"):
                continue
            with langgraph_saver(url + ("?" + options if options else "")) as saver:
                saver.setup()
                warm_up(user, saver, dbos=dbos if mode == "flush" else None)
                # DBOS commits as the server says (its own engine, no per-connection setting): flush mode only.
                result["sizes"] += side_by_side(user, saver, args.iterations, mode, dbos if mode == "flush" else None,
                                                SHAPES if mode == "flush" else SHAPES[:1])
        if args.two_row_floor:
            with langgraph_saver(url) as saver:
                result["two_row_floor"] = two_row_floor(url, saver, dbos, args.iterations)
    finally:
        if dbos is not None:
            dbos.close()
    if args.sizes_only:
        if args.json:
            Path(args.json).write_text(json.dumps(result, indent=2))
        return result
    result["fire_only_1kb"] = fire_only(user, args.iterations)
    print(f"fire() alone at 1 KB: p50 {result['fire_only_1kb']['p50_ms']:.2f} ms", flush=True)
    result["floor"] = floor(url, args.iterations)
    print(f"floor: a round trip p50 {result['floor']['round_trip']['p50_ms']:.2f} ms, a durable one-row write p50 "
          f"{result['floor']['durable_write']['p50_ms']:.2f} ms", flush=True)
    with langgraph_saver(url) as saver:
        result["design_floor"] = design_floor(url, user, saver, args.iterations)
    if not args.skip_pgbench:
        result["pgbench"] = []
        for clients in (1, 4):
            bench = pgbench(clients, args.seconds)
            bench["transitions_per_s"] = round(transitions_per_second(user, clients, args.seconds), 1)
            bench["share"] = round(bench["transitions_per_s"] / bench["tps"], 3)
            result["pgbench"].append(bench)
            print(f"{clients} client(s): pgbench -N {bench['tps']:,.0f} tps; agentstate {bench['transitions_per_s']:,.0f} "
                  f"transitions/s = {bench['share']:.0%} of pgbench", flush=True)
    Task.objects.filter(kind__in=[k for k, _ in MODES.values()]).delete()
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM checkpoint_writes WHERE thread_id LIKE 'bench-%%'")
        cursor.execute("DELETE FROM checkpoint_blobs WHERE thread_id LIKE 'bench-%%'")
        cursor.execute("DELETE FROM checkpoints WHERE thread_id LIKE 'bench-%%'")
        cursor.execute("SELECT to_regclass('dbos.workflow_status') IS NOT NULL")
        if cursor.fetchone()[0]:
            cursor.execute("DELETE FROM dbos.workflow_status WHERE name LIKE '%%bench_loop%%'")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()

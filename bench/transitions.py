"""How fast the transition engine moves tasks on PostgreSQL, and what each move costs on disk.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/procurement_bench .venv/bin/python bench/transitions.py

Without DATABASE_URL it uses (and creates) the procurement_bench database. It migrates, runs
its scenarios on a bench task kind of its own, prints a table, and deletes what it made.
"""
import os
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "procurement.settings")
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/procurement_bench")
import django  # noqa: E402

from bench.pgadmin import ensure_database  # noqa: E402

django.setup()
from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402

from agentstate.actors import Actor  # noqa: E402
from agentstate.errors import IllegalTransition, StaleVersion  # noqa: E402
from agentstate.kinds import RUNTIME, TaskKind, Transition, register  # noqa: E402
from agentstate.leases import lease_claim, lease_release  # noqa: E402
from agentstate.machine import fire, task_create  # noqa: E402
from agentstate.models import Checkpoint, Task, TaskEvent  # noqa: E402

KIND, TENANT, N = "bench", "BENCH", 2000
NEXT_EVENT = {"ping": "pong", "pong": "ping"}  # state -> the event that leaves it
register(TaskKind(name=KIND, initial="ping", transitions=[
    Transition("ping", "pong", "pong", (RUNTIME,), checkpoint=True),
    Transition("pong", "ping", "ping", (RUNTIME,), checkpoint=True)]))
ACTOR = Actor.runtime("bench")
# About what a purchase task carries: two lines, totals, a supplier.
DATA = {"department": "ENG", "supplier": "S-01", "currency": "TWD", "total": "110250.00", "lines": [
    {"description": d, "quantity": 2, "unit_price": "35000.00", "amount": "70000.00"} for d in ("Laptop", "Monitor")]}
SIZES = "SELECT pg_total_relation_size(%s), pg_total_relation_size(%s), pg_total_relation_size(%s)"
CHECKPOINT_BYTES = f"""
    SELECT avg(pg_column_size(c.snapshot) + pg_column_size(c.pending) + pg_column_size(c.external_refs)),
           avg(pg_column_size(c.*))
      FROM {Checkpoint._meta.db_table} c JOIN {Task._meta.db_table} t ON t.id = c.task_id WHERE t.kind = %s"""



def run_sql(sql, params=()):
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()


def new_tasks(user, count):
    return [task_create(kind=KIND, initiator=user, tenant=TENANT, data=DATA).pk for _ in range(count)]


def step(task_id, state, version):
    """One transition; returns the task's new state and version."""
    task = fire(task_id, NEXT_EVENT[state], actor=ACTOR, expected_version=version, data={"n": version})
    return task.state, task.version


def timed(latencies, call, *args):
    started = time.perf_counter()
    result = call(*args)
    latencies.append(time.perf_counter() - started)  # only when call returned
    return result


def run_sequence(task_ids, rounds, latencies):
    """Move each task `rounds` times, round-robin; returns wall seconds."""
    position, started = {pk: ("ping", 1) for pk in task_ids}, time.perf_counter()
    for _ in range(rounds):
        for pk in task_ids:
            position[pk] = timed(latencies, step, pk, *position[pk])
    return time.perf_counter() - started


def in_threads(count, target):
    """Run target(i) in `count` threads, each on its own connection; returns wall seconds."""
    barrier = threading.Barrier(count)

    def body(i):
        try:
            barrier.wait()
            target(i)
        finally:
            connection.close()

    threads = [threading.Thread(target=body, args=(i,)) for i in range(count)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.perf_counter() - started


def contend(task_id, threads, target):
    """`threads` workers race on one task, each re-reading its version, until `target` moves won."""
    counts = {"wins": 0, StaleVersion: 0, IllegalTransition: 0}
    lock, latencies = threading.Lock(), []

    def worker(_):
        while True:
            with lock:
                if counts["wins"] >= target:
                    return
            current = Task.objects.values_list("state", "version").get(pk=task_id)
            try:
                timed(latencies, step, task_id, *current)
            except (StaleVersion, IllegalTransition) as lost:  # IllegalTransition: the state flipped first
                with lock:
                    counts[type(lost)] += 1
                continue
            with lock:
                counts["wins"] += 1

    seconds = in_threads(threads, worker)
    return counts["wins"], counts[StaleVersion], counts[IllegalTransition], seconds, latencies


def row(name, moves, seconds, latencies, conflicts=""):
    cuts = statistics.quantiles(latencies, n=100)
    return [name, str(moves), f"{seconds:.2f}", f"{moves / seconds:,.0f}",
            *(f"{cuts[i] * 1000:.2f}" for i in (49, 94, 98)), conflicts]


def print_table(rows):
    rows = [["scenario", "moves", "secs", "moves/s", "p50 ms", "p95 ms", "p99 ms", "conflicts"], *rows]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    rows.insert(1, ["-" * w for w in widths])
    for r in rows:
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip())


def main():
    if connection.vendor != "postgresql":
        sys.exit(f"bench/transitions.py measures PostgreSQL; DATABASE_URL points at {connection.vendor}. "
                 "Set DATABASE_URL=postgres://... (or unset it to use procurement_bench on 127.0.0.1).")
    ensure_database(announce=True)
    call_command("migrate", verbosity=0)
    Task.objects.filter(kind=KIND).delete()  # leftovers of an interrupted run
    user, _ = get_user_model().objects.get_or_create(username="bench-runner")
    database, version = run_sql("SELECT current_database(), current_setting('server_version')")
    print(f"PostgreSQL {version}, database {database}; {N} moves per scenario, checkpoint on every move\n")
    tables, rows = [Checkpoint._meta.db_table, TaskEvent._meta.db_table, Task._meta.db_table], []

    task, before, latencies = new_tasks(user, 1), run_sql(SIZES, tables), []
    rows.append(row("a 1 thread, 1 task", N, run_sequence(task, N, latencies), latencies))
    growth = [(after - b) / N for after, b in zip(run_sql(SIZES, tables), before)]
    cp_columns, cp_row = run_sql(CHECKPOINT_BYTES, [KIND])

    tasks, latencies = new_tasks(user, 500), []
    rows.append(row("b 1 thread, 500 tasks x 4", N, run_sequence(tasks, 4, latencies), latencies))

    raced = new_tasks(user, 1)[0]
    wins, stale, flipped, seconds, latencies = contend(raced, 4, N)
    lost = stale + flipped
    rows.append(row("c 4 threads, 1 task", wins, seconds, latencies, f"{lost} ({lost / (wins + lost):.0%} of tries)"))
    # Losers must have written nothing: one version and one event per win, plus the create.
    raced_version, raced_events = Task.objects.get(pk=raced).version, TaskEvent.objects.filter(task_id=raced).count()

    groups, per_thread = [new_tasks(user, 125) for _ in range(4)], [[] for _ in range(4)]
    seconds = in_threads(4, lambda i: run_sequence(groups[i], 4, per_thread[i]))
    rows.append(row("d 4 threads, 125 tasks x 4 each", N, seconds, sum(per_thread, [])))

    leased, latencies, start = new_tasks(user, 1)[0], [], time.perf_counter()
    for _ in range(N // 2):
        timed(latencies, lambda: lease_release(lease=lease_claim(task_id=leased, worker="bench", seconds=60)))
    rows.append(row("lease claim+release (pairs)", N // 2, time.perf_counter() - start, latencies))

    print_table(rows)
    print(f"\nc: {stale} StaleVersion + {flipped} IllegalTransition (state flipped before fire read it), each "
          f"retried from a fresh read; task at version {raced_version} with {raced_events} events for {wins} wins "
          f"({'nothing written by losers' if raced_version == raced_events == wins + 1 else 'MISMATCH'})")
    print(f"checkpoint: {cp_columns:,.0f} bytes of snapshot+pending+external_refs, {cp_row:,.0f} bytes per row")
    print(f"growth per move in (a): checkpoints {growth[0]:,.0f} B, events {growth[1]:,.0f} B, "
          f"task table {growth[2]:,.0f} B (pg_total_relation_size: heap, indexes, TOAST)")
    deleted, _ = Task.objects.filter(kind=KIND).delete()
    user.delete()
    print(f"cleaned up: {deleted} rows (tasks, events, checkpoints)")


if __name__ == "__main__":
    main()

"""What a worker's advance() costs per step kind, beside its own ERP call.

    .venv/bin/python bench/step_profile.py [--requests 60] [--keep] [--json FILE]

It drops and recreates its own database `procurement_bench_steps` (server and credentials from
DATABASE_URL when that points at PostgreSQL, else postgres@127.0.0.1:5432; it refuses SQLite),
migrates, seeds the demo data, starts the ERP simulator and uses Redis db BENCH_REDIS_DB (default 9,
flushed before and after) as the broker. Each request is submitted (alternately alice for ENG and
erin for OPS) and then driven in this process, one `procurement.tasks.advance` call at a time as a
worker runs it (the messages it queues go to Redis and are flushed, never consumed), and approved as
bob or dave when its approval opens. Each advance() is named by the step it found due (start,
award, route, reserve_budget, create_requisition, open_approval, issue_purchase_order) and measured
on its own:

- queries: every statement through Django's connection (the engine's prepared ones included);
- ms: the whole call; ERP ms: inside the ERP client's HTTP calls; own ms: the call less its ERP
  wait (the issue's target: p50 <= 15 ms, p95 <= 40 ms); DB ms: inside the database's execute;
  broker ms: inside Celery's apply_async (publishing to Redis); Python: own less DB and broker.
"""
import argparse
import io
import json
import os
import random
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.pgadmin import database_url, pct, recreate_database, server_params, teardown_database  # noqa: E402
from bench.workflow import (  # noqa: E402
    REQUESTERS, Children, flush_redis, print_table, redis_url, request_lines, start_erp)

DB_NAME = "procurement_bench_steps"
ORDER = ("start", "award", "route", "reserve_budget", "create_requisition", "open_approval", "issue_purchase_order")


class Clock:
    """Seconds spent inside the wrapped calls since the last reset, by kind."""

    def __init__(self):
        self.spent = defaultdict(float)
        self.queries = 0

    def reset(self):
        self.spent.clear()
        self.queries = 0

    def wrap(self, kind, function):
        clock = self

        def timed(*args, **kwargs):
            began = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                clock.spent[kind] += time.perf_counter() - began
        return timed

    def database(self, execute, sql, params, many, context):
        self.queries += 1
        began = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.spent["db"] += time.perf_counter() - began


@contextmanager
def instrumented(clock: Clock):
    """Time the ERP client's HTTP calls and Celery's publishes, for this process."""
    from celery.app.task import Task as CeleryTask

    from procurement.infra.erp import ErpClient

    saved = ErpClient._call, CeleryTask.apply_async
    ErpClient._call = clock.wrap("erp", ErpClient._call)
    CeleryTask.apply_async = clock.wrap("broker", CeleryTask.apply_async)
    try:
        yield
    finally:
        ErpClient._call, CeleryTask.apply_async = saved


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=60, help="purchase requests to drive (default 60)")
    parser.add_argument("--keep", action="store_true", help=f"keep the {DB_NAME} database afterwards")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()

    params = server_params("step_profile.py")
    broker = redis_url()
    workdir = Path(tempfile.mkdtemp(prefix="bench-steps-"))
    # A step's own cost: one step per advance(), as a worker ran them before it chained a task's steps.
    os.environ.setdefault("AGENT_STEPS_PER_CLAIM", "1")
    os.environ.update({
        "DJANGO_SETTINGS_MODULE": "procurement.settings", "DATABASE_URL": database_url(params, DB_NAME),
        "CELERY_BROKER_URL": broker, "CELERY_TASK_ALWAYS_EAGER": "0", "VAR_DIR": str(workdir / "var"),
        "EMAIL_FILE_PATH": str(workdir / "mail"), "PYTHONUNBUFFERED": "1",
    })
    (workdir / "var").mkdir()
    children = Children()
    try:
        figures = run(args, params, children, workdir)
    finally:
        children.stop()
        flush_redis(broker)
        database = teardown_database(params, DB_NAME, keep=args.keep)
        shutil.rmtree(workdir, ignore_errors=True)
        print(f"cleaned up: ERP simulator stopped, Redis db {broker.rsplit('/', 1)[1]} flushed, {database}")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))
    sys.exit(0 if figures["complete"] else 1)


def run(args, params, children, workdir) -> dict:
    recreate_database(params, DB_NAME)
    flush_redis(os.environ["CELERY_BROKER_URL"])
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection

    from agentstate.models import Approval, Task
    from procurement import workflow
    from procurement.purchase import services
    from procurement.tasks import advance

    call_command("migrate", verbosity=0)
    call_command("seed_demo", verbosity=0, stdout=io.StringIO())
    settings.ERP_URL = start_erp(children, workdir)
    connection.ensure_connection()
    pg_version = connection.pg_version
    print(f"PostgreSQL {pg_version // 10000}.{pg_version % 10000}, database {DB_NAME}; broker "
          f"{os.environ['CELERY_BROKER_URL']}; ERP simulator {settings.ERP_URL}; {args.requests} requests, "
          f"each advance() run in this process as a worker runs it\n")

    users = {u.username: u for u in get_user_model().objects.filter(username__in=["alice", "erin", "bob", "dave"])}
    approver_of = {department: users[approver] for _r, department, approver in REQUESTERS}
    rng = random.Random(11)
    clock = Clock()
    samples = defaultdict(list)  # step -> [(queries, total, erp, db, broker) seconds]
    confirmed = 0
    with instrumented(clock), connection.execute_wrapper(clock.database):
        for n in range(args.requests):
            requester, department, _approver = REQUESTERS[n % 2]
            task = services.request_submit(requester=users[requester], department=department,
                                           lines=request_lines(rng), justification=f"profiled request {n}")
            for _ in range(20):
                row = Task.objects.filter(pk=task.pk).values("state", "step", "runnable").get()
                if row["state"] == workflow.AWAITING_APPROVAL:
                    approval = Approval.objects.get(task_id=task.pk, status=Approval.Status.PENDING)
                    services.approval_decide(approval_id=approval.pk, user=approver_of[department],
                                             decision="approve", state_version=approval.state_version,
                                             scope_hash=approval.scope_hash)
                    continue
                if not row["runnable"]:
                    break
                clock.reset()
                began = time.perf_counter()
                advance(str(task.pk))
                took = time.perf_counter() - began
                samples[row["step"]].append((clock.queries, took, clock.spent["erp"], clock.spent["db"],
                                             clock.spent["broker"]))
            confirmed += Task.objects.filter(pk=task.pk, state=workflow.CONFIRMED).exists()
    return report(samples, confirmed, args.requests)


def report(samples: dict, confirmed: int, requests: int) -> dict:
    def ms(values, p):
        return round(pct(values, p) * 1000, 1)

    figures = {"requests": requests, "confirmed": confirmed, "complete": confirmed == requests, "steps": {}}
    rows = [["step", "n", "queries", "p50 ms", "p95 ms", "ERP p50", "own p50", "own p95", "DB p50", "broker p50",
             "Python p50"]]
    own_all = []
    for step in [s for s in ORDER if s in samples] + [s for s in samples if s not in ORDER]:
        entries = samples[step]
        queries = sorted({e[0] for e in entries})
        total = [e[1] for e in entries]
        erp = [e[2] for e in entries]
        own = [e[1] - e[2] for e in entries]
        db = [e[3] for e in entries]
        broker = [e[4] for e in entries]
        python = [e[1] - e[2] - e[3] - e[4] for e in entries]
        own_all += own
        figures["steps"][step] = {
            "n": len(entries), "queries_min": queries[0], "queries_max": queries[-1],
            "ms": {"p50": ms(total, 50), "p95": ms(total, 95)}, "erp_ms": {"p50": ms(erp, 50), "p95": ms(erp, 95)},
            "own_ms": {"p50": ms(own, 50), "p95": ms(own, 95)}, "db_ms": {"p50": ms(db, 50), "p95": ms(db, 95)},
            "broker_ms": {"p50": ms(broker, 50), "p95": ms(broker, 95)},
            "python_ms": {"p50": ms(python, 50), "p95": ms(python, 95)}}
        shown = str(queries[0]) if len(queries) == 1 else f"{queries[0]}-{queries[-1]}"
        rows.append([step, len(entries), shown, ms(total, 50), ms(total, 95), ms(erp, 50), ms(own, 50), ms(own, 95),
                     ms(db, 50), ms(broker, 50), ms(python, 50)])
    if own_all:
        figures["own_ms_all_steps"] = {"p50": ms(own_all, 50), "p95": ms(own_all, 95), "n": len(own_all)}
    print_table(rows)
    print("ms: the whole advance(); own = less the ERP client's HTTP calls (target p50 <= 15, p95 <= 40); "
          "DB = inside execute; broker = inside apply_async; Python = own less DB and broker")
    if own_all:
        print(f"every step: own p50 {figures['own_ms_all_steps']['p50']} ms, p95 {figures['own_ms_all_steps']['p95']} "
              f"ms over {len(own_all)} calls")
    print(f"{confirmed}/{requests} requests reached {'externally_confirmed'}")
    return figures


if __name__ == "__main__":
    main()

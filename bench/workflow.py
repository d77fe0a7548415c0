"""Purchase requests end to end: real Celery workers, PostgreSQL, Redis and the ERP simulator.

    .venv/bin/python bench/workflow.py [--requests 200] [--workers 1,2,4] [--timeout 120] [--keep]
                                       [--json out.json] [--chart bench/results/throughput_workers.png]
                                       [--profile DIR]

For each worker count it drops and recreates its own database `procurement_bench_wf` (BENCH_DB_NAME
to use another; server and credentials from DATABASE_URL when that points at PostgreSQL, else
postgres@127.0.0.1:5432; it refuses SQLite), migrates, seeds the demo data, flushes Redis db 9
(BENCH_REDIS_DB) and uses it as the broker, starts the ERP simulator and N `celery worker
--pool=solo` processes (separate processes, as `docker compose --scale worker=N` runs them; the app
is bench.queue_probe, the product's own with a probe timing each message's queue wait), submits the
requests and approves each one as bob (ENG) or dave (OPS) until every task is externally_confirmed.
It prints wall time, tasks per second, time per step from the task events, each message's queue
wait p50/p95 and the worker CPU it took, the CPU per task of the workers, PostgreSQL's backends,
the ERP simulator and this process (and the ceiling that puts on this machine's cores), what
pg_stat_activity showed every 0.1 s (lock waits, WAL waits), queries per step (one extra request
run in-process, Celery eager, in the run with 2 workers), and the ERP's writes per task: exactly one
requisition and one purchase order each, or FAIL and exit status 1. Then the curve over the worker
counts, and a chart of it. Child processes are stopped, Redis flushed and the database dropped after
each run (`--keep` keeps the last one's database). `--profile DIR` runs each worker under a CPU
profile (cProfile on process time) written to DIR/workers-N/worker-n.prof.
"""
import argparse
import io
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.pgadmin import database_url, pct, recreate_database, server_params, teardown_database  # noqa: E402

DB_NAME = os.environ.get("BENCH_DB_NAME", "procurement_bench_wf")  # dropped and recreated
REDIS_DB = int(os.environ.get("BENCH_REDIS_DB", "9"))  # flushed before and after: a database of its own
QUEUE = "bench"
START_TIMEOUT = float(os.environ.get("BENCH_START_TIMEOUT", "60"))  # a loaded machine starts workers slowly
# The dearest untaxed quote of each demo item (seed_demo): a request priced at these stays within
# the managers' limit of NT$100,000 including tax whichever supplier wins.
DEAREST = {"Laptop": 35800, "Monitor": 6600, "Keyboard": 1550, "USB-C dock": 3300, "Office chair": 8800}
MANAGER_LIMIT = 100_000
REQUESTERS = (("alice", "ENG", "bob"), ("erin", "OPS", "dave"))  # requester, department, approver


# -- the environment, before Django starts -------------------------------------------------



def redis_url() -> str:
    broker = os.environ.get("CELERY_BROKER_URL", "")
    netloc = urlsplit(broker).netloc if broker.startswith("redis://") else "127.0.0.1:6379"
    return f"redis://{netloc}/{REDIS_DB}"



def flush_redis(url: str):
    import redis

    client = redis.Redis.from_url(url)
    try:
        client.flushdb()
    finally:
        client.close()


# -- child processes -----------------------------------------------------------------------

class Children:
    """Every process this script starts, each in its own session; stopped by pid at the end."""

    def __init__(self):
        self.procs: list[tuple[str, subprocess.Popen, Path | None]] = []

    def add(self, name, proc, log=None):
        self.procs.append((name, proc, log))
        return proc

    def stop(self):
        for _name, proc, _log in reversed(self.procs):
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for _name, proc, _log in reversed(self.procs):
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                proc.wait()
            if proc.stdout:
                proc.stdout.close()
        self.procs = []

    def tails(self, lines=30) -> str:
        out = []
        for name, proc, log in self.procs:
            if log is not None and log.exists():
                out.append(f"--- {name} (exit {proc.poll()}) {log} ---")
                out.extend(log.read_text(errors="replace").splitlines()[-lines:])
        return "\n".join(out)


def start_erp(children: Children, workdir: Path) -> str:
    log = workdir / "erp.log"
    with open(log, "wb") as err:
        proc = children.add("erp", subprocess.Popen(
            [sys.executable, "-m", "erpsim", "--host", "127.0.0.1", "--port", "0",
             "--db", str(workdir / "erp.sqlite3"), "--quiet"],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=err, text=True, start_new_session=True), log)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.append(proc.stdout.readline()), daemon=True)
    reader.start()
    reader.join(START_TIMEOUT)
    prefix = "ERP simulator listening on "
    if not lines or not lines[0].startswith(prefix):
        raise RuntimeError(f"ERP simulator did not start: {lines}\n{children.tails()}")
    return lines[0][len(prefix):].strip()


PROFILED = """
import cProfile, runpy, sys, time
out = sys.argv[1]
sys.argv = sys.argv[2:]
profiler = cProfile.Profile(time.process_time)
profiler.enable()
try:
    runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
finally:
    profiler.disable()
    profiler.dump_stats(out)
"""


def start_worker(children: Children, workdir: Path, n: int, env: dict, *, app: str = "procurement",
                 profile: Path | None = None) -> tuple[subprocess.Popen, Path]:
    """One `celery worker` process, `--pool=solo`: one process runs one task at a time, as each of
    `docker compose --scale worker=N`'s containers would with `--concurrency=1`. `app` names the
    Celery app (bench.queue_probe: the product's, with the queue-wait probe); `profile` runs it under
    cProfile, written there when it stops."""
    log = workdir / f"worker-{n}.log"
    # A CPU profile (time.process_time: time spent waiting on the database or the ERP is not in it).
    wrap = ["-c", PROFILED, str(profile / f"worker-{n}.prof")] if profile else ["-m"]
    argv = [sys.executable, *wrap, "celery", "-A", app, "worker", "--pool=solo", "--concurrency=1",
            "-Q", QUEUE, "-n", f"bench{n}@%h", "--without-gossip", "--without-mingle", "--without-heartbeat",
            "-l", "info",
            # What the worker enqueues itself (advance chaining, the outbox) goes to the bench queue too.
            "--", f"task_default_queue={QUEUE}"]
    with open(log, "wb") as out:
        proc = children.add(f"worker {n}", subprocess.Popen(
            argv, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True), log)
    return proc, log


def wait_ready(children: Children, workers):
    deadline = time.monotonic() + START_TIMEOUT
    for proc, log in workers:
        while " ready." not in log.read_text(errors="replace"):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"worker not ready (exit {proc.poll()})\n{children.tails()}")
            time.sleep(0.1)


def erp_get(erp_url: str, path: str) -> dict:
    import requests

    response = requests.get(erp_url + path, timeout=10)
    response.raise_for_status()
    return response.json()


# -- the requests --------------------------------------------------------------------------

def request_lines(rng: random.Random) -> list[dict]:
    """1-3 lines of demo items whose total, at the dearest quotes and with 5% tax, is within the limit."""
    while True:
        items = rng.sample(sorted(DEAREST), rng.randint(1, 3))
        lines = [{"description": item, "quantity": rng.randint(1, 3)} for item in items]
        if sum(DEAREST[line["description"]] * line["quantity"] for line in lines) * 1.05 <= MANAGER_LIMIT:
            return lines



def print_table(rows, right_from=1):
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    rows = [rows[0], ["-" * w for w in widths], *rows[1:]]
    for r in rows:
        print("  ".join(str(c).ljust(w) if i < right_from else str(c).rjust(w)
                        for i, (c, w) in enumerate(zip(r, widths))).rstrip())


# -- what the machine did meanwhile ----------------------------------------------------------

CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of a live process (Linux /proc), None when it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


class ActivitySampler(threading.Thread):
    """Samples pg_stat_activity for the bench database every `every` seconds on its own connection:
    what each backend was doing (active, idle in transaction) and what it waited on, the queries
    that waited on a lock and whom they waited for, and each backend's CPU time (from /proc, the
    server being on this machine)."""

    def __init__(self, params: dict, dbname: str, every: float = 0.1):
        super().__init__(daemon=True)
        self.params, self.dbname, self.every = params, dbname, every
        self.stop_event = threading.Event()
        self.samples = 0
        self.active = 0            # backend-samples running a statement
        self.idle_in_tx = 0        # backend-samples inside a transaction, waiting for their client
        self.waits = Counter()     # (wait_event_type, wait_event) of active backends
        self.lock_queries = Counter()  # what waited on a heavyweight lock, by statement
        self.max_lock_waiters = 0
        self.backend_cpu: dict[int, float] = {}  # pid -> CPU seconds since the first sample (or its start)
        self._baseline: dict[int, float] | None = None
        self.error = ""

    def run(self):
        import psycopg

        try:
            with psycopg.connect(**{k: v for k, v in self.params.items() if v != ""}, dbname=self.dbname,
                                 autocommit=True) as conn:
                while not self.stop_event.is_set():
                    self._sample(conn)
                    self.stop_event.wait(self.every)
        except Exception as exc:  # noqa: BLE001 - the run goes on without the samples; the report says so
            self.error = repr(exc)

    def _sample(self, conn):
        rows = conn.execute(
            "SELECT pid, state, wait_event_type, wait_event, left(regexp_replace(query, '\\s+', ' ', 'g'), 90),"
            "       cardinality(pg_blocking_pids(pid))"
            "  FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid() AND backend_type = 'client backend'",
            [self.dbname]).fetchall()
        first = self._baseline is None
        if first:
            self._baseline = {}
        self.samples += 1
        waiting_on_locks = 0
        for pid, state, wait_type, wait_event, query, blockers in rows:
            seconds = cpu_seconds(pid)
            if seconds is not None:
                if first:
                    self._baseline[pid] = seconds  # what it had spent before the run
                self.backend_cpu[pid] = seconds - self._baseline.get(pid, 0.0)
            if state == "active":
                self.active += 1
                if wait_type:
                    self.waits[(wait_type, wait_event)] += 1
                if wait_type == "Lock":
                    waiting_on_locks += 1
                    self.lock_queries[(wait_event, query, blockers)] += 1
            elif state and state.startswith("idle in transaction"):
                self.idle_in_tx += 1
        self.max_lock_waiters = max(self.max_lock_waiters, waiting_on_locks)

    def stop(self):
        self.stop_event.set()
        self.join(timeout=5)

    def figures(self) -> dict:
        lock = sum(n for (kind, _event), n in self.waits.items() if kind == "Lock")
        return {
            "samples": self.samples, "every_s": self.every, "error": self.error,
            "active_backends_mean": round(self.active / self.samples, 2) if self.samples else 0,
            "idle_in_transaction_mean": round(self.idle_in_tx / self.samples, 2) if self.samples else 0,
            "lock_wait_samples": lock,
            "lock_wait_share_of_active": round(lock / self.active, 4) if self.active else 0,
            "max_lock_waiters": self.max_lock_waiters,
            "waits": [{"type": kind, "event": event, "samples": n,
                       "share_of_active": round(n / self.active, 4) if self.active else 0}
                      for (kind, event), n in self.waits.most_common(8)],
            "lock_queries": [{"lock": event, "query": query, "blocked_by": blockers, "samples": n}
                             for (event, query, blockers), n in self.lock_queries.most_common(5)],
        }


def queue_waits(prefix: Path) -> dict:
    """bench.queue_probe's lines: milliseconds each message waited, by task name."""
    waits, cpu = defaultdict(list), defaultdict(list)
    for path in prefix.parent.glob(prefix.name + "-*.tsv"):
        for line in path.read_text().splitlines():
            name, _first, waited, _started, *spent = line.split("\t")
            name = name.rsplit(".", 1)[-1]
            waits[name].append(float(waited))
            if spent:
                cpu[name].append(float(spent[0]))
    return {name: {"n": len(values), "p50_ms": round(pct(values, 50), 1), "p95_ms": round(pct(values, 95), 1),
                   "max_ms": round(max(values), 1),
                   "cpu_ms": {"p50": round(pct(cpu[name], 50), 1), "mean": round(sum(cpu[name]) / len(cpu[name]), 1),
                              "total_s": round(sum(cpu[name]) / 1000, 2)} if cpu[name] else {}}
            for name, values in sorted(waits.items())}


# -- the bench -----------------------------------------------------------------------------

def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200, help="purchase requests to run (default 200)")
    parser.add_argument("--workers", default="2",
                        help="Celery worker processes; a list (1,2,4) runs the whole bench once per count (default 2)")
    parser.add_argument("--timeout", type=float, default=120, help="seconds to wait for every task, per run (default 120)")
    parser.add_argument("--keep", action="store_true", help=f"keep the {DB_NAME} database afterwards (the last run's)")
    parser.add_argument("--json", help="also write the figures (and confirmations over time) to this file")
    parser.add_argument("--chart", default=str(ROOT / "bench" / "results" / "throughput_workers.png"),
                        help="where to draw tasks/s and queue wait by worker count ('' for none)")
    parser.add_argument("--profile", help="run each worker under cProfile, the .prof files written in this directory")
    parser.add_argument("--steps-per-claim", type=int, default=int(os.environ.get("AGENT_STEPS_PER_CLAIM", 8)),
                        help="the workers' AGENT_STEPS_PER_CLAIM (default 8, or the environment's; the product's "
                             "default is 1, DESIGN §5's one step per message)")
    args = parser.parse_args()
    counts = [int(n) for n in str(args.workers).split(",") if n.strip()]

    params = server_params("workflow.py")
    broker = redis_url()
    os.environ.update({
        "DJANGO_SETTINGS_MODULE": "procurement.settings", "DATABASE_URL": database_url(params, DB_NAME),
        "CELERY_BROKER_URL": broker, "CELERY_TASK_ALWAYS_EAGER": "0", "PYTHONUNBUFFERED": "1",
    })
    runs, status = [], 0
    headline = 2 if 2 in counts else counts[0]
    for n in counts:
        workdir = Path(tempfile.mkdtemp(prefix="bench-wf-"))
        os.environ.update({"VAR_DIR": str(workdir / "var"), "EMAIL_FILE_PATH": str(workdir / "mail"),
                           "BENCH_QUEUE_LOG": str(workdir / "queue")})
        (workdir / "var").mkdir()
        children, figures = Children(), None
        try:
            figures = run(args, n, params, broker, workdir, children, in_process=(n == headline))
        finally:
            children.stop()
            flush_redis(broker)
            last = n == counts[-1]
            database = teardown_database(params, DB_NAME, keep=args.keep and last)
            shutil.rmtree(workdir, ignore_errors=True)
            print(f"cleaned up: workers and ERP simulator stopped, Redis db {REDIS_DB} flushed, {database}\n")
        runs.append(figures)
        status = status or (0 if figures["ok"] else 1)

    print_curve(runs)
    out = next(r for r in runs if r["workers"] == headline) | {"runs": runs, "headline_workers": headline}
    if args.chart:
        from bench.report import workers_chart

        Path(args.chart).parent.mkdir(parents=True, exist_ok=True)
        workers_chart(out, Path(args.chart))
        print(f"chart: {args.chart}")
    if args.json:
        import json

        Path(args.json).write_text(json.dumps(out, indent=2))
    sys.exit(status)


def print_curve(runs: list[dict]):
    rows = [["workers", "tasks/s", "transitions/s", "wall s", "advance queue wait p50/p95 ms",
             "CPU ms per task (workers+PG+ERP+bench)", "2-core ceiling tasks/s", "lock waits (share of active)",
             "load avg at start"]]
    for r in runs:
        wait = r.get("queue_wait_ms", {}).get("advance", {})
        cpu = r["cpu_ms_per_task"]
        rows.append([r["workers"], r["tasks_per_s"], r["transitions_per_s"], r["wall_s"],
                     f"{wait.get('p50_ms', '-')} / {wait.get('p95_ms', '-')}",
                     f"{cpu['total']} ({cpu['workers']}+{cpu['postgres']}+{cpu['erp']}+{cpu['bench']})",
                     cpu["ceiling_tasks_per_s"],
                     f"{r['pg_activity']['lock_wait_samples']} ({r['pg_activity']['lock_wait_share_of_active']:.1%})",
                     ", ".join(f"{x:.1f}" for x in r["load_average"]["start"])])
    print("\nThroughput by worker count (each a fresh database, broker and ERP):")
    print_table(rows, right_from=1)


def run(args, n_workers, params, broker, workdir, children, *, in_process: bool) -> dict:
    from django.db import connections

    connections.close_all()
    recreate_database(params, DB_NAME)
    flush_redis(broker)
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection

    import bench.queue_probe  # noqa: F401 - stamps what this process publishes with its time
    from agentstate.errors import DomainError
    from agentstate.models import Approval, Checkpoint, Task, TaskEvent
    from procurement.purchase import services
    from procurement import workflow
    from procurement.celery import app

    call_command("migrate", verbosity=0)
    call_command("seed_demo", verbosity=0, stdout=io.StringIO())
    erp_url = start_erp(children, workdir)
    erp_proc = children.procs[-1][1]
    settings.ERP_URL = erp_url
    app.conf.task_default_queue = QUEUE
    env = {**os.environ, "ERP_URL": erp_url, "AGENT_STEPS_PER_CLAIM": str(args.steps_per_claim)}
    print(f"workers run with AGENT_STEPS_PER_CLAIM={args.steps_per_claim}", flush=True)
    profile = Path(args.profile) / f"workers-{n_workers}" if args.profile else None
    if profile:
        profile.mkdir(parents=True, exist_ok=True)
    workers = [start_worker(children, workdir, n, env, app="bench.queue_probe", profile=profile)
               for n in range(1, n_workers + 1)]
    wait_ready(children, workers)
    connection.ensure_connection()
    pg_version = connection.pg_version
    print(f"PostgreSQL {pg_version // 10000}.{pg_version % 10000}, database {DB_NAME}; broker {broker} "
          f"(queue {QUEUE!r}); {n_workers} workers (--pool=solo); ERP simulator {erp_url}; "
          f"{args.requests} requests, {os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.1f}\n")

    users = {u.username: u for u in get_user_model().objects.filter(username__in=["alice", "erin", "bob", "dave"])}
    rng = random.Random(7)
    plans = [(REQUESTERS[i % 2], request_lines(rng)) for i in range(args.requests)]

    # Submit everything (each submit enqueues advance on commit), then approve as approvals open.
    from django.utils import timezone

    load_start = os.getloadavg()
    cpu_before = {proc.pid: cpu_seconds(proc.pid) or 0.0 for proc, _log in workers}
    cpu_before[erp_proc.pid] = cpu_seconds(erp_proc.pid) or 0.0
    bench_before = sum(os.times()[:2])
    sampler = ActivitySampler(params, DB_NAME)
    sampler.start()
    started_at = timezone.now()
    started = time.perf_counter()
    ids = []
    thread_cpu = time.thread_time()
    for n, ((requester, department, _approver), lines) in enumerate(plans, start=1):
        task = services.request_submit(requester=users[requester], department=department, lines=lines,
                                       justification=f"bench request {n}")
        ids.append(task.pk)
    submitted = time.perf_counter() - started
    cpu_submit = time.thread_time() - thread_cpu
    approver_of = {department: users[approver] for _r, department, approver in REQUESTERS}
    decided = conflicts = 0
    cpu_decide = 0.0
    deadline = started + args.timeout
    done = 0
    # Every purchase task in this fresh database is one of ours: the polls name no ids.
    ours = Task.objects.filter(kind=workflow.KIND)
    while time.perf_counter() < deadline:
        pending = list(Approval.objects.filter(task__kind=workflow.KIND, status=Approval.Status.PENDING)
                       .values_list("pk", "task__tenant", "state_version", "scope_hash"))
        for pk, tenant, version, digest in pending:
            thread_cpu = time.thread_time()
            try:
                services.approval_decide(approval_id=pk, user=approver_of[tenant], decision="approve",
                                         state_version=version, scope_hash=digest)
                decided += 1
            except DomainError:
                conflicts += 1
            cpu_decide += time.thread_time() - thread_cpu
        if not pending:
            done = ours.filter(state=workflow.CONFIRMED).count()
            if done == len(ids):
                break
            time.sleep(0.1)
    wall = time.perf_counter() - started
    # CPU spent during the run, before anything else happens: the workers, the database's backends
    # (as last sampled), the ERP simulator, this process (submitting, approving, sampling).
    cpu_workers = sum((cpu_seconds(proc.pid) or 0.0) - cpu_before[proc.pid] for proc, _log in workers)
    cpu_erp = (cpu_seconds(erp_proc.pid) or 0.0) - cpu_before[erp_proc.pid]
    cpu_bench = sum(os.times()[:2]) - bench_before
    sampler.stop()
    cpu_pg = sum(sampler.backend_cpu.values())
    load_end = os.getloadavg()
    states = Counter(Task.objects.filter(pk__in=ids).values_list("state", flat=True))
    complete = done == len(ids)

    print(f"submitted {len(ids)} requests in {submitted:.2f} s; approver decided {decided} "
          f"({conflicts} refused)")
    if complete:
        print(f"all {len(ids)} tasks externally_confirmed: wall {wall:.2f} s, {len(ids) / wall:.2f} tasks/s")
    else:
        print(f"TIMEOUT after {wall:.0f} s: {done}/{len(ids)} confirmed; states {dict(states)}")
    workers_alive = sum(proc.poll() is None for proc, _ in workers)

    # Time per step, from consecutive events of each task; a step is named by the cursor it
    # ended (the checkpoint before the event), or by the event when no step was due.
    cursor = {(t, v): c for t, v, c in Checkpoint.objects.filter(task_id__in=ids)
              .values_list("task_id", "version", "cursor")}
    durations, ended_by, order = defaultdict(list), {}, []
    per_task = defaultdict(list)
    for task_id, version, event, at in (TaskEvent.objects.filter(task_id__in=ids)
                                         .order_by("task_id", "version").values_list("task_id", "version",
                                                                                     "event", "at")):
        per_task[task_id].append((version, event, at))
    end_to_end = []
    for task_id, events in per_task.items():
        for (v0, _e0, at0), (v1, event, at1) in zip(events, events[1:]):
            label = cursor.get((task_id, v0)) or event
            if label not in ended_by:
                ended_by[label] = event
                order.append(label)
            durations[label].append((at1 - at0).total_seconds() * 1000)
        if events[-1][1] == "confirm":
            end_to_end.append((events[-1][2] - events[0][2]).total_seconds())

    transitions = TaskEvent.objects.filter(task_id__in=ids).exclude(actor="recovery").count()
    confirmed_at = sorted((at - started_at).total_seconds() for at in TaskEvent.objects.filter(
        task_id__in=ids, event="confirm").values_list("at", flat=True))
    print(f"transitions: {transitions} in {wall:.1f} s = {transitions / wall:.1f} transitions/s")
    tasks = len(ids)
    cpu = {"workers": cpu_workers, "postgres": cpu_pg, "erp": cpu_erp, "bench": cpu_bench}
    cpu_ms = {k: round(v * 1000 / tasks, 1) for k, v in cpu.items()}
    cpu_ms["total"] = round(sum(cpu.values()) * 1000 / tasks, 1)
    cpu_ms["ceiling_tasks_per_s"] = round((os.cpu_count() or 1) * 1000 / cpu_ms["total"], 1) if cpu_ms["total"] else None
    cpu_ms["bench_submitting"] = round(cpu_submit * 1000 / tasks, 1)
    cpu_ms["bench_approving"] = round(cpu_decide * 1000 / tasks, 1)
    cpu_ms["machine_busy_share"] = round(sum(cpu.values()) / ((os.cpu_count() or 1) * wall), 3)
    figures = {
        "requests": tasks, "workers": n_workers, "steps_per_claim": args.steps_per_claim, "wall_s": round(wall, 2),
        "complete": complete,
        "tasks_per_s": round(tasks / wall, 2), "transitions": transitions,
        "transitions_per_s": round(transitions / wall, 1),
        "load_average": {"start": [round(x, 2) for x in load_start], "end": [round(x, 2) for x in load_end]},
        "steps": {label: {"n": len(durations[label]), "p50_ms": round(pct(durations[label], 50), 1),
                          "p95_ms": round(pct(durations[label], 95), 1)} for label in order},
        "all_steps_ms": {"p50": round(pct(sum(durations.values(), []), 50), 1),
                         "p95": round(pct(sum(durations.values(), []), 95), 1)} if durations else {},
        "create_to_confirm_s": {"p50": round(pct(end_to_end, 50), 2), "p95": round(pct(end_to_end, 95), 2)}
        if end_to_end else {},
        "confirmed_at_s": [round(t, 2) for t in confirmed_at],
        "cpu_ms_per_task": cpu_ms,
        "pg_activity": sampler.figures(),
    }

    # Stop the workers: the rest runs in this process.
    for proc, _log in workers:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
    for proc, _log in workers:
        proc.wait(timeout=60)

    figures["queue_wait_ms"] = queue_waits(workdir / "queue")
    busy = worker_busy(workers)
    queries = measure_queries(users, approver_of) if in_process else {}

    def in_process_row(label):
        what, counts, took = queries.pop(label, ("", [], []))
        return [what, "+".join(map(str, counts)), "+".join(f"{ms:.0f}" for ms in took)]

    rows = [["step", "ended by event", "n", "p50 ms", "p95 ms", "measured call", "queries", "ms in-process"]]
    for label in order:
        values = durations[label]
        rows.append([label, ended_by[label], len(values), f"{pct(values, 50):.1f}", f"{pct(values, 95):.1f}",
                     *in_process_row(label)])
    for label in list(queries):
        rows.append([label, "", "", "", "", *in_process_row(label)])
    print()
    print_table(rows, right_from=2)
    print("time per step: from the task's previous event to the event that ended the step (queue wait + work; "
          "'approve' is the wait for the scripted approver)")
    if end_to_end:
        print(f"per task, create to confirm: p50 {pct(end_to_end, 50):.2f} s, p95 {pct(end_to_end, 95):.2f} s")
    for name, wait in figures["queue_wait_ms"].items():
        spent = wait["cpu_ms"]
        print(f"queue wait of {name} messages (sent, or countdown over, to started): {wait['n']} messages, "
              f"p50 {wait['p50_ms']} ms, p95 {wait['p95_ms']} ms, max {wait['max_ms']} ms"
              + (f"; worker CPU per message p50 {spent['p50']} ms, mean {spent['mean']} ms, "
                 f"{spent['total_s']} s in all" if spent else ""))
    if busy["advance"]:
        calls, seconds = busy["advance"], busy["seconds"]
        print(f"worker time per advance() call (Celery's 'succeeded in', all steps): {len(calls)} calls, "
              f"p50 {pct(calls, 50):.1f} ms, p95 {pct(calls, 95):.1f} ms; workers busy "
              + ", ".join(f"{s:.1f} s" for s in seconds) + f" of {wall:.1f} s")
    print(f"CPU per task: {cpu_ms['total']} ms (workers {cpu_ms['workers']}, PostgreSQL backends {cpu_ms['postgres']}, "
          f"ERP simulator {cpu_ms['erp']}, this process {cpu_ms['bench']}: request_submit {cpu_ms['bench_submitting']}, "
          f"approval_decide {cpu_ms['bench_approving']}, the rest polling and sampling); {os.cpu_count()} cores at that cost: "
          f"at most {cpu_ms['ceiling_tasks_per_s']} tasks/s; the run kept {cpu_ms['machine_busy_share']:.0%} of the "
          f"cores busy with its own work; load average {load_start[0]:.1f} at start, {load_end[0]:.1f} at end")
    act = figures["pg_activity"]
    print(f"pg_stat_activity every {act['every_s']} s ({act['samples']} samples): {act['active_backends_mean']} "
          f"backends active on average, {act['idle_in_transaction_mean']} idle in transaction; lock waits in "
          f"{act['lock_wait_samples']} backend-samples ({act['lock_wait_share_of_active']:.1%} of active), at most "
          f"{act['max_lock_waiters']} at once" + (f"; sampler failed: {act['error']}" if act["error"] else ""))
    for wait in act["waits"]:
        print(f"  waiting on {wait['type']}/{wait['event']}: {wait['samples']} ({wait['share_of_active']:.1%} of active)")
    for lock in act["lock_queries"]:
        print(f"  lock {lock['lock']} ({lock['samples']} samples, blocked by {lock['blocked_by']}): {lock['query']}")
    print("queries, ms in-process: one more request run in this process with Celery eager, each call on its own "
          "under CaptureQueriesContext (a+b: the step ran twice)" if in_process else
          "(queries per step: measured in the run with the headline worker count)")

    # ERP: exactly one requisition and one purchase order per task, nothing else written.
    stats = erp_get(erp_url, "/_stats")
    tasks_total = tasks + (1 if in_process else 0)
    refs = {str(pk) for pk in Task.objects.filter(kind=workflow.KIND).values_list("pk", flat=True)}
    per_req = Counter(r["external_ref"] for r in erp_get(erp_url, "/requisitions")["results"])
    per_po = Counter(r["external_ref"] for r in erp_get(erp_url, "/purchase-orders")["results"])
    bad = sorted(ref for ref in refs if per_req[ref] != 1 or per_po[ref] != 1)
    strangers = (set(per_req) | set(per_po)) - refs
    dupes = sum(max(0, c - 1) for c in per_req.values()) + sum(max(0, c - 1) for c in per_po.values())
    erp_ok = (not bad and not strangers and stats["requisitions"] == stats["purchase_orders"] == tasks_total
              and stats["writes"] == 2 * tasks_total)
    extra = f" ({tasks} + 1 in-process)" if in_process else ""
    print(f"\nERP /_stats: {stats['requisitions']} requisitions, {stats['purchase_orders']} purchase orders, "
          f"{stats['writes']} writes for {tasks_total} tasks{extra}: "
          f"{stats['requisitions'] / tasks_total:.2f} requisitions, {stats['purchase_orders'] / tasks_total:.2f} "
          f"purchase orders, {stats['writes'] / tasks_total:.2f} writes per task")
    if erp_ok:
        print("PASS: exactly 1 requisition + 1 purchase order per task, no duplicates")
    else:
        print(f"FAIL: {len(bad)} tasks without exactly 1 requisition + 1 purchase order, {dupes} duplicates, "
              f"{len(strangers)} ERP objects of unknown tasks")
        for ref in bad[:10]:
            print(f"  task {ref}: {per_req[ref]} requisitions, {per_po[ref]} purchase orders")
    if workers_alive != len(workers):
        print(f"FAIL: {len(workers) - workers_alive} worker(s) died\n{children.tails()}")
    if not complete:
        print(children.tails())
    figures["erp_pass"] = erp_ok
    if busy["advance"]:
        figures["advance_ms"] = {"n": len(busy["advance"]), "p50": round(pct(busy["advance"], 50), 1),
                                 "p95": round(pct(busy["advance"], 95), 1)}
    figures["ok"] = erp_ok and complete and workers_alive == len(workers)
    return figures


def worker_busy(workers) -> dict:
    """What the workers' own logs say: milliseconds per advance() call, seconds busy per worker."""
    import re

    done = re.compile(r"Task (\S+)\[[^]]+\] succeeded in ([0-9.]+)s")
    advance, seconds = [], []
    for _proc, log in workers:
        total = 0.0
        for name, took in done.findall(log.read_text(errors="replace")):
            total += float(took)
            if name == "procurement.tasks.advance":
                advance.append(float(took) * 1000)
        seconds.append(total)
    return {"advance": advance, "seconds": seconds}


def measure_queries(users, approver_of) -> dict:
    """Queries of each call for one request run in this process, Celery eager.

    Eager mode would run each advance inside the one before it (advance chains itself), so
    advance.delay and dispatch_outbox.delay are caught in a queue here and each call is run,
    and counted, on its own."""
    from unittest import mock

    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from agentstate.models import Approval, Task
    from procurement.purchase import services
    from procurement import workflow
    from procurement.celery import app
    from procurement.tasks import advance, dispatch_outbox

    from django.conf import settings

    app.conf.task_always_eager = True
    # Each step on its own (a worker runs a task's due steps in a row; the run above measured that).
    steps_per_claim, settings.AGENT_STEPS_PER_CLAIM = settings.AGENT_STEPS_PER_CLAIM, 1
    calls: list[tuple[str, str | None]] = []
    measured = {}  # label -> (what was called, [queries], [ms])

    def measure(label, what, call):
        with CaptureQueriesContext(connection) as captured:
            began = time.perf_counter()
            result = call()
            took = (time.perf_counter() - began) * 1000
        entry = measured.setdefault(label, (what, [], []))
        entry[1].append(len(captured))
        entry[2].append(took)
        return result

    real_advance, real_dispatch = (app.tasks[t.name] for t in (advance, dispatch_outbox))
    with mock.patch.object(real_advance, "delay", lambda task_id: calls.append(("advance", str(task_id)))), \
            mock.patch.object(real_dispatch, "delay", lambda: calls.append(("dispatch_outbox", None))):
        task = measure("submit", "request_submit", lambda: services.request_submit(
            requester=users["alice"], department="ENG", justification="measured",
            lines=[{"description": "Laptop", "quantity": 1}, {"description": "Monitor", "quantity": 2}]))
        for _ in range(50):
            while calls:
                what, task_id = calls.pop(0)
                if what == "advance":
                    step = Task.objects.values_list("step", flat=True).get(pk=task_id)
                    measure(step, "advance()", lambda: real_advance.apply((task_id,)))
                else:
                    measure("(outbox)", "dispatch_outbox()", real_dispatch.apply)
            task.refresh_from_db()
            if task.state != workflow.AWAITING_APPROVAL:
                break
            approval = Approval.objects.get(task=task, status=Approval.Status.PENDING)
            measure("approve", "approval_decide", lambda: services.approval_decide(
                approval_id=approval.pk, user=approver_of["ENG"], decision="approve",
                state_version=approval.state_version, scope_hash=approval.scope_hash))
    app.conf.task_always_eager = False
    settings.AGENT_STEPS_PER_CLAIM = steps_per_claim
    if task.state != workflow.CONFIRMED:
        print(f"note: the in-process request ended in {task.state}, not {workflow.CONFIRMED}")
    return measured


if __name__ == "__main__":
    main()

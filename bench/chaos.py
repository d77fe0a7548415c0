"""Purchase requests under chaos: workers killed with SIGKILL and an ERP that fails on 20% of calls.

    .venv/bin/python bench/chaos.py [--requests 200] [--chaos-seconds 120] [--settle-seconds 150] [--json out.json]

Like bench/workflow.py (its helpers, two `celery worker --pool=solo` processes, PostgreSQL, Redis
db 9, the ERP simulator on 127.0.0.1), on its own database `procurement_bench_chaos`, dropped
at the end. Leases last 8 s and recovery runs every 2 s in this process (a runnable task idle for
30 s is handed out again), so a killed worker's task comes back within seconds.

For `--chaos-seconds` (or until every task has settled, if sooner):
- about every 3 s one worker process is killed with SIGKILL and a new one started: one that holds
  a lease at that moment (a step is running), waiting up to 5 s for one, so nearly every kill
  interrupts a step and gives a recovery to time;
- the ERP answers 20% of protocol calls badly, drawn at random (erpsim `rate` faults): 7% a
  503, 6.5% do the work then drop the connection, 6.5% answer after 1.5 s;
- 25 s in, the ERP is down (every call 503) for 20 s.
Then faults are cleared and killing stops; the run waits up to `--settle-seconds` for every task
to be terminal or in needs_review, and checks: lost tasks (neither), ERP duplicates (a task with
more than one requisition or purchase order), receipts and ERP both ways (every ERP record known
to a confirmed receipt, every confirmed receipt's record in the ERP), stage drift (a task whose
state disagrees with the ERP: confirmed without a purchase order, or a purchase order behind a
task that is neither confirmed nor in review), duplicate executions (an ERP write executed twice:
a second requisition or purchase order for one task; resends with the same key, each after a
lookup, are counted beside it), and recovery time: from the moment a killed worker's lease
expired to the first move a worker made on that task afterwards (the step ran again).
Exit status 1 if a task is lost or never moved again, a duplicate exists or receipts and ERP disagree.
"""
import argparse
import json
import os
import random
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import servers  # noqa: E402
from bench import workflow as wf  # noqa: E402
from bench.pgadmin import database_url, pct, recreate_database, server_params, teardown_database  # noqa: E402

DB_NAME = "procurement_bench_chaos"
LEASE_SECONDS = 8
RECOVERY_EVERY = 2.0
KILL_EVERY = 3.0
HOLDER_WAIT = 5.0  # how long a due kill waits for a worker that holds a lease before killing any
DOWN_AT, DOWN_FOR = 25.0, 20.0
PG_RESTART_AT, REDIS_RESTART_AT = 0.4, 0.7  # of --chaos-seconds
PROBE_EVERY = 0.5
RATE_FAULTS = [{"mode": "error", "rate": 0.07}, {"mode": "drop", "rate": 0.07},
               {"mode": "slow", "rate": 0.075, "delay": 1.5}]


def set_faults(erp_url: str, faults: list[dict]):
    import requests

    requests.delete(erp_url + "/_faults", timeout=5).raise_for_status()
    for fault in faults:
        requests.post(erp_url + "/_faults", json=fault, timeout=5).raise_for_status()


class Pool:
    """The worker processes, by slot; a killed one is replaced at once by a new process."""

    def __init__(self, children, workdir, env, count):
        self.children, self.workdir, self.env = children, workdir, env
        self.started = 0
        self.slots = [self._start() for _ in range(count)]
        wf.wait_ready(children, self.slots)

    def _start(self):
        self.started += 1
        return wf.start_worker(self.children, self.workdir, self.started, self.env)

    def holding_a_lease(self) -> list[int]:
        """The slots whose worker holds a task's lease right now (its step is running)."""
        from django.utils import timezone

        from agentstate.models import Task

        holders = Task.objects.filter(lease_until__gt=timezone.now()).values_list("leased_by", flat=True)
        pids = {holder.rsplit(":", 1)[-1] for holder in holders}
        return [slot for slot, (proc, _log) in enumerate(self.slots) if str(proc.pid) in pids]

    def kill_one(self, rng, slots: list[int] | None = None) -> int:
        slot = rng.choice(slots) if slots else rng.randrange(len(self.slots))
        proc, _log = self.slots[slot]
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        self.slots[slot] = self._start()
        return proc.pid


class RecoveryClock:
    """The tasks a killed worker held, and afterwards how long each took to move again: from the
    moment its lease expired to the first move made on it after that (the step ran again and
    recorded its result, in a worker or in recovery settling a receipt; recovery's notes do not count)."""

    def __init__(self):
        self.watch: list = []  # (task id, old lease_until, killed at, runnable then); a task may recur

    def killed(self, pid: int, at: float) -> int:
        from django.utils import timezone

        from agentstate.models import Task

        held = Task.objects.filter(leased_by__endswith=f":{pid}", lease_until__gt=timezone.now()).values_list(
            "pk", "lease_until", "runnable")
        self.watch += [(pk, until, at, runnable) for pk, until, runnable in held]
        return len(held)

    def measure(self) -> dict:
        from agentstate.models import TaskEvent

        times, fenced, nothing_to_resume, not_resumed = [], [], 0, 0
        for pk, until, _at, runnable in self.watch:
            noticed = (TaskEvent.objects.filter(task_id=pk, at__gt=until, event="recovery.lease_expired")
                       .order_by("at").values_list("at", flat=True).first())
            if noticed is not None:
                fenced.append((noticed - until).total_seconds())
            # Recovery's own notes are "recovery.*" events; a move it makes (a receipt it settled
            # taking the step on, in this process) is the task moving again like a worker's.
            after = (TaskEvent.objects.filter(task_id=pk, at__gt=until).exclude(event__startswith="recovery.")
                     .order_by("at").values_list("at", flat=True).first())
            if after is not None:
                times.append((after - until).total_seconds())
            elif not runnable:
                nothing_to_resume += 1
            else:
                not_resumed += 1
        return {"n": len(times), "p50": round(pct(times, 50), 2) if times else None,
                "p95": round(pct(times, 95), 2) if times else None, "all": [round(t, 2) for t in sorted(times)],
                "nothing_to_resume": nothing_to_resume, "not_resumed": not_resumed,
                # From expiry to recovery fencing the lease and handing the task back (the queue wait
                # behind the other tasks' steps comes after this).
                "fenced_p50": round(pct(fenced, 50), 2) if fenced else None,
                "fenced_p95": round(pct(fenced, 95), 2) if fenced else None, "fenced_all": sorted(fenced)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--chaos-seconds", type=float, default=120)
    parser.add_argument("--settle-seconds", type=float, default=150)
    parser.add_argument("--json")
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--shared-servers", action="store_true",
                        help="run on DATABASE_URL / CELERY_BROKER_URL, without restarting them")
    args = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="bench-chaos-"))
    own = None
    if not args.shared_servers:
        missing = servers.available()
        if missing:
            sys.exit(f"bench/chaos.py starts its own PostgreSQL and Redis to restart them; not found: {missing}. "
                     "Install Debian's postgresql and redis-server, or pass --shared-servers (no restarts).")
        own = (servers.PrivatePostgres(), servers.PrivateRedis(workdir))
        own[0].start()
        own[1].start()
        os.environ["DATABASE_URL"], os.environ["CELERY_BROKER_URL"] = own[0].url, own[1].url + "/0"
        print(f"chaos: its own PostgreSQL on port {own[0].port} and Redis on port {own[1].port}", flush=True)
    params = server_params("chaos.py")
    broker = wf.redis_url()
    os.environ.update({
        "DJANGO_SETTINGS_MODULE": "procurement.settings", "DATABASE_URL": database_url(params, DB_NAME),
        "CELERY_BROKER_URL": broker, "CELERY_TASK_ALWAYS_EAGER": "0", "VAR_DIR": str(workdir / "var"),
        "EMAIL_FILE_PATH": str(workdir / "mail"), "PYTHONUNBUFFERED": "1",
        "AGENT_LEASE_SECONDS": str(LEASE_SECONDS), "RECOVERY_STALE_SECONDS": "30", "ERP_TIMEOUT_SECONDS": "3",
    })
    (workdir / "var").mkdir()
    children, status = wf.Children(), 1
    try:
        status = run(args, params, broker, workdir, children, own)
    finally:
        children.stop()
        if own is None:
            wf.flush_redis(broker)
            database = teardown_database(params, DB_NAME, keep=args.keep)
        else:
            teardown_database(params, DB_NAME, keep=True)  # closes this process's connections
            database = "its own servers stopped" + (f", the cluster kept in {own[0].root}" if args.keep else
                                                    " and removed")
            own[0].stop(remove=not args.keep)
            own[1].stop()
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
        print(f"cleaned up: workers and ERP simulator stopped, Redis db {wf.REDIS_DB} flushed, {database}")
    sys.exit(status)


class Prober(threading.Thread):
    """What a person would have seen: every PROBE_EVERY s, `/healthz`, bob's inbox page and
    alice's chat asking for her status, over the product's own web server."""

    def __init__(self, base: str, auth: dict):
        super().__init__(daemon=True)
        self.base, self.auth, self.stopped = base, auth, threading.Event()
        self.seen: list[tuple[float, str, int]] = []  # (monotonic time, what, HTTP status; 0 = no answer)

    def requests(self):
        import urllib.request

        yield "healthz", urllib.request.Request(f"{self.base}/healthz")
        yield "inbox page", urllib.request.Request(f"{self.base}/approvals/", headers={"Cookie": self.auth["cookie"]})
        yield "chat", urllib.request.Request(
            f"{self.base}/api/v1/sessions/{self.auth['sessions'][0]}/messages/", method="POST",
            data=json.dumps({"text": "我的請購單到哪了？"}).encode(),
            headers={"Authorization": f"Token {self.auth['token']}", "Content-Type": "application/json"})

    def run(self):
        from bench.serve import one

        while not self.stopped.is_set():
            for what, request in self.requests():
                _took, status = one(request)
                self.seen.append((time.monotonic(), what, status))
            self.stopped.wait(PROBE_EVERY)

    def between(self, start: float, end: float) -> dict:
        """What each probe answered in [start, end]: {what: {status: count}}."""
        out: dict = {}
        for at, what, status in self.seen:
            if start <= at <= end:
                out.setdefault(what, Counter())[str(status)] += 1
        return {what: dict(counts) for what, counts in out.items()}

    def healthy_again(self, after: float, until: float) -> float | None:
        """Seconds from `after` to the first 200 from /healthz after its last failure in [after, until)."""
        health = [(at, status) for at, what, status in self.seen if what == "healthz" and after <= at < until]
        failed = [at for at, status in health if status != 200]
        if not failed:
            return 0.0
        ok = [at for at, status in health if status == 200 and at > failed[-1]]
        return round(ok[0] - after, 2) if ok else None


def moved_again(ids, runnable_then: set, at_wall, restart_s: float) -> dict:
    """After a restart that began at `at_wall`: the seconds to the product's first move, and to
    the moment every task that was runnable then had moved again (recovery's notes not counted)."""
    from django.db.models import Min

    from agentstate.models import TaskEvent

    later = TaskEvent.objects.filter(task_id__in=ids, at__gt=at_wall).exclude(event__startswith="recovery.")
    first = later.aggregate(first=Min("at"))["first"]
    per_task = dict(later.filter(task_id__in=runnable_then).values("task_id").annotate(first=Min("at"))
                    .values_list("task_id", "first"))
    waits = sorted((moved - at_wall).total_seconds() for moved in per_task.values())
    return {"restart_took_s": round(restart_s, 2),
            "first_move_s": round((first - at_wall).total_seconds(), 2) if first else None,
            "runnable_then": len(runnable_then), "runnable_moved_again": len(waits),
            "all_runnable_moved_s": round(waits[-1], 2) if waits and len(waits) == len(runnable_then) else None,
            "runnable_moved_p50_s": round(pct(waits, 50), 2) if waits else None}


def run(args, params, broker, workdir, children, own=None) -> int:
    recreate_database(params, DB_NAME)
    wf.flush_redis(broker)
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from agentstate.errors import DomainError
    from agentstate.models import Approval, Receipt, Task
    from procurement.infra import erp
    from procurement.purchase import services
    from procurement import workflow
    from procurement.celery import app
    from procurement.tasks import recover

    call_command("migrate", verbosity=0)
    call_command("seed_demo", verbosity=0, stdout=open(os.devnull, "w"))
    erp_url = wf.start_erp(children, workdir)
    settings.ERP_URL = erp_url
    app.conf.task_default_queue = wf.QUEUE
    pool = Pool(children, workdir, {**os.environ, "ERP_URL": erp_url}, args.workers)
    from bench import serve
    from django.db import DatabaseError, connections
    from django.utils import timezone

    web_port = servers.free_port()
    web = serve.start_server(database_url(params, DB_NAME), web_port, 2, workdir / "web.log")
    children.add("web", web, workdir / "web.log")
    prober = Prober(f"http://127.0.0.1:{web_port}", serve.credentials())
    restarts: dict = {}  # "postgres" / "redis" -> {"at_s", "began", "ended", "wall", "runnable", ...}
    print(f"chaos: {args.requests} requests, {args.workers} workers, lease {LEASE_SECONDS} s; SIGKILL about every "
          f"{KILL_EVERY:.0f} s, ERP faults on 20% of calls, ERP down {DOWN_FOR:.0f} s at {DOWN_AT:.0f} s; chaos "
          f"for at most {args.chaos_seconds:.0f} s, then up to {args.settle_seconds:.0f} s to settle", flush=True)

    users = {u.username: u for u in get_user_model().objects.filter(username__in=["alice", "erin", "bob", "dave"])}
    rng = random.Random(11)
    approver_of = {department: users[approver] for _r, department, approver in wf.REQUESTERS}
    settled_states = set(workflow.AGENT_DONE) | {workflow.NEEDS_REVIEW}  # the agent's part is over
    set_faults(erp_url, RATE_FAULTS)
    started = time.monotonic()
    ids = [services.request_submit(requester=users[requester], department=department, lines=wf.request_lines(rng),
                                   justification=f"chaos request {n}").pk
           for n, (requester, department, _a) in enumerate(
               (wf.REQUESTERS[i % 2] for i in range(args.requests)), start=1)]
    clock, kills, timeline = RecoveryClock(), [], []
    next_kill, next_recovery, down = started + KILL_EVERY, started + RECOVERY_EVERY, None
    chaos_until = started + args.chaos_seconds
    deadline = chaos_until + args.settle_seconds
    chaos_on, settled = True, 0

    def restart(name, action):
        wall = timezone.now()
        runnable = set(Task.objects.filter(pk__in=ids, runnable=True).values_list("pk", flat=True))
        began = time.monotonic()
        took = action()
        restarts[name] = {"at_s": round(began - started, 1), "began": began, "ended": time.monotonic(),
                          "wall": wall, "runnable": runnable, "took": took}
        print(f"{began - started:6.1f} s {name} restarted ({took:.1f} s; {len(runnable)} tasks runnable)", flush=True)

    def tick(now) -> int:
        nonlocal chaos_on, down, next_kill, next_recovery
        into = (now - started) / args.chaos_seconds
        if own is not None and chaos_on and "postgres" not in restarts and into >= PG_RESTART_AT:
            restart("postgres", own[0].restart_fast)
            connections.close_all()
        if own is not None and chaos_on and "redis" not in restarts and into >= REDIS_RESTART_AT:
            restart("redis", own[1].flush_and_restart)
        restarts_due = own is not None and len(restarts) < 2  # the chaos lasts until both restarts are done
        if chaos_on and (now >= chaos_until or (settled == len(ids) and not restarts_due)):
            chaos_on = False
            set_faults(erp_url, [])
            print(f"{now - started:6.1f} s chaos over: faults cleared, no more kills", flush=True)
        if chaos_on and down is None and now - started >= DOWN_AT:
            set_faults(erp_url, [{"mode": "down"}])
            down = now
            print(f"{now - started:6.1f} s ERP down", flush=True)
        if chaos_on and down is not None and down > 0 and now - down >= DOWN_FOR:
            set_faults(erp_url, RATE_FAULTS)
            down = -1.0
            print(f"{now - started:6.1f} s ERP back (20% faults)", flush=True)
        holding = pool.holding_a_lease() if chaos_on and now >= next_kill else []
        if chaos_on and now >= next_kill and (holding or now >= next_kill + HOLDER_WAIT):
            pid = pool.kill_one(rng, holding)
            held = clock.killed(pid, now - started)
            kills.append({"at_s": round(now - started, 1), "pid": pid, "held_leases": held})
            print(f"{now - started:6.1f} s SIGKILL worker pid {pid} (holding {held} lease)", flush=True)
            next_kill = now + rng.uniform(0.8, 1.2) * KILL_EVERY
        if now >= next_recovery:
            try:
                recover()
            except Exception as exc:  # noqa: BLE001 - the ERP may be down; recovery tries again
                print(f"{now - started:6.1f} s recovery pass failed: {exc}", flush=True)
            next_recovery = now + RECOVERY_EVERY
        for pk, tenant, version, digest in Approval.objects.filter(
                task_id__in=ids, status=Approval.Status.PENDING).values_list(
                "pk", "task__tenant", "state_version", "scope_hash"):
            try:
                services.approval_decide(approval_id=pk, user=approver_of[tenant], decision="approve",
                                         state_version=version, scope_hash=digest)
            except DomainError:
                pass
        done = Task.objects.filter(pk__in=ids, state__in=settled_states).count()
        timeline.append((round(now - started, 2), done))
        return done

    prober.start()
    while time.monotonic() < deadline:
        now = time.monotonic()
        try:
            settled = tick(now)
        except DatabaseError as exc:  # the database is restarting: the loop goes on, as a person would
            connections.close_all()
            print(f"{now - started:6.1f} s the database is away ({type(exc).__name__})", flush=True)
            time.sleep(0.5)
            continue
        if settled == len(ids) and not chaos_on:
            break
        time.sleep(0.1)

    wall = time.monotonic() - started
    set_faults(erp_url, [])
    prober.stopped.set()
    prober.join(10)
    restarted = {}
    begins = sorted(r["began"] for r in restarts.values())
    for name, r in restarts.items():
        until = next((b for b in begins if b > r["began"]), float("inf"))
        restarted[name] = {"at_s": r["at_s"], **moved_again(ids, r["runnable"], r["wall"], r["took"]),
                           "healthz_ok_again_s": prober.healthy_again(r["began"], until),
                           # What each probe answered from the restart until 10 s after the server was back.
                           "seen": prober.between(r["began"], r["ended"] + 10)}

    states = Counter(Task.objects.filter(pk__in=ids).values_list("state", flat=True))
    lost = sum(n for state, n in states.items() if state not in settled_states)
    requisitions = wf.erp_get(erp_url, "/requisitions")["results"]
    orders = wf.erp_get(erp_url, "/purchase-orders")["results"]
    per_req, per_po = Counter(r["external_ref"] for r in requisitions), Counter(r["external_ref"] for r in orders)
    duplicates = sum(n - 1 for n in per_req.values() if n > 1) + sum(n - 1 for n in per_po.values() if n > 1)
    creates = Receipt.objects.filter(task_id__in=ids, operation__in=[erp.CREATE_REQUISITION,
                                                                     erp.ISSUE_PURCHASE_ORDER])
    confirmed = {(op, ext) for op, ext in creates.filter(status="confirmed").values_list("operation",
                                                                                         "external_id")}
    in_erp = {(erp.CREATE_REQUISITION, r["id"]) for r in requisitions} | {
        (erp.ISSUE_PURCHASE_ORDER, o["id"]) for o in orders}
    erp_unknown_to_receipts = sorted(in_erp - confirmed)
    receipts_unknown_to_erp = sorted(confirmed - in_erp)
    task_state = dict(Task.objects.filter(pk__in=ids).values_list("pk", "state"))
    drift = [str(pk) for pk, state in task_state.items()
             if (state == workflow.CONFIRMED and per_po[str(pk)] == 0)
             or (per_po[str(pk)] > 0 and state not in (workflow.CONFIRMED, workflow.NEEDS_REVIEW))]
    sends = list(creates.values_list("attempts", flat=True))
    resends = sum(max(0, a - 1) for a in sends)
    recovery = clock.measure()
    result = {
        "requests": len(ids), "workers": args.workers, "wall_s": round(wall, 1), "kills": kills,
        "kill_every_s": KILL_EVERY, "holder_wait_s": HOLDER_WAIT,
        "states": dict(states), "lost_tasks": lost, "needs_review": states.get(workflow.NEEDS_REVIEW, 0),
        "erp": {"requisitions": len(requisitions), "purchase_orders": len(orders), "duplicates": duplicates,
                "records_without_confirmed_receipt": len(erp_unknown_to_receipts),
                "confirmed_receipts_missing_in_erp": len(receipts_unknown_to_erp)},
        "stage_drift": {"tasks": len(drift), "rate": round(len(drift) / len(ids), 4)},
        # An ERP write executed twice would be a second requisition or purchase order for one task.
        "duplicate_execution": {"erp_writes": len(requisitions) + len(orders), "executed_twice": duplicates,
                                "rate": round(duplicates / max(1, len(requisitions) + len(orders)), 4),
                                "erp_write_receipts": len(sends), "resends_same_key": resends},
        "recovery_s": recovery,
        "restarts": restarted if own is not None else "not run (--shared-servers)",
        "probes": {"answers": len(prober.seen), "server_errors": sum(1 for _a, _w, st in prober.seen if st >= 500
                                                                     and st != 503)},
        "settled_over_time": timeline[::10],
        "faults": {"rate_faults": RATE_FAULTS, "down_at_s": DOWN_AT, "down_for_s": DOWN_FOR},
    }
    ok = (lost == 0 and duplicates == 0 and not erp_unknown_to_receipts and not receipts_unknown_to_erp
          and recovery["not_resumed"] == 0
          and all(r["runnable_moved_again"] == r["runnable_then"] for r in restarted.values()))
    result["pass"] = ok
    print(f"\nafter {wall:.0f} s: states {dict(states)}; lost {lost}")
    print(f"kills: {len(kills)} SIGKILLs, {sum(k['held_leases'] for k in kills)} while holding a lease; "
          f"recovery (lease expiry -> the step's next move) n={recovery['n']} p50 {recovery['p50']} s "
          f"p95 {recovery['p95']} s (expiry -> fenced and handed back: p50 {recovery['fenced_p50']} s p95 "
          f"{recovery['fenced_p95']} s); {recovery['nothing_to_resume']} had nothing left to run, "
          f"{recovery['not_resumed']} never moved again")
    print(f"ERP: {len(requisitions)} requisitions, {len(orders)} purchase orders, duplicates {duplicates}; "
          f"ERP records without a confirmed receipt {len(erp_unknown_to_receipts)}, confirmed receipts missing in "
          f"the ERP {len(receipts_unknown_to_erp)}")
    print(f"stage drift: {len(drift)} tasks ({result['stage_drift']['rate']:.1%}); duplicate executions: "
          f"{duplicates} of {len(requisitions) + len(orders)} ERP writes ({result['duplicate_execution']['rate']:.1%});"
          f" {resends} resends with the same key over {len(sends)} ERP-write receipts (after a 503 or a dropped "
          "answer, each looked up first)")
    for name, r in restarted.items():
        print(f"{name} restarted at {r['at_s']} s (took {r['restart_took_s']} s): first move after "
              f"{r['first_move_s']} s; {r['runnable_moved_again']} of {r['runnable_then']} runnable tasks moved again, "
              f"all after {r['all_runnable_moved_s']} s (p50 {r['runnable_moved_p50_s']} s); /healthz 200 again after "
              f"{r['healthz_ok_again_s']} s; seen meanwhile: {r['seen']}")
    print(f"probes: {result['probes']['answers']} answers, {result['probes']['server_errors']} server errors "
          "other than 503")
    print("PASS" if ok else "FAIL")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    main()

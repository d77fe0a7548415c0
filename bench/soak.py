"""Retention under load: N tasks through a purchase-shaped workflow, then one pruning pass.

    .venv/bin/python bench/soak.py [--tasks 10000] [--json out.json] [--keep]

On its own database `procurement_bench_soak` (dropped and recreated; server from DATABASE_URL when
that is PostgreSQL). Each task runs the purchase path through the engine (agentstate.machine.fire):
draft → received → processing (award, route, budget, requisition) → awaiting_approval → submitted →
externally_confirmed, 10 checkpoints of a ~1.5 KB state, two receipts (requisition, purchase order)
written around their effects, one approval, and a 24-turn conversation. Then everything is aged 40
days (the tasks ended, the turns are old) and one pass of agentstate.retention.state_prune runs
with the policy below. It prints rows per table and the database size before and after pruning
(after VACUUM FULL of the pruned tables, which is when the space is given back), and the pass's time.
"""
import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.pgadmin import database_url, recreate_database, server_params, teardown_database  # noqa: E402

DB_NAME = "procurement_bench_soak"
TABLES = ("agentstate_task", "agentstate_taskevent", "agentstate_checkpoint", "agentstate_receipt",
          "agentstate_approval", "agentstate_session", "agentstate_turn")
PATH = [("submit", {}), ("start", {}), ("record", {"award": "award"}), ("record", {"route": "route"}),
        ("record", {"budget": "reserved"}), ("record", {"requisition": "REQ"}), ("request_approval", {}),
        ("approve", {}), ("confirm", {"purchase_order": "PO"})]


def register_kind():
    from agentstate.kinds import RUNTIME, TaskKind, Transition, register

    t = Transition
    register(TaskKind(name="soak", initial="draft", terminal=frozenset({"externally_confirmed"}),
                      runnable=frozenset({"received", "processing", "submitted"}), transitions=[
                          t("draft", "submit", "received", (RUNTIME,)), t("received", "start", "processing", (RUNTIME,)),
                          t("processing", "record", "processing", (RUNTIME,)),
                          t("processing", "request_approval", "awaiting_approval", (RUNTIME,)),
                          t("awaiting_approval", "approve", "submitted", (RUNTIME,), supersedes_approvals=False),
                          t("submitted", "confirm", "externally_confirmed", (RUNTIME,))]))


def state_of(i: int) -> dict:
    lines = [{"description": d, "item": d, "quantity": 2, "unit_price": "35000.00", "amount": "70000.00"}
             for d in ("Laptop", "Monitor", "Keyboard", "USB-C dock")]
    return {"revision": 1, "justification": f"soak request {i} for the platform team's new hires",
            "draft": {"department": "ENG", "lines": lines}, "question": "",
            "comparison": [{"supplier": f"Supplier {s}", "total": "293580.00", "lead_time_days": 5 + s}
                           for s in range(4)]}


def run_one(i: int, user, bob):
    from agentstate.actors import Actor
    from agentstate.approvals import approval_open
    from agentstate.machine import fire, task_create
    from agentstate.models import Receipt, Session, Turn
    from agentstate.receipts import receipt_plan

    actor = Actor.runtime("soak")
    task = task_create(kind="soak", initiator=user, tenant="ENG", data=state_of(i), step="start")
    for n, (event, data) in enumerate(PATH):
        refs = []
        if event == "record" and "requisition" in data or event == "confirm":
            operation = "erp.requisition.create" if event == "record" else "erp.purchase_order.issue"
            receipt = receipt_plan(task=task, operation=operation, scope="r1", request={"task": str(task.pk)})
            Receipt.objects.filter(pk=receipt.pk).update(status="confirmed", external_id=f"{operation}-{i}")
            refs = [{"receipt": str(receipt.pk), "external_id": f"{operation}-{i}"}]
        task = fire(task.pk, event, actor=actor, expected_version=task.version, data=data or None, refs=refs,
                    step=f"s{n}")
        if event == "request_approval":
            approval_open(task=task, scope={"total": "293580.00"}, approvers=[bob], rule={}, ttl_seconds=86400)
    session = Session.objects.create(owner=user, task=task)
    Turn.objects.bulk_create(Turn(session=session, seq=s, role="agent" if s % 2 == 0 else "user",
                                  text=f"turn {s} of request {i}", data={"task": str(task.pk), "did": "none"})
                             for s in range(1, 25))


def table_sizes() -> dict:
    from django.db import connection

    with connection.cursor() as cursor:
        rows = {}
        for table in TABLES:
            cursor.execute(f"SELECT count(*), pg_total_relation_size('{table}') FROM {table}")
            count, size = cursor.fetchone()
            rows[table] = {"rows": count, "bytes": size}
        cursor.execute("SELECT pg_database_size(current_database())")
        return {"tables": rows, "database_bytes": cursor.fetchone()[0]}


def age_everything(days: int = 40):
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("UPDATE agentstate_task SET updated_at = now() - %s * interval '1 day'", [days])
        cursor.execute("UPDATE agentstate_turn SET created_at = now() - %s * interval '1 day'", [days])
        cursor.execute("UPDATE agentstate_session SET updated_at = now() - %s * interval '1 day'", [days])


def vacuum_full():
    from django.db import connection

    with connection.cursor() as cursor:
        for table in TABLES:
            cursor.execute(f"VACUUM FULL {table}")
        cursor.execute("CHECKPOINT")  # the old files of a rewritten table go at the next checkpoint


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=10000)
    parser.add_argument("--json", help="write the figures to this file")
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    args = parser.parse_args()
    params = server_params("soak.py")
    recreate_database(params, DB_NAME)
    os.environ["DATABASE_URL"] = database_url(params, DB_NAME)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "procurement.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from django.contrib.auth import get_user_model

    from agentstate.retention import Policy, state_prune

    register_kind()
    users = get_user_model().objects
    alice, bob = users.create_user("alice", password="x"), users.create_user("bob", password="x")
    started = time.perf_counter()
    for i in range(args.tasks):
        run_one(i, alice, bob)
        if (i + 1) % 1000 == 0:
            print(f"{i + 1} tasks in {time.perf_counter() - started:.0f} s", flush=True)
    workflow_seconds = time.perf_counter() - started
    age_everything()
    vacuum_full()
    before = table_sizes()
    policy = Policy(checkpoint_keep_latest=3, checkpoint_keep_days_after_end=30, session_idle_minutes=30,
                    session_expire_days=90, session_compact_after_turns=10, session_keep_recent_turns=4,
                    turn_retention_days=30)
    started = time.perf_counter()
    report = state_prune(policy=policy)
    prune_seconds = time.perf_counter() - started
    after_pass = table_sizes()["database_bytes"]
    vacuum_full()
    after = table_sizes()
    figures = {"tasks": args.tasks, "workflow_seconds": round(workflow_seconds, 1),
               "prune_seconds": round(prune_seconds, 2), "policy": policy.__dict__, "report": report.lines(),
               "before": before, "after": after, "database_bytes_after_pass_before_vacuum": after_pass}
    print(f"{args.tasks} tasks through the workflow in {workflow_seconds:.0f} s; one pruning pass: "
          f"{prune_seconds:.2f} s")
    for line in report.lines():
        print("  " + line)
    print(f"{'table':28} {'rows before':>12} {'rows after':>11} {'MB before':>10} {'MB after':>9}")
    for table in TABLES:
        b, a = before["tables"][table], after["tables"][table]
        print(f"{table:28} {b['rows']:>12,} {a['rows']:>11,} {b['bytes'] / 1e6:>10.1f} {a['bytes'] / 1e6:>9.1f}")
    print(f"database: {before['database_bytes'] / 1e6:.1f} MB before, {after['database_bytes'] / 1e6:.1f} MB after "
          f"pruning and VACUUM FULL ({after_pass / 1e6:.1f} MB right after the pass)")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))
    print(teardown_database(params, DB_NAME, keep=args.keep))


if __name__ == "__main__":
    main()

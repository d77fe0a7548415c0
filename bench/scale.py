"""Pages that stay fast: every page of the inbox, approvals, requester home, work queue and AP queue at
100,000 tasks, then at 1,000,000 decided approvals, with an EXPLAIN of every query each page runs.

    .venv/bin/python bench/scale.py [--tasks 100000] [--approvals 1000000] [--renders 20] [--json out.json] [--keep]

On its own database, named after DATABASE_URL's with `_scale` added (`procurement_bench_scale`
under `make bench`; dropped and recreated), after `migrate`, `seed_demo` and bench/pages.py's 500
pending approvals on bob's route:
1. the engine's tables are filled by SQL (generate_series) to `--tasks` finished tasks, as
   bench/growth.py fills them (one in ten with an approval bob decided), and decided approvals
   are added up to as many as there are tasks, each with its approver row and its decision row,
   spread over those tasks and 200 approvers (bob decides 1 in 100 of them);
2. then decided approvals are added the same way up to `--approvals` in all.
After each stage (VACUUM ANALYZE), each page is rendered with django.test.Client, logged in as the
person who reads it: p50/p95 over `--renders` renders and its queries per render. Every SELECT a
page runs (CaptureQueriesContext) is then EXPLAINed (ANALYZE, BUFFERS), and a sequential scan of a
table that grows with the tasks (bench/growth.py's FLAGGED_TABLES) is flagged when it read 10,000
rows or more; one that stopped early (under a LIMIT or an EXISTS) is listed with the rows it read.

Seconds depend on the machine's load (printed with the figures); the plans and query counts do not.
"""
import argparse
import io
import json
import os
import random
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.pgadmin import database_url, pct, recreate_database, server_params, teardown_database  # noqa: E402

DB_NAME = "procurement_bench_scale"
APPROVERS = 200


def database_name() -> str:
    from urllib.parse import unquote, urlsplit

    named = unquote(urlsplit(os.environ.get("DATABASE_URL", "")).path.lstrip("/"))
    return f"{named}_scale" if named else DB_NAME


def fill_approvals(total: int, bob_id: int, approver_ids: list[int]):
    """Add decided approvals (approved, 1 in 10 rejected) until there are `total`, each with its
    approver row and its decision row, on the filler tasks round robin; bob decides 1 in 100."""
    from django.db import connection, transaction

    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM agentstate_approval")
        add = total - cursor.fetchone()[0]
        if add <= 0:
            return
        cursor.execute("CREATE TEMP TABLE scale_tasks AS SELECT row_number() OVER (ORDER BY id) AS k, id, tenant "
                       "FROM agentstate_task WHERE kind = 'purchase' AND state = 'externally_confirmed'")
        cursor.execute("SELECT count(*) FROM scale_tasks")
        tasks = cursor.fetchone()[0]
        cursor.execute("CREATE TEMP TABLE scale_approvers (k int, user_id int)")
        cursor.execute("INSERT INTO scale_approvers SELECT ordinality - 1, u FROM unnest(%s::int[]) WITH ORDINALITY u",
                       [approver_ids])
        cursor.execute("""
            CREATE TEMP TABLE scale_new AS
            SELECT gen_random_uuid() AS id, t.id AS task_id,
                   CASE WHEN g %% 100 = 0 THEN %s ELSE a.user_id END AS user_id,
                   CASE WHEN g %% 10 = 3 THEN 'rejected' ELSE 'approved' END AS status,
                   now() - (g || ' seconds')::interval AS at
              FROM generate_series(1, %s) g
              JOIN scale_tasks t ON t.k = 1 + g %% %s
              JOIN scale_approvers a ON a.k = g %% %s""", [bob_id, add, tasks, len(approver_ids)])
        cursor.execute("""
            INSERT INTO agentstate_approval (id, task_id, state_version, scope, scope_hash, rule, chain, step, status,
                 expires_at, decided_by_id, decided_at, comment, created_at)
            SELECT id, task_id, 2, '{}'::jsonb, md5(id::text), '{}'::jsonb, '[]'::jsonb, 0, status,
                   at + interval '3 days', user_id, at, '', at - interval '1 hour'
              FROM scale_new""")
        cursor.execute("INSERT INTO agentstate_approval_approvers (approval_id, user_id) "
                       "SELECT id, user_id FROM scale_new")
        cursor.execute("INSERT INTO agentstate_approvaldecision (approval_id, step, decided_by_id, decision, comment, at)"
                       " SELECT id, 0, user_id, status, '', at FROM scale_new")
        cursor.execute("DROP TABLE scale_new, scale_tasks, scale_approvers")


def pages(made, users) -> list[tuple[str, str, str]]:
    """(label, username, url) of each page a person reads."""
    from django.urls import reverse

    inbox = reverse("approval-inbox")
    listed = []
    for tab in ("pending", "decided", "all"):
        listed.append((f"inbox {tab}", "bob", f"{inbox}?tab={tab}"))
        listed.append((f"inbox {tab}, department ENG", "bob", f"{inbox}?tab={tab}&department=ENG"))
    listed += [
        ("inbox all, page 2", "bob", f"{inbox}?tab=all&page=2"),
        ("inbox pending (dave)", "dave", inbox),
        ("approval page", "bob", reverse("approval-page", args=[made["small"].pk])),
        ("approval page, 200 lines", "bob", reverse("approval-page", args=[made["big"].pk])),
        ("requester home (alice)", "alice", reverse("home")),
        ("my requests (alice)", "alice", reverse("my-requests")),
        ("work queue (carol, admin)", "carol", reverse("review-queue")),
        ("work queue (bob, manager)", "bob", reverse("review-queue")),
        ("AP queue (carol)", "carol", reverse("invoices")),
    ]
    return listed


def render(client, url, renders) -> dict:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    for _ in range(2):
        response = client.get(url)
        assert response.status_code == 200, (url, response.status_code)
    took = []
    for _ in range(renders):
        started = time.perf_counter()
        response = client.get(url)
        took.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, url
    with CaptureQueriesContext(connection) as captured:
        client.get(url)
    return {"url": url, "p50_ms": round(pct(took, 50), 1), "p95_ms": round(pct(took, 95), 1),
            "queries": len(captured), "sql": [q["sql"] for q in captured.captured_queries]}


SEQ_READ_LIMIT = 10_000  # rows a sequential scan of a big table may read before it is flagged


def seq_scans_read(plan: list[str]) -> dict:
    """Rows each sequential scan of a big table read, {table: rows}: (rows returned + rows removed by
    its filter) x loops. A scan under a LIMIT or an EXISTS stops early and reads a few pages."""
    from bench.growth import FLAGGED_TABLES

    read = {}
    for i, line in enumerate(plan):
        found = re.search(r"Seq Scan on (\S+) .*rows=(\d+) loops=(\d+)", line)
        if not found or found.group(1) not in FLAGGED_TABLES:
            continue
        removed = 0
        depth = len(line) - len(line.lstrip())
        for below in plan[i + 1:]:
            if len(below) - len(below.lstrip()) <= depth or "->" in below:
                break
            if (gone := re.search(r"Rows Removed by Filter: (\d+)", below)):
                removed = int(gone.group(1))
        table = found.group(1)
        read[table] = read.get(table, 0) + (int(found.group(2)) + removed) * int(found.group(3))
    return read


def explain_page(statements) -> list[dict]:
    """EXPLAIN ANALYZE of each SELECT the page ran (a session or savepoint statement is left out);
    `seq_scans_of_big_tables` keeps only the scans that read SEQ_READ_LIMIT rows or more, and
    `partial_seq_scans` the others with the rows they read."""
    from bench.growth import explain

    plans = []
    for sql in statements:
        if not sql.lstrip().upper().startswith(("SELECT", "WITH")):
            continue
        plan = explain(sql)
        read = seq_scans_read(plan["plan"])
        plan["seq_scans_of_big_tables"] = sorted(t for t, n in read.items() if n >= SEQ_READ_LIMIT)
        plan["partial_seq_scans"] = {t: n for t, n in read.items() if n < SEQ_READ_LIMIT}
        plan["seq_rows_read"] = read
        plans.append(plan | {"sql": sql[:1500]})
    return plans


def measure(stage: str, made, users, renders) -> dict:
    from django.test import Client

    figures = {}
    clients = {}
    for label, username, url in pages(made, users):
        if username not in clients:
            clients[username] = Client()
            clients[username].force_login(users[username])
        page = render(clients[username], url, renders)
        plans = explain_page(page.pop("sql"))
        seq = sorted({f"{t} ({p['seq_rows_read'][t]:,} rows read)" for p in plans for t in p["seq_scans_of_big_tables"]})
        slowest = max(plans, key=lambda p: p["execution_ms"] or 0) if plans else None
        figures[label] = page | {"seq_scans": seq, "slowest": slowest,
                                 "flagged": [p for p in plans if p["seq_rows_read"]]}
        flag = f"  SEQ SCAN of {', '.join(seq)}" if seq else ""
        print(f"  {label}: p50 {page['p50_ms']} ms p95 {page['p95_ms']} ms, {page['queries']} queries, slowest "
              f"query {slowest['execution_ms'] if slowest else '-'} ms{flag}", flush=True)
    return figures


def run(args) -> dict:
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection

    from bench.growth import FLAGGED_TABLES, fill_to
    from bench.pages import seed_pages

    User = get_user_model()
    call_command("migrate", verbosity=0)
    if args.measure_only:  # the database a --keep run left, migrated to this code: its pages measured again
        from agentstate.models import Approval

        users = {u.username: u for u in User.objects.filter(username__in=["alice", "bob", "carol", "dave"])}
        big = Approval.objects.filter(state_version=13, status="pending").get()
        small = Approval.objects.filter(status="pending", task__initiator=users["alice"]).exclude(
            pk=big.pk).order_by("created_at").first()
        with connection.cursor() as cursor:
            for table in FLAGGED_TABLES:
                cursor.execute(f"ANALYZE {table}")
        return {"load_average_at_start": os.getloadavg(), "stages": [
            {"stage": "as left", "load_average": os.getloadavg(),
             "pages": measure("as left", {"big": big, "small": small}, users, args.renders)}]}
    call_command("seed_demo", verbosity=0, stdout=io.StringIO())
    made = seed_pages(random.Random(3))
    filler, _ = User.objects.get_or_create(username="bench-filler")
    User.objects.bulk_create([User(username=f"bench-approver-{k:03d}") for k in range(APPROVERS)])
    approver_ids = list(User.objects.filter(username__startswith="bench-approver-").values_list("pk", flat=True))
    users = {u.username: u for u in User.objects.filter(username__in=["alice", "bob", "carol", "dave"])}
    result = {"load_average_at_start": os.getloadavg(), "stages": []}
    def tasks():
        fill_to(args.tasks, users["alice"].pk, users["bob"].pk, filler.pk)
        fill_approvals(args.tasks, users["bob"].pk, approver_ids)

    for stage, fill in ((f"{args.tasks:,} tasks and as many decided approvals", tasks),
                        (f"{args.approvals:,} decided approvals",
                         lambda: fill_approvals(args.approvals, users["bob"].pk, approver_ids))):
        started = time.perf_counter()
        fill()
        with connection.cursor() as cursor:
            for table in FLAGGED_TABLES:
                cursor.execute(f"VACUUM ANALYZE {table}")
            cursor.execute("SELECT (SELECT count(*) FROM agentstate_task), (SELECT count(*) FROM agentstate_approval),"
                           " (SELECT count(*) FROM agentstate_approval WHERE decided_by_id = %s),"
                           " (SELECT count(*) FROM agentstate_approvaldecision)", [users["bob"].pk])
            rows = dict(zip(("tasks", "approvals", "approvals_bob_decided", "decisions"), cursor.fetchone()))
        print(f"\n{stage} (filled in {time.perf_counter() - started:.1f} s, load {os.getloadavg()[0]:.1f}): {rows}",
              flush=True)
        result["stages"].append({"stage": stage, "rows": rows, "load_average": os.getloadavg(),
                                 "pages": measure(stage, made, users, args.renders)})
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=100_000)
    parser.add_argument("--approvals", type=int, default=1_000_000)
    parser.add_argument("--renders", type=int, default=20)
    parser.add_argument("--json")
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--measure-only", action="store_true",
                        help="measure the pages of the database a --keep run left (migrated first), no filling")
    args = parser.parse_args()
    params = server_params("scale.py")
    name = database_name()
    os.environ["DATABASE_URL"] = database_url(params, name)
    os.environ["DJANGO_SETTINGS_MODULE"] = "procurement.settings"
    if args.measure_only:
        args.keep = True
    else:
        recreate_database(params, name)
    try:
        result = run(args)
        if args.json:
            Path(args.json).write_text(json.dumps(result, indent=2, default=str))
    finally:
        print(f"cleaned up: {teardown_database(params, name, keep=args.keep)}")


if __name__ == "__main__":
    main()

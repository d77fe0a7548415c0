"""Pages that stay fast: every page of the inbox, approvals, requester home and work queue at
100,000 tasks, then at 1,000,000 decided approvals, with an EXPLAIN of every query each page runs.

    .venv/bin/python bench/scale.py [--tasks 100000] [--approvals 1000000] [--renders 20] [--json out.json] [--keep]

On its own database, named after DATABASE_URL's with `_scale` added (`procurement_bench_scale`
under `make bench`; dropped and recreated), after `migrate`, `seed_demo` and bench/pages.py's 500
pending approvals on bob's route:
1. the engine's tables are filled by SQL (generate_series) to `--tasks` finished tasks, as
   bench/growth.py fills them (one in ten with an approval bob decided);
2. then decided approvals are added to `--approvals` in all, each with its approver row and its
   decision row, spread over those tasks and 200 approvers (bob decides 1 in 100 of them).
After each stage (VACUUM ANALYZE), each page is rendered with django.test.Client, logged in as the
person who reads it: p50/p95 over `--renders` renders and its queries per render. Every SELECT a
page runs (CaptureQueriesContext) is then EXPLAINed (ANALYZE, BUFFERS), and a sequential scan of a
table that grows with the tasks (bench/growth.py's FLAGGED_TABLES, 1,000 rows or more) is flagged.

Seconds depend on the machine's load (printed with the figures); the plans and query counts do not.
"""
import argparse
import io
import json
import os
import random
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
    from django.urls import NoReverseMatch, reverse

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
    ]
    for name in ("ap-queue", "payables", "ap-invoices", "accounts-payable"):  # not on main today
        try:
            listed.append(("AP queue (carol)", "carol", reverse(name)))
            break
        except NoReverseMatch:
            continue
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


def explain_page(statements) -> list[dict]:
    """EXPLAIN ANALYZE of each SELECT the page ran (a session or savepoint statement is left out)."""
    from bench.growth import explain

    plans = []
    for sql in statements:
        if not sql.lstrip().upper().startswith(("SELECT", "WITH")):
            continue
        plan = explain(sql)
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
        seq = sorted({t for p in plans for t in p["seq_scans_of_big_tables"]})
        slowest = max(plans, key=lambda p: p["execution_ms"] or 0) if plans else None
        figures[label] = page | {"seq_scans": seq, "slowest": slowest,
                                 "flagged": [p for p in plans if p["seq_scans_of_big_tables"]]}
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

    call_command("migrate", verbosity=0)
    call_command("seed_demo", verbosity=0, stdout=io.StringIO())
    made = seed_pages(random.Random(3))
    User = get_user_model()
    filler, _ = User.objects.get_or_create(username="bench-filler")
    User.objects.bulk_create([User(username=f"bench-approver-{k:03d}") for k in range(APPROVERS)])
    approver_ids = list(User.objects.filter(username__startswith="bench-approver-").values_list("pk", flat=True))
    users = {u.username: u for u in User.objects.filter(username__in=["alice", "bob", "carol", "dave"])}
    result = {"load_average_at_start": os.getloadavg(), "stages": []}
    for stage, fill in ((f"{args.tasks:,} tasks", lambda: fill_to(args.tasks, users["alice"].pk, users["bob"].pk,
                                                                   filler.pk)),
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
    args = parser.parse_args()
    params = server_params("scale.py")
    name = database_name()
    os.environ["DATABASE_URL"] = database_url(params, name)
    os.environ["DJANGO_SETTINGS_MODULE"] = "procurement.settings"
    recreate_database(params, name)
    try:
        result = run(args)
        if args.json:
            Path(args.json).write_text(json.dumps(result, indent=2, default=str))
    finally:
        print(f"cleaned up: {teardown_database(params, name, keep=args.keep)}")


if __name__ == "__main__":
    main()

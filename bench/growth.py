"""What a transition and a page cost as the tables grow: 1k, 10k and 100k tasks.

    .venv/bin/python bench/growth.py [--scales 1000,10000,100000] [--json out.json] [--keep]

On its own database, named after DATABASE_URL's with `_growth` added (`procurement_bench_growth`
under `make bench`, or when DATABASE_URL names none; dropped and recreated, so two people
running it side by side keep apart; server from DATABASE_URL when that is PostgreSQL), after `migrate` and `seed_demo`, with bench/pages.py's 500 pending
approvals on bob's route. At each scale the engine's tables are filled by SQL up to that many
tasks (each finished task with 3 events and 2 checkpoints; one in ten with an approval routed to
bob and decided by him, with its decision row; 1% of them alice's), then VACUUM ANALYZEd, and it
measures:
- a transition: fire() with its checkpoint on a task of its own (200 moves, p50/p95), and
  checkpoint_latest() after it;
- pages, rendered with django.test.Client: bob's approval inbox, one approval page, and the
  requester's home (her requests page if main has one, else her conversations), p50/p95 over
  20 renders and the queries per render;
- EXPLAIN (ANALYZE, BUFFERS) of the hot queries: fire()'s read and its move (in a transaction
  rolled back), checkpoint_latest(), the slowest query of each page, and the inbox's own by name
  (each tab's page of rows and its count, the department filter, what is routed to bob or whom he
  stands in for, what he decided, his grants, today's delegations), flagging a sequential scan of
  a big table (the engine's, the approvers, decisions, requests, delegations and grants).
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

DB_NAME = "procurement_bench_growth"


def database_name() -> str:
    """`<DATABASE_URL's database>_growth`, never that database itself; procurement_bench_growth without one."""
    from urllib.parse import unquote, urlsplit

    named = unquote(urlsplit(os.environ.get("DATABASE_URL", "")).path.lstrip("/"))
    return f"{named}_growth" if named else DB_NAME
BIG_TABLES = ("agentstate_task", "agentstate_taskevent", "agentstate_checkpoint", "agentstate_approval")
# Flagged when scanned whole too: the tables the inbox reads beside them, which grow with approvals
# (the approvers, each step's decisions, per-object grants) or with people and requests.
FLAGGED_TABLES = BIG_TABLES + ("agentstate_approval_approvers", "agentstate_approvaldecision",
                               "procurement_purchaserequest", "procurement_delegation", "procurement_approvalgrant",
                               "procurement_taskgrant")


def fill_to(n_tasks: int, alice_id: int, bob_id: int, filler_id: int):
    """Add finished purchase tasks (with events, checkpoints, some approvals) until there are n_tasks."""
    from django.db import connection, transaction

    # One transaction: the database's change guard checks at commit that each task's version has its event.
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM agentstate_task")
        have = cursor.fetchone()[0]
        add = n_tasks - have
        if add <= 0:
            return
        cursor.execute("CREATE TEMP TABLE IF NOT EXISTS filler (id uuid, n int)")
        cursor.execute("TRUNCATE filler")
        cursor.execute("INSERT INTO filler SELECT gen_random_uuid(), g FROM generate_series(1, %s) g", [add])
        cursor.execute("""
            INSERT INTO agentstate_task (id, kind, initiator_id, tenant, state, version, step, data, schema_version,
                 leased_by, lease_token, attempts, runnable, object_id, created_at, updated_at, trace_id)
            SELECT id, 'purchase', CASE WHEN n %% 100 = 0 THEN %s ELSE %s END,
                   CASE WHEN n %% 2 = 0 THEN 'ENG' ELSE 'OPS' END, 'externally_confirmed', 3, '',
                   jsonb_build_object('award', jsonb_build_object('total', '1050.00'), 'n', n), 1,
                   '', 0, 0, false, '', now() - (n || ' minutes')::interval, now() - (n || ' minutes')::interval,
                   replace(id::text, '-', '')
              FROM filler""", [alice_id, filler_id])
        cursor.execute("""
            INSERT INTO agentstate_taskevent (task_id, at, actor, event, from_state, to_state, version, reason,
                 trace_id, data)
            SELECT f.id, now(), 'runtime', e.event, e.f, e.t, e.v, '', md5(f.id::text), '{}'::jsonb
              FROM filler f, (VALUES ('create', '', 'draft', 1), ('submit', 'draft', 'received', 2),
                                     ('confirm', 'submitted', 'externally_confirmed', 3)) AS e(event, f, t, v)""")
        cursor.execute("""
            INSERT INTO agentstate_checkpoint (task_id, version, tenant, schema_version, label, cursor, depth, body,
                 checksum, created_at)
            SELECT f.id, c.v, 'ENG', 1, c.label, '', 0, b.body, encode(sha256(convert_to(b.body, 'UTF8')), 'hex'),
                   now()
              FROM filler f, (VALUES (1, 'create'), (3, 'confirm')) AS c(v, label),
                   LATERAL (SELECT jsonb_build_object('snapshot', jsonb_build_object('state', 'x', 'version', c.v,
                            'step', '', 'data', jsonb_build_object('n', f.n, 'pad', repeat('x', 400))),
                            'cursor', '', 'pending', '[]'::jsonb, 'external_refs', '[]'::jsonb, 'tenant', 'ENG',
                            'schema_version', 1)::text AS body) b""")
        cursor.execute("""
            INSERT INTO agentstate_approval (id, task_id, state_version, scope, scope_hash, rule, chain, step, status,
                 expires_at, decided_by_id, decided_at, comment, created_at)
            SELECT gen_random_uuid(), id, 2, '{}'::jsonb, md5(id::text), '{}'::jsonb, '[]'::jsonb, 0, 'approved',
                   now() + interval '1 day', %s, now() - (n || ' minutes')::interval, '',
                   now() - (n || ' minutes')::interval
              FROM filler WHERE n %% 10 = 0 AND n %% 2 = 0""", [bob_id])
        # As a decision leaves them: bob on the route, and his decision of its one step.
        cursor.execute("""
            INSERT INTO agentstate_approval_approvers (approval_id, user_id)
            SELECT a.id, %s FROM agentstate_approval a JOIN filler f ON f.id = a.task_id""", [bob_id])
        cursor.execute("""
            INSERT INTO agentstate_approvaldecision (approval_id, step, decided_by_id, decision, comment, at)
            SELECT a.id, 0, %s, 'approved', '', a.decided_at
              FROM agentstate_approval a JOIN filler f ON f.id = a.task_id""", [bob_id])


def explain(sql: str, params=None, rollback=False) -> dict:
    from django.db import connection, transaction

    class Rollback(Exception):
        pass

    plan = []
    try:
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) " + sql, params)
                plan = [row[0] for row in cursor.fetchall()]
            if rollback:
                raise Rollback
    except Rollback:
        pass
    text = "\n".join(plan)
    scanned = {t for t in FLAGGED_TABLES if re.search(rf"Seq Scan on {t}\b", text)}
    with connection.cursor() as cursor:  # a table of a few hundred rows is read whole in a page or two
        cursor.execute("SELECT relname FROM pg_class WHERE relname = ANY(%s) AND reltuples >= 1000", [list(scanned)])
        seq = sorted(row[0] for row in cursor.fetchall())
    indexes = sorted(set(re.findall(r"(?:(?:Index|Index Only) Scan(?: Backward)? using|Bitmap Index Scan on) (\S+)",
                                    text)))
    took = re.search(r"Execution Time: ([\d.]+) ms", text)
    return {"indexes": indexes, "seq_scans_of_big_tables": seq, "execution_ms": float(took.group(1)) if took else None,
            "plan": plan}


def inbox_queries(user) -> dict:
    """The queries behind the inbox and the approval page, each as the page builds it: the tabs' rows
    (a page of 20) and counts, the department filter, and the read layer's parts they are built of
    (what is routed to `user` or someone they stand in for, what they decided a step of, their grants,
    today's delegations)."""
    from agentstate.models import Approval
    from procurement import selectors
    from procurement.models.policy import Delegation
    from procurement.selectors.grants import approval_grants

    queries = {}
    for tab in selectors.INBOX_TABS:
        rows = selectors.inbox_approvals(user, tab=tab)
        queries[f"{tab} tab: a page of rows"] = rows[:20]
        # The paginator's count reads what this does: every matching id, unsorted.
        queries[f"{tab} tab: every id (the count)"] = rows.order_by().select_related(None).values("pk")
    queries["department filter"] = selectors.inbox_departments(user)
    queries["routed to bob or whom he stands in for"] = Approval.objects.filter(pk__in=selectors.routed_to(user))
    queries["decided by bob (a step, in person or for someone)"] = Approval.objects.filter(
        pk__in=selectors.decided_by(user))
    queries["approval page: the approval, if bob may read it"] = selectors.approvals_visible_to(user).filter(
        pk=Approval.objects.filter(status="pending").order_by("created_at").values("pk")[:1])
    queries["bob's grants"] = Approval.objects.filter(pk__in=approval_grants(user))
    queries["today's delegations"] = Delegation.objects.active().values_list(
        "delegator_id", "delegator__username", "delegate_id", "delegate__username")
    return queries


def time_fire(user, moves=200) -> dict:
    from agentstate.actors import Actor
    from agentstate.machine import checkpoint_latest, fire, task_create

    task = task_create(kind="bench_growth", initiator=user, tenant="BENCH", data={"n": 0, "lines": ["x" * 40] * 20})
    version, took, latest = task.version, [], []
    for i in range(moves):
        started = time.perf_counter()
        version = fire(task.pk, "pong" if version % 2 else "ping", actor=Actor.runtime("bench"),
                       expected_version=version, data={"n": i}).version
        took.append(time.perf_counter() - started)
        started = time.perf_counter()
        checkpoint_latest(task, tenant="BENCH")
        latest.append(time.perf_counter() - started)
    return {"fire_p50_ms": round(pct(took, 50) * 1000, 2), "fire_p95_ms": round(pct(took, 95) * 1000, 2),
            "latest_p50_ms": round(pct(latest, 50) * 1000, 2), "latest_p95_ms": round(pct(latest, 95) * 1000, 2),
            "task_id": str(task.pk), "version": version}


def render(client, url, renders=20) -> dict:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    for _ in range(2):
        assert client.get(url).status_code == 200, url
    took = []
    for _ in range(renders):
        started = time.perf_counter()
        response = client.get(url)
        took.append(time.perf_counter() - started)
        assert response.status_code == 200
    with CaptureQueriesContext(connection) as captured:
        client.get(url)
    slowest = max(captured.captured_queries, key=lambda q: float(q["time"]))
    return {"url": url, "p50_ms": round(pct(took, 50) * 1000, 1), "p95_ms": round(pct(took, 95) * 1000, 1),
            "queries": len(captured), "slowest_query": slowest["sql"]}


def requester_home_url() -> tuple[str, str]:
    from django.urls import NoReverseMatch, reverse

    for name in ("request-list", "my-requests", "requests", "requester-home"):
        try:
            return name, reverse(name)
        except NoReverseMatch:
            continue
    return "chat-sessions", reverse("chat-sessions")


def run(args):
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.urls import reverse

    from agentstate import sql
    from agentstate.kinds import RUNTIME, TaskKind, Transition, register
    from bench.pages import seed_pages
    from procurement import selectors

    register(TaskKind(name="bench_growth", initial="ping", transitions=[
        Transition("ping", "pong", "pong", (RUNTIME,)), Transition("pong", "ping", "ping", (RUNTIME,))]))
    call_command("migrate", verbosity=0)
    call_command("seed_demo", verbosity=0, stdout=io.StringIO())
    made = seed_pages(random.Random(3))
    users = {u.username: u for u in get_user_model().objects.all()}
    filler, _ = get_user_model().objects.get_or_create(username="bench-filler")
    home_name, home_url = requester_home_url()
    pages = [("inbox (bob)", users["bob"], reverse("approval-inbox")),
             ("approval page (bob)", users["bob"], reverse("approval-page", args=[made["small"].pk])),
             (f"requester home (alice, {home_name})", users["alice"], home_url)]
    results = []
    for scale in args.scales:
        started = time.perf_counter()
        fill_to(scale, users["alice"].pk, users["bob"].pk, filler.pk)
        with connection.cursor() as cursor:
            # VACUUM too, as autovacuum long since has on tables grown over months: an index-only scan
            # depends on the visibility map, which a bulk insert leaves empty.
            for table in FLAGGED_TABLES:
                cursor.execute(f"VACUUM ANALYZE {table}")
            cursor.execute("SELECT (SELECT count(*) FROM agentstate_task), (SELECT count(*) FROM agentstate_taskevent),"
                           " (SELECT count(*) FROM agentstate_checkpoint), (SELECT count(*) FROM agentstate_approval)")
            counts = dict(zip(("tasks", "events", "checkpoints", "approvals"), cursor.fetchone()))
        print(f"\n{scale:,} tasks (filled in {time.perf_counter() - started:.1f} s): {counts}", flush=True)
        transition = time_fire(users["bob"])
        task_id = transition.pop("task_id")
        pk = sql._pk(task_id)
        plans = {
            "fire: read the task": explain(sql._READS[sql._READ_COLUMNS], [pk]),
            "fire: the move (rolled back)": explain(sql.PG_MOVES[True, True, True], sql.move_params(sql.Move(
                task_id=pk, from_version=transition["version"],
                from_state="ping" if transition["version"] % 2 else "pong", from_step="", to_state="x", step="",
                changes={"n": 1}, data=None, runnable=False, lease_token=None, event="e", actor="a", reason="",
                trace_id="t", now=django.utils.timezone.now(),
                checkpoint={"label": "e", "cursor": "", "tenant": "BENCH", "schema_version": 1, "pending": [],
                            "external_refs": [], "depth": 0})),
                rollback=True),
            "checkpoint_latest": explain(sql._CP_LATEST, {"task_id": pk}),
        }
        # The inbox's queries by name, whichever is slowest on the page: at 100,000 tasks the department
        # filter once joined every approval to every task, and each tab's rows every approval bob
        # decided (or may see) to its task before sorting.
        for label, query in inbox_queries(users["bob"]).items():
            query_sql, query_params = query.query.sql_with_params()
            plans[f"inbox (bob): {label}"] = explain(query_sql, query_params) | {"sql": query_sql[:1500]}
        page_figures = {}
        for label, user, url in pages:
            client = Client()
            client.force_login(user)
            figures = render(client, url)
            slowest = figures.pop("slowest_query")
            plans[f"{label}: slowest query"] = explain(slowest) | {"sql": slowest[:1500]}
            page_figures[label] = figures
        print(f"  transition: fire p50 {transition['fire_p50_ms']} ms p95 {transition['fire_p95_ms']} ms; "
              f"checkpoint_latest p50 {transition['latest_p50_ms']} ms", flush=True)
        for label, figures in page_figures.items():
            print(f"  {label}: p50 {figures['p50_ms']} ms p95 {figures['p95_ms']} ms, {figures['queries']} queries",
                  flush=True)
        for label, plan in plans.items():
            flag = f"  SEQ SCAN of {', '.join(plan['seq_scans_of_big_tables'])}" if plan["seq_scans_of_big_tables"] \
                else ""
            print(f"  EXPLAIN {label}: {plan['execution_ms']} ms, indexes {', '.join(plan['indexes']) or '-'}{flag}",
                  flush=True)
        results.append({"tasks": scale, "rows": counts, "transition": transition, "pages": page_figures,
                        "explain": plans})
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scales", default="1000,10000,100000")
    parser.add_argument("--json")
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    args.scales = [int(s) for s in args.scales.split(",")]
    params = server_params("growth.py")
    name = database_name()
    os.environ["DATABASE_URL"] = database_url(params, name)
    os.environ["DJANGO_SETTINGS_MODULE"] = "procurement.settings"
    recreate_database(params, name)
    try:
        results = run(args)
        if args.json:
            Path(args.json).write_text(json.dumps(results, indent=2, default=str))
    finally:
        print(f"cleaned up: {teardown_database(params, name, keep=args.keep)}")


if __name__ == "__main__":
    main()

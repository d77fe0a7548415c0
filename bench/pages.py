"""How fast the manager's pages render with many rows, and how many queries each render runs.

    .venv/bin/python bench/pages.py [--renders 50] [--keep]

It drops and recreates its own database `procurement_bench_pages` (server and credentials from
DATABASE_URL when that points at PostgreSQL, else postgres@127.0.0.1:5432; it refuses SQLite),
migrates, seeds the demo data and writes tasks and approvals straight through the ORM: 500
pending approvals on bob's route (one of them with 200 lines, amended once, so its page also
shows what changed) and 5 on dave's. Then it renders each page with django.test.Client logged
in as the manager and prints p50/p95 render time and the queries per render. The database is
dropped at the end (`--keep` keeps it to look at).
"""
import argparse
import io
import os
import random
import re
import statistics
import sys
import time
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.pgadmin import database_url, pct, recreate_database, server_params, teardown_database  # noqa: E402

DB_NAME = "procurement_bench_pages"
INBOX_SIZE, BIG_LINES, SMALL_INBOX = 500, 200, 5
ITEMS = {"Laptop": "35200", "Monitor": "6550", "Keyboard": "1500", "USB-C dock": "3250", "Office chair": "8800"}





def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--renders", type=int, default=50, help="timed renders per page (default 50)")
    parser.add_argument("--keep", action="store_true", help=f"keep the {DB_NAME} database afterwards")
    args = parser.parse_args()

    params = server_params("pages.py")
    os.environ["DATABASE_URL"] = database_url(params, DB_NAME)
    os.environ["DJANGO_SETTINGS_MODULE"] = "procurement.settings"
    recreate_database(params, DB_NAME)
    try:
        run(args)
    finally:
        print(f"cleaned up: {teardown_database(params, DB_NAME, keep=args.keep)}")


# -- data ----------------------------------------------------------------------------------

def priced(description: str, quantity: int) -> dict:
    price = Decimal(ITEMS[description])
    return {"description": description, "item": description, "quantity": quantity,
            "unit_price": f"{price:.2f}", "amount": f"{price * quantity:.2f}"}


def build(rng, *, requester, department, supplier, suppliers, lines, version, requisition, approvers,
          total_before=None):
    """A task awaiting approval at `version` and its pending approval, as the workflow leaves them
    (unsaved); the scope has the shape procurement.purchase.scope.approval_scope gives it."""
    from agentstate.approvals import scope_hash
    from agentstate.models import Approval, Task
    from procurement import workflow
    from procurement.purchase.pricing import totals

    subtotal = sum(Decimal(line["amount"]) for line in lines)
    subtotal, tax, total = totals(subtotal)
    items = {line["item"] for line in lines}
    comparison = []
    for other in suppliers:  # what seed_demo has each supplier quote (by item, not by name)
        missing = sorted(items - other.items_quoted)
        awarded = other.name == supplier.name
        factor = Decimal(1) if awarded else Decimal(rng.choice(["1.02", "1.04", "1.07"]))
        comparison.append({"supplier": other.name, "awarded": awarded, "missing": missing,
                           "total": None if missing else f"{total * factor:.2f}"})
    summary = ", ".join(f"{line['quantity']} × {line['description']}" for line in lines)
    scope = {
        "operation": "issue_purchase_order", "erp_requisition": requisition,
        "supplier": {"name": supplier.name, "tax_id": supplier.tax_id, "email": supplier.email},
        "lines": lines, "summary": summary, "subtotal": f"{subtotal:.2f}", "tax": f"{tax:.2f}",
        "total": f"{total:.2f}", "currency": "TWD", "department": department.code,
        "cost_centre": department.cost_centre, "emails": [supplier.email] if supplier.email else [],
        "budget_left_after": f"{department.budget_total - total - (total_before or 0):.2f}",
        "requester": requester.username, "total_words": f"NT${total:,.0f}",
    }
    route = {"rule": "manager", "user_ids": sorted(u.pk for u in approvers),
             "usernames": sorted(u.username for u in approvers), "total": f"{total:.2f}",
             "department": department.code}
    task = Task(kind=workflow.KIND, initiator=requester, tenant=department.code, state=workflow.AWAITING_APPROVAL,
                version=version, step="", runnable=False, data={
                    "revision": 1 if version <= 9 else 2, "justification": "bench", "route": route,
                    "award": {"supplier": supplier.name, "lines": lines, "subtotal": scope["subtotal"],
                              "tax": scope["tax"], "total": scope["total"], "comparison": comparison},
                    "requisition": {"id": requisition, "key": f"bench:{requisition}"}})
    approval = Approval(task=task, state_version=version, scope=scope, scope_hash=scope_hash(scope), rule=route,
                        expires_at=None)
    return task, approval


def seed_pages(rng):
    """500 pending approvals for bob (one with 200 lines and an earlier, superseded version), 5 for dave."""
    from django.contrib.auth import get_user_model
    from django.db import connection, transaction
    from django.utils import timezone

    from agentstate.models import Approval, Task, TaskEvent
    from procurement.models import Department, Supplier

    users = {u.username: u for u in get_user_model().objects.all()}
    departments = {d.code: d for d in Department.objects.all()}
    suppliers = list(Supplier.objects.order_by("name").prefetch_related("quotes"))
    for supplier in suppliers:
        supplier.items_quoted = {quote.item for quote in supplier.quotes.all()}
    full = [s for s in suppliers if set(ITEMS) <= s.items_quoted]  # quote every item
    built = []  # (task, approval, approvers, status)
    for n in range(INBOX_SIZE - 1 + SMALL_INBOX):
        mine = n < INBOX_SIZE - 1
        requester, dept, approver = ((users["alice"], departments["ENG"], users["bob"]) if mine
                                     else (users["erin"], departments["OPS"], users["dave"]))
        lines = [priced(item, rng.randint(1, 3)) for item in rng.sample(sorted(ITEMS), rng.randint(1, 3))]
        built.append((*build(rng, requester=requester, department=dept, supplier=rng.choice(full),
                             suppliers=suppliers, lines=lines, version=9, requisition=f"REQ-{n + 1:06d}",
                             approvers=[approver, users["frank"]]), [approver, users["frank"]], "pending"))
    # The big one: 200 lines, amended once (v9 superseded by v13, one line more, another requisition).
    big_lines = [priced(item, rng.randint(1, 4)) for item in rng.choices(sorted(ITEMS), k=BIG_LINES)]
    approvers = [users["bob"], users["frank"]]
    _superseded_task, old = build(rng, requester=users["alice"], department=departments["ENG"], supplier=full[0],
                          suppliers=suppliers, lines=big_lines[:-1], version=9, requisition="REQ-100000",
                          approvers=approvers)
    task, big = build(rng, requester=users["alice"], department=departments["ENG"], supplier=full[0],
                      suppliers=suppliers, lines=big_lines, version=13, requisition="REQ-100001",
                      approvers=approvers)
    old.task = task
    built.append((task, big, approvers, "pending"))
    now = timezone.now()
    with transaction.atomic():
        Task.objects.bulk_create([t for t, _a, _u, _s in built])
        # Each task's version with its event, as the database's change guard requires at commit.
        TaskEvent.objects.bulk_create([TaskEvent(task_id=t.pk, actor="bench", event="seed", from_state="",
                                                 to_state=t.state, version=t.version) for t, _a, _u, _s in built])
        for _t, approval, _u, _s in built:
            approval.task_id = approval.task.pk
            approval.expires_at = now + timedelta(days=3)
        old.task_id, old.status, old.expires_at = task.pk, Approval.Status.SUPERSEDED, now + timedelta(days=3)
        Approval.objects.bulk_create([a for _t, a, _u, _s in built] + [old])
        through = Approval.approvers.through
        through.objects.bulk_create([through(approval_id=a.pk, user_id=u.pk) for _t, a, us, _s in built for u in us]
                                    + [through(approval_id=old.pk, user_id=u.pk) for u in approvers])
        # Spread the waiting over the last three days, as a real inbox would be; the superseded
        # version is older than the one that replaced it.
        with connection.cursor() as cursor:
            cursor.execute(f"UPDATE {Approval._meta.db_table} SET created_at = now() - random() * interval '3 days'")
            cursor.execute(f"UPDATE {Approval._meta.db_table} SET expires_at = created_at + interval '3 days'")
            cursor.execute(f"UPDATE {Approval._meta.db_table} SET created_at = created_at - interval '3 days' "
                           "WHERE id = %s", [old.pk])
    return {"bob": users["bob"], "dave": users["dave"], "big": big, "small": built[0][1]}


# -- rendering -----------------------------------------------------------------------------

def measure(client, url, renders, expect: str):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    for _ in range(3):  # warm up: templates compiled, connection open
        response = client.get(url)
        assert response.status_code == 200 and expect in response.content.decode(), (url, response.status_code)
    took = []
    for _ in range(renders):
        started = time.perf_counter()
        response = client.get(url)
        took.append((time.perf_counter() - started) * 1000)
    counts = []
    for _ in range(3):
        with CaptureQueriesContext(connection) as captured:
            response = client.get(url)
        counts.append(len(captured))
    queries = str(counts[0]) if len(set(counts)) == 1 else "/".join(map(str, counts))
    return {"p50": pct(took, 50), "p95": pct(took, 95), "mean": statistics.fmean(took), "max": max(took),
            "queries": queries, "kb": len(response.content) / 1024, "body": response.content.decode()}


def run(args):
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.urls import reverse

    call_command("migrate", verbosity=0)
    call_command("seed_demo", verbosity=0, stdout=io.StringIO())
    started = time.perf_counter()
    made = seed_pages(random.Random(11))
    print(f"PostgreSQL {connection.pg_version // 10000}.{connection.pg_version % 10000}, database {DB_NAME}; "
          f"data written in {time.perf_counter() - started:.1f} s; {args.renders} timed renders per page "
          f"after 3 warm-up renders; DEBUG={django.conf.settings.DEBUG}\n")

    bob, dave = Client(), Client()
    bob.force_login(made["bob"])
    dave.force_login(made["dave"])
    inbox = reverse("approval-inbox")
    pages = [
        (f"inbox, {INBOX_SIZE} pending (bob)", bob, inbox, INBOX_SIZE, "Approvals waiting for you"),
        (f"inbox, {SMALL_INBOX} pending (dave)", dave, inbox, SMALL_INBOX, "Approvals waiting for you"),
        (f"approval page, {BIG_LINES} lines + changes", bob, reverse("approval-page", args=[made["big"].pk]),
         BIG_LINES, "Changed since the previous version (v9)"),
        (f"approval page, {len(made['small'].scope['lines'])} lines", bob,
         reverse("approval-page", args=[made["small"].pk]), len(made["small"].scope["lines"]), "Approving will:"),
    ]
    rows = [["page", "rows", "renders", "p50 ms", "p95 ms", "mean ms", "max ms", "queries/render", "KB"]]
    for name, client, url, count, expect in pages:
        result = measure(client, url, args.renders, expect)
        if url == inbox:
            from procurement.pages.inbox import PER_PAGE

            shown = len(re.findall(r'href="/approvals/[0-9a-f-]{36}/"', result["body"]))
            assert shown == min(count, PER_PAGE), f"{name}: {shown} rows in the page"  # its first page
        rows.append([name, str(count), str(args.renders), f"{result['p50']:.1f}", f"{result['p95']:.1f}",
                     f"{result['mean']:.1f}", f"{result['max']:.1f}", result["queries"], f"{result['kb']:.0f}"])
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    rows.insert(1, ["-" * w for w in widths])
    for r in rows:
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip())
    print("\nrender: django.test.Client GET, force_login session, whole response (middleware, view, template); "
          "queries/render: CaptureQueriesContext over 3 more renders (one figure when all 3 agree)")


if __name__ == "__main__":
    main()

"""What "who may see what" costs as the objects grow: the inbox, the task lists and the API lists
with 10,000 tasks across 50 departments and 200 people.

    .venv/bin/python bench/permissions.py [--scales 2000,10000] [--renders 20] [--json out.json]

On its own database `procurement_bench_permissions` (dropped and recreated; server from
DATABASE_URL when that is PostgreSQL), after `migrate`: 50 departments, each with a manager,
4 directors of every department, and 146 requesters; tasks are added up to each scale (each
with its request, a line and its first event), a third of them waiting on an approval routed to
their department's manager, with the grants the product writes (the requester on her task,
the approver on the approval) and one task in fifty shared with a watcher. At each scale it
renders every list 20 times with django.test.Client and prints p50/p95 and the queries per
request, which must not grow with the number of objects (it exits 1 if they do).
"""
import argparse
import json
import os
import sys
import time
import uuid
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.pgadmin import admin_sql, database_url, pct, server_params  # noqa: E402

DB_NAME = "procurement_bench_permissions"
DEPARTMENTS, DIRECTORS, PEOPLE = 50, 4, 200


def plant_people():
    """50 departments with a manager each, 4 directors of every department, requesters to 200 people."""
    from django.contrib.auth import get_user_model

    from procurement.models import Department, Membership
    from procurement.selectors.grants import groups_sync

    User = get_user_model()
    departments = Department.objects.bulk_create(
        Department(code=f"D{d:02}", name=f"Department {d}", cost_centre=f"CC-{d:02}", budget_total=10**9)
        for d in range(DEPARTMENTS))
    managers = [User.objects.create_user(f"manager{d:02}", password="x") for d in range(DEPARTMENTS)]
    directors = [User.objects.create_user(f"director{n}", password="x") for n in range(DIRECTORS)]
    requesters = [User.objects.create_user(f"requester{n:03}", password="x")
                  for n in range(PEOPLE - DEPARTMENTS - DIRECTORS)]
    for department, manager in zip(departments, managers):
        Membership.objects.create(user=manager, department=department, role="manager", approval_limit=10**6)
    for director in directors:
        Membership.objects.create(user=director, department=None, role="director", approval_limit=10**8)
    for n, requester in enumerate(requesters):
        Membership.objects.create(user=requester, department=departments[n % DEPARTMENTS], role="requester")
    for user in User.objects.all():
        groups_sync(user)
    return {"departments": departments, "managers": managers, "directors": directors, "requesters": requesters}


def fill_to(n_tasks: int, people: dict):
    """Tasks up to n_tasks, with what the product writes for each, in bulk."""
    from django.contrib.auth.models import Permission
    from django.db import transaction
    from django.utils import timezone

    from agentstate.models import Approval, Task, TaskEvent
    from procurement.models import ApprovalGrant, PurchaseRequest, RequestLine, TaskGrant

    have = Task.objects.count()
    perms = {p.codename: p for p in Permission.objects.filter(
        content_type__app_label="agentstate", codename__in=["view_task", "view_approval", "change_approval"])}
    departments, requesters, managers = people["departments"], people["requesters"], people["managers"]
    now = timezone.now()
    for start in range(have, n_tasks, 2000):
        with transaction.atomic():
            tasks, requests, lines, events, approvals, tgrants, agrants, route = [], [], [], [], [], [], [], []
            for n in range(start, min(start + 2000, n_tasks)):
                requester = requesters[n % len(requesters)]
                d = (n % len(requesters)) % DEPARTMENTS
                waiting = n % 3 == 0
                task = Task(id=uuid.uuid4(), kind="purchase", initiator=requester, tenant=departments[d].code,
                            state="awaiting_approval" if waiting else "received", version=1,
                            data={"revision": 1}, created_at=now - timedelta(minutes=n))
                tasks.append(task)
                events.append(TaskEvent(task=task, actor=requester.username, event="submit", from_state="draft",
                                        to_state=task.state, version=1, reason="bench"))
                request = PurchaseRequest(task=task, number=f"REQ-B-{n:06}", department=departments[d],
                                          requester=requester, justification="bench")
                requests.append(request)
                lines.append(RequestLine(request=request, position=1, description="Laptop", quantity=1))
                tgrants.append(TaskGrant(user=requester, permission=perms["view_task"], content_object=task))
                if n % 50 == 0:
                    watcher = requesters[(n + 7) % len(requesters)]
                    if watcher.pk != requester.pk:
                        tgrants.append(TaskGrant(user=watcher, permission=perms["view_task"], content_object=task))
                if waiting:
                    approval = Approval(task=task, state_version=1, scope={"total": "36750.00"}, scope_hash="x",
                                        rule={"rule": "manager"}, expires_at=now + timedelta(days=3))
                    approvals.append(approval)
                    route.append((approval, managers[d]))
                    agrants += [ApprovalGrant(user=managers[d], permission=perms[c], content_object=approval)
                                for c in ("view_approval", "change_approval")]
            Task.objects.bulk_create(tasks)
            TaskEvent.objects.bulk_create(events)
            PurchaseRequest.objects.bulk_create(requests)
            RequestLine.objects.bulk_create(lines)
            Approval.objects.bulk_create(approvals)
            Approval.approvers.through.objects.bulk_create(
                Approval.approvers.through(approval_id=a.pk, user_id=u.pk) for a, u in route)
            TaskGrant.objects.bulk_create(tgrants)
            ApprovalGrant.objects.bulk_create(agrants)
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


def measure(client, url: str, renders: int) -> dict:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.get(url)  # warm: sessions, caches, the first plan
    times, queries = [], set()
    for _ in range(renders):
        with CaptureQueriesContext(connection) as captured:
            started = time.perf_counter()
            response = client.get(url)
            times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, (url, response.status_code)
        queries.add(len(captured))
    return {"p50_ms": round(pct(times, 50), 1), "p95_ms": round(pct(times, 95), 1), "queries": max(queries)}


def run(args) -> dict:
    import django

    django.setup()
    from django.core.management import call_command
    from django.test import Client
    from django.urls import reverse

    call_command("migrate", verbosity=0)
    people = plant_people()
    manager, director, requester = people["managers"][3], people["directors"][0], people["requesters"][3]
    watcher = people["requesters"][10]
    lists = [("inbox, pending (manager)", manager, reverse("approval-inbox")),
             ("inbox, all (manager)", manager, reverse("approval-inbox") + "?tab=all"),
             ("inbox, all (director)", director, reverse("approval-inbox") + "?tab=all"),
             ("my requests page (requester)", requester, reverse("my-requests")),
             ("API tasks (requester)", requester, "/api/v1/tasks/"),
             ("API tasks (watcher)", watcher, "/api/v1/tasks/"),
             ("API tasks (manager)", manager, "/api/v1/tasks/"),
             ("API tasks (director)", director, "/api/v1/tasks/"),
             ("API approvals (manager)", manager, "/api/v1/approvals/"),
             ("API requests (requester)", requester, "/api/v1/requests/")]
    results = {"scales": {}}
    for scale in args.scales:
        started = time.perf_counter()
        fill_to(scale, people)
        print(f"\n{scale:,} tasks across {DEPARTMENTS} departments and {PEOPLE} people "
              f"(filled in {time.perf_counter() - started:.1f} s)", flush=True)
        figures = {}
        for label, user, url in lists:
            client = Client()
            client.force_login(user)
            figures[label] = measure(client, url, args.renders)
            f = figures[label]
            print(f"  {label:32} p50 {f['p50_ms']:7.1f} ms  p95 {f['p95_ms']:7.1f} ms  {f['queries']} queries",
                  flush=True)
        results["scales"][scale] = figures
    counts = {label: [results["scales"][s][label]["queries"] for s in args.scales] for label, _, _ in lists}
    results["queries_constant"] = all(len(set(c)) == 1 for c in counts.values())
    print(f"\nqueries per request constant across {', '.join(f'{s:,}' for s in args.scales)} tasks: "
          f"{'yes' if results['queries_constant'] else 'NO: ' + str(counts)}")
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scales", default="2000,10000")
    parser.add_argument("--renders", type=int, default=20)
    parser.add_argument("--json")
    args = parser.parse_args()
    args.scales = [int(s) for s in args.scales.split(",")]
    params = server_params("permissions.py")
    os.environ["DATABASE_URL"] = database_url(params, DB_NAME)
    os.environ["DJANGO_SETTINGS_MODULE"] = "procurement.settings"
    admin_sql(params, f'DROP DATABASE IF EXISTS "{DB_NAME}" WITH (FORCE)', f'CREATE DATABASE "{DB_NAME}"')
    try:
        results = run(args)
        if args.json:
            Path(args.json).write_text(json.dumps(results, indent=2, default=str))
    finally:
        try:
            from django.db import connections

            connections.close_all()
        except Exception:  # noqa: BLE001 - Django may not have started
            pass
        admin_sql(params, f'DROP DATABASE IF EXISTS "{DB_NAME}" WITH (FORCE)')
    sys.exit(0 if results["queries_constant"] else 1)


if __name__ == "__main__":
    main()

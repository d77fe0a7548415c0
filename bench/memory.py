"""How fast governed memory answers on PostgreSQL with 100k entries, and what a real deletion costs.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/procurement_bench .venv/bin/python bench/memory.py

Without DATABASE_URL it uses (and creates) the procurement_bench database. It migrates, plants
100k entries across user, department and organisation scopes (with proposed, expired and
not-yet-valid ones mixed in), times 200 context retrievals through the app's real policy,
prints the plans, times deletions with their history, events and derived summaries, and
deletes everything it made.
"""
import os
import random
import statistics
import sys
import time
from datetime import timedelta
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
from django.utils import timezone  # noqa: E402

from agentstate.memory import policy  # noqa: E402
from agentstate.memory.deletion import memory_delete, memory_delete_preview  # noqa: E402
from agentstate.memory.models import MemoryEntry, MemoryEvent, MemoryVersion  # noqa: E402
from agentstate.memory.retrieval import first_readable, memory_retrieve, usable_entries  # noqa: E402
from agentstate.models import Session, Turn  # noqa: E402
from procurement.models import Department, Membership  # noqa: E402

PREFIX, USERS, DEPARTMENTS = "mbench", 1000, 50
PER_USER, PER_DEPARTMENT, ORGANISATION = 60, 600, 10_000  # 60k + 30k + 10k = 100k
RETRIEVALS, DELETIONS, BATCH = 200, 50, 5000
rng = random.Random(6)



def cleanup():
    User = get_user_model()
    entries = MemoryEntry.objects.filter(created_by__username=f"{PREFIX}-admin")
    MemoryEvent.objects.filter(entry__in=entries).delete()
    entries.delete()  # versions cascade
    Session.objects.filter(owner__username__startswith=PREFIX).delete()
    Membership.objects.filter(user__username__startswith=PREFIX).delete()
    Department.objects.filter(code__startswith=PREFIX.upper()).delete()
    User.objects.filter(username__startswith=PREFIX).delete()


def plant():
    """Users, departments, memberships, then 100k entries (each with its first version)."""
    User = get_user_model()
    admin = User.objects.create(username=f"{PREFIX}-admin", is_superuser=True)
    departments = Department.objects.bulk_create(
        Department(code=f"{PREFIX.upper()}{d:02}", name=f"Bench {d}", cost_centre=f"B-{d}", budget_total=1)
        for d in range(DEPARTMENTS))
    users = User.objects.bulk_create(User(username=f"{PREFIX}-u{u:04}") for u in range(USERS))
    Membership.objects.bulk_create(Membership(user=u, department=departments[i % DEPARTMENTS], role="requester")
                                   for i, u in enumerate(users))
    now = timezone.now()
    subjects = ([("user", u.username)] * PER_USER for u in users)
    subjects = [s for group in subjects for s in group]
    subjects += [("department", d.code) for d in departments for _ in range(PER_DEPARTMENT)]
    subjects += [("organisation", "")] * ORGANISATION
    rows = [_entry(scope, subject, n, admin, now) for n, (scope, subject) in enumerate(subjects)]
    for start in range(0, len(rows), BATCH):
        chunk = MemoryEntry.objects.bulk_create(rows[start:start + BATCH])
        MemoryVersion.objects.bulk_create(MemoryVersion(entry=e, version=1, content=e.content, status="current")
                                          for e in chunk)
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {MemoryEntry._meta.db_table}")
    return admin, users


def _entry(scope, subject, n, admin, now):
    """80% active and valid; the rest proposed, expired-but-not-swept, or not valid yet."""
    roll = rng.random()
    confirmed = now - timedelta(minutes=rng.randint(1, 2 * 365 * 24 * 60))
    entry = MemoryEntry(scope=scope, subject=subject, kind=rng.choice(["fact", "preference", "procedure", "term"]),
                        content=f"bench memory {n}: " + "x" * rng.randint(20, 200), source_kind="system",
                        status="active", created_by=admin, valid_from=confirmed, last_confirmed_at=confirmed,
                        confirmed_at=confirmed)
    if roll < 0.10:
        entry.status, entry.last_confirmed_at, entry.confirmed_at = "proposed", None, None
    elif roll < 0.15:
        entry.valid_from = min(confirmed, now - timedelta(days=2))
        entry.valid_until = now - timedelta(days=1)
    elif roll < 0.17:
        entry.valid_from = now + timedelta(days=30)
    return entry


def ms(seconds):
    cuts = statistics.quantiles(seconds, n=100)
    return f"p50 {cuts[49] * 1000:.2f} ms, p95 {cuts[94] * 1000:.2f} ms, max {max(seconds) * 1000:.2f} ms"


def time_retrievals(users):
    total, reads, sizes = [], [], []
    for user in rng.sample(users, RETRIEVALS):
        started = time.perf_counter()
        sizes.append(len(memory_retrieve(user, limit=20)))
        total.append(time.perf_counter() - started)
        started = time.perf_counter()
        readable = policy.current().readable(user)
        for _scope, _subject, rows in usable_entries(user):
            first_readable(rows, readable, 20)
        reads.append(time.perf_counter() - started)
    return total, reads, sizes


def explain(user):
    readable = policy.current().readable(user)
    for scope, subject, rows in usable_entries(user):
        print(f"\n-- {scope} {subject or '(organisation)'}: candidates in retrieval order")
        print(rows[:20].explain(analyze=True))
        ids = [e.pk for e in rows[:20]]
    print("\n-- the policy's readable rule applied to a page of candidate ids")
    print(MemoryEntry.objects.filter(readable, pk__in=ids).values("pk").explain(analyze=True))


def time_deletions(admin, users):
    """Entries with 4 corrections, 40 uses and a summary that quoted them, deleted for real."""
    times, previews, texts = [], [], []
    for n, user in enumerate(users[:DELETIONS]):
        entry = MemoryEntry.objects.filter(scope="user", subject=user.username, status="active").first()
        MemoryVersion.objects.filter(entry=entry).update(status="superseded")
        MemoryVersion.objects.bulk_create(MemoryVersion(entry=entry, version=v, content=f"{entry.content} v{v}",
                                                        status="superseded") for v in range(2, 6))
        session = Session.objects.create(owner=user, summary=f"summary quoting {entry.content}")
        turn = Turn.objects.create(session=session, seq=1, role="user", text="hello")
        MemoryEvent.objects.bulk_create(MemoryEvent(entry=entry, entry_version=1, action="use", actor_name="x",
                                                    turn=turn) for _ in range(40))
        started = time.perf_counter()
        texts.append(memory_delete_preview(entry).text)
        previews.append(time.perf_counter() - started)
        started = time.perf_counter()
        memory_delete(entry=entry, by=admin, reason="bench")
        times.append(time.perf_counter() - started)
    return times, previews, texts[0]


def main():
    if connection.vendor != "postgresql":
        sys.exit("bench/memory.py measures PostgreSQL; set DATABASE_URL=postgres://...")
    ensure_database()
    call_command("migrate", verbosity=0)
    cleanup()  # leftovers of an interrupted run
    try:
        started = time.perf_counter()
        admin, users = plant()
        count = MemoryEntry.objects.filter(created_by=admin).count()
        with connection.cursor() as cursor:
            cursor.execute("SELECT current_setting('server_version')")
            version = cursor.fetchone()[0]
        print(f"PostgreSQL {version}: planted {count:,} entries ({USERS} users x {PER_USER}, {DEPARTMENTS} "
              f"departments x {PER_DEPARTMENT}, {ORGANISATION:,} organisation) in {time.perf_counter() - started:.1f}s")
        total, reads, sizes = time_retrievals(users)
        print(f"\nmemory_retrieve(user, limit=20), {RETRIEVALS} users, incl. policy and `use` events: {ms(total)}")
        # memory_retrieve stops once the user scope fills the limit; this reads every scope to 20.
        print(f"  every scope read to 20 (index walk + readable check each), no events: {ms(reads)}")
        print(f"  entries returned: {min(sizes)}-{max(sizes)} (most specific scope first)")
        explain(users[0])
        times, previews, text = time_deletions(admin, users)
        print(f"\nmemory_delete_preview, {DELETIONS} entries: {ms(previews)} ('{text}')")
        print(f"memory_delete (entry + 5 versions + 40 use events' reasons + 1 summary): {ms(times)}")
    finally:
        cleanup()
        print("\ncleaned up: bench users, departments, sessions and memory removed")


if __name__ == "__main__":
    main()

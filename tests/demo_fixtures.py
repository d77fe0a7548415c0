"""Demo data, an ERP simulator across a real socket, and Celery run in-process: shared by the
procurement, page and browser tests. Tests that need a real worker process start one
(tests/worker_fixtures.py)."""
import pytest
from django.core.management import call_command


@pytest.fixture(scope="session")
def demo_rows(django_db_setup, django_db_blocker, _fast_password_hashing):
    """What `seed_demo` writes, table by table, read once per run in a transaction rolled back after.
    Seeding took about 300 queries; a test now inserts these rows in one statement a table.
    Except the people's languages: a test says which language its reader reads
    (tests/procurement/purchase/test_seed_demo.py checks the seeded ones)."""
    from django.apps import apps
    from django.db import transaction

    from procurement.models import UserPreference

    models = [m for m in apps.get_models(include_auto_created=True)
              if m._meta.managed and not m._meta.proxy and m is not UserPreference]
    with django_db_blocker.unblock(), transaction.atomic():
        before = {m: set(m._default_manager.values_list("pk", flat=True)) for m in models}
        call_command("seed_demo", verbosity=0)
        rows = []
        for model in models:
            fields = [f.attname for f in model._meta.concrete_fields]
            new = [row for row in model._default_manager.order_by("pk").values(*fields)
                   if row[model._meta.pk.attname] not in before[model]]
            if new:
                rows.append((model, new))
        transaction.set_rollback(True)
    return _referenced_first(rows)


def _referenced_first(rows: list) -> list:
    """Tables in an order each insert can be checked at once: a user before her memberships."""
    ordered, left = [], list(rows)
    while left:
        placed = {model for model, _ in ordered}
        ready = [(model, r) for model, r in left
                 if all(f.related_model in placed or f.related_model is model or f.related_model not in
                        {m for m, _ in left} for f in model._meta.concrete_fields if f.is_relation)]
        if not ready:  # tables that refer to each other: deferred checks at commit sort them out
            return ordered + left
        ordered += ready
        left = [entry for entry in left if entry not in ready]
    return ordered


@pytest.fixture
def demo(db, demo_rows):
    """The demo data of DESIGN §10, as `seed_demo` leaves it: {username: user}."""
    from django.contrib.auth import get_user_model
    from django.core.management.color import no_style
    from django.db import connection

    for model, rows in demo_rows:
        model._default_manager.bulk_create([model(**row) for row in rows])
    with connection.cursor() as cursor:  # the next id after the demo's own, as seeding would leave it
        for sql in connection.ops.sequence_reset_sql(no_style(), [model for model, _ in demo_rows]):
            cursor.execute(sql)
    from procurement.purchase.catalogue import seed_words

    seed_words()  # the words migration 0021 seeds, again after a test that flushed the tables
    return {u.username: u for u in get_user_model().objects.all()}


@pytest.fixture
def erp(erp_server, settings):
    settings.ERP_URL = erp_server.url
    settings.ERP_TIMEOUT_SECONDS = 2
    return erp_server


@pytest.fixture
def eager(settings):
    """Steps run in this process as soon as the submitting transaction commits."""
    from procurement.celery import app

    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = False

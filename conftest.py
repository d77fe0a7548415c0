"""Shared test fixtures: an owner, a colleague and an outsider in every file; service markers."""
import os

import pytest
from django.db import connection

pytest_plugins = ["tests.erp_fixtures", "tests.worker_fixtures", "tests.demo_fixtures"]


# Kept across flushes: Django's post_migrate after each flush makes exactly these rows again.
KEPT_BY_FLUSH = {"django_content_type", "auth_permission"}


def _flush_by_delete():
    """After each transactional test Django empties every table with one TRUNCATE, which on
    PostgreSQL makes new files for every table and index: about half a second a test here, a
    quarter of the whole run. The tables hold a few rows; DELETE empties them in milliseconds, and
    the foreign keys (deferred) are checked when the flush commits, with every table empty."""
    from django.db.backends.postgresql.operations import DatabaseOperations

    truncate = DatabaseOperations.sql_flush

    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        if reset_sequences or allow_cascade:
            return truncate(self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade)
        return [f"DELETE FROM {self.quote_name(table)};" for table in tables if table not in KEPT_BY_FLUSH]

    DatabaseOperations.sql_flush = sql_flush


def pytest_configure(config):
    _flush_by_delete()


def pytest_collection_modifyitems(config, items):
    # Decided once: settings already point at PostgreSQL (DATABASE_URL) or at SQLite.
    on_postgres = connection.vendor == "postgresql"
    has_broker = os.environ.get("CELERY_BROKER_URL", "").startswith("redis://")
    skip_pg = pytest.mark.skip(reason="needs PostgreSQL: set DATABASE_URL (make test does when it is reachable)")
    skip_redis = pytest.mark.skip(reason="needs Redis: set CELERY_BROKER_URL (make test does when it is reachable)")
    for item in items:
        if "postgres" in item.keywords and not on_postgres:
            item.add_marker(skip_pg)
        if "redis" in item.keywords and not has_broker:
            item.add_marker(skip_redis)


def pytest_sessionfinish(session, exitstatus):
    """In CI every test runs on the real services: a skip is a failure."""
    if os.environ.get("CI", "").lower() not in {"1", "true", "yes"}:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = reporter.stats.get("skipped", []) if reporter else []
    if skipped:
        reporter.write_line(f"CI: {len(skipped)} test(s) skipped; CI runs everything on PostgreSQL and Redis.",
                            red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture(autouse=True, scope="session")
def _fast_password_hashing():
    # Users are made in nearly every test; the production hasher's cost buys nothing here.
    from django.conf import settings

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def make_user(django_user_model):
    def make(username, **extra):
        return django_user_model.objects.create_user(username=username, password="demo",
                                                     email=f"{username}@example.com", **extra)
    return make


@pytest.fixture
def alice(make_user):
    """The owner: starts tasks and sessions."""
    return make_user("alice")


@pytest.fixture
def bob(make_user):
    """The colleague: decides alice's approvals."""
    return make_user("bob")


@pytest.fixture
def erin(make_user):
    """The outsider: another department, sees nothing of alice's."""
    return make_user("erin")


@pytest.fixture(autouse=True)
def _default_language():
    # A test client request with Accept-Language activates that language in this thread, and
    # LocaleMiddleware never deactivates it: each test starts from the default again.
    yield
    from django.utils import translation

    translation.deactivate()


@pytest.fixture(autouse=True)
def _fresh_cache():
    # Throttle counters live in the cache: one test's chat turns never slow down the next test.
    from django.core.cache import cache

    from procurement.words import people

    cache.clear()
    people.forget()  # names looked up for the last test's people, who are gone
    yield


@pytest.fixture(autouse=True)
def _departments_heard(request, monkeypatch):
    # The chat hears departments from the database (procurement/chat/vocabulary.py). A test of the
    # hearing alone, with no database, hears the demo's two; one with a database reads them each turn.
    from procurement.chat import vocabulary

    uses_db = request.node.get_closest_marker("django_db") or {"db", "transactional_db"} & set(request.fixturenames)
    if not uses_db:
        from types import SimpleNamespace

        demo = vocabulary.table([SimpleNamespace(code="ENG", name="Engineering"),
                                 SimpleNamespace(code="OPS", name="Operations")])
        monkeypatch.setattr(vocabulary, "departments", lambda catalogue=(): getattr(catalogue, "departments", None) or demo)
        # and the catalogue's words a new database starts with
        from procurement.purchase import catalogue

        monkeypatch.setattr(vocabulary, "items", catalogue.starting_vocabulary)
    yield

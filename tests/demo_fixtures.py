"""Demo data, an ERP simulator across a real socket, and Celery run in-process: shared by the
procurement, page and browser tests. Tests that need a real worker process start one
(tests/worker_fixtures.py)."""
import pytest
from django.core.management import call_command


@pytest.fixture
def demo(db):
    call_command("seed_demo", verbosity=0)
    from django.contrib.auth import get_user_model

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

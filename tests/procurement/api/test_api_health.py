"""`GET /healthz`: reports the database and the broker, and answers 503 when either is down."""
import socket

import pytest
from django.test import Client

from procurement.celery import app as celery_app

pytestmark = pytest.mark.django_db


@pytest.fixture
def broker_on_a_closed_port():
    """Point the broker at a port nobody listens on, for this test only.

    `broker_write_url` rather than `broker_url`: Celery lets the CELERY_BROKER_URL
    environment variable win over `broker_url`, and health checks the write connection."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    saved = celery_app.conf.get("broker_write_url")
    celery_app.conf.broker_write_url = f"redis://127.0.0.1:{port}/0"
    try:
        yield
    finally:
        celery_app.conf.broker_write_url = saved


@pytest.mark.redis
def test_healthy_when_database_and_broker_answer():
    response = Client().get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"database": "ok", "broker": "ok"}


def test_unreachable_broker_answers_503_and_names_it(broker_on_a_closed_port):
    response = Client().get("/healthz")
    assert response.status_code == 503
    assert response.json() == {"database": "ok", "broker": "down"}


@pytest.mark.redis
def test_health_is_checked_afresh_once_the_broker_is_back(broker_on_a_closed_port):
    assert Client().get("/healthz").status_code == 503
    celery_app.conf.broker_write_url = None
    assert Client().get("/healthz").json() == {"database": "ok", "broker": "ok"}

"""Schema-driven fuzzing of the REST API (DESIGN §15): schemathesis generates requests for every
operation in /api/v1/schema/ and sends them in-process with real tokens. No answer is a 5xx and
none breaks the schema it documents. Bounded: a few examples per operation keeps CI quick."""
import json

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from django.test import Client
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error, response_schema_conformance

from procurement.api.throttles import ChatThrottle, TokenThrottle, WriteThrottle
from procurement.people.tokens import token_issue
from tests.procurement.chat.support import no_memory_store  # noqa: F401

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("no_memory_store", "unthrottled")]


def served_schema() -> dict:
    """The document /api/v1/schema/ serves (its generation reads no database)."""
    response = Client().get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    return json.loads(response.content)


APP = get_wsgi_application()
schema = schemathesis.openapi.from_dict(served_schema())


@pytest.fixture(autouse=True)
def same_connection():
    # Requests go straight into the WSGI app, inside the test's transaction: like Django's test
    # client, keep the request signals from closing that connection.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def unthrottled(monkeypatch):
    # Hundreds of generated writes a minute: the throttles would answer 429 and hide the rest.
    for throttle in (ChatThrottle, WriteThrottle, TokenThrottle):
        monkeypatch.setattr(throttle, "THROTTLE_RATES", {"chat": "100000/min", "write": "100000/min",
                                                         "token": "100000/min"})


@pytest.fixture
def tokens(demo):
    return {name: token_issue(user=demo[name])[1] for name in ("alice", "carol")}


@schema.parametrize()
@settings(max_examples=6, deadline=None, database=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
def test_no_operation_answers_5xx_or_breaks_its_schema(case, tokens):
    # As a requester, and as an admin who may see and do the most.
    for token in tokens.values():
        response = case.call(app=APP, headers={"Authorization": f"Token {token}"})
        case.validate_response(response, checks=[not_a_server_error, response_schema_conformance])

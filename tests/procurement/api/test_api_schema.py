"""`GET /api/v1/schema/`: the OpenAPI description integrators generate clients from."""
import io

import pytest
import yaml
from django.core.management import call_command
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


def test_schema_loads_and_lists_every_endpoint():
    response = APIClient().get("/api/v1/schema/")
    assert response.status_code == 200
    schema = yaml.safe_load(response.content)
    assert schema["openapi"].startswith("3.")
    assert {"/api/v1/tasks/", "/api/v1/tasks/{id}/", "/api/v1/tasks/{id}/cancel/", "/api/v1/approvals/",
            "/api/v1/approvals/{id}/", "/api/v1/approvals/{id}/decision/", "/api/v1/sessions/",
            "/api/v1/sessions/{id}/"} <= schema["paths"].keys()
    task = schema["components"]["schemas"]["TaskDetail"]["properties"]
    assert {"lines", "subtotal", "tax", "total", "receipts", "approvals", "events"} <= task.keys()


def test_schema_generates_without_warnings():
    # --fail-on-warn: a view the generator cannot describe breaks the build, not a client.
    call_command("spectacular", "--fail-on-warn", "--validate", stdout=io.StringIO())

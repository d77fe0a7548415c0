"""`GET /api/v1/requests/`: the caller's own requests, as her home page lists them."""
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from agentstate.models import Approval
from procurement.purchase import services
from procurement.receiving.services import purchase_order_close_short

pytestmark = pytest.mark.django_db(transaction=True)
REQUESTS = "/api/v1/requests/"


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def submit(user, lines=({"description": "Laptop", "quantity": 2},)):
    return services.request_submit(requester=user, department="ENG", justification="new hires", lines=list(lines))


def test_the_list_shows_her_requests_with_number_total_state_and_whom_it_waits_for(demo, erp, eager):
    task = submit(demo["alice"])
    submit(demo["bob"], lines=[{"description": "Monitor", "quantity": 1}])
    body = client_for(demo["alice"]).get(REQUESTS).json()
    assert (body["count"], body["next"], body["previous"]) == (1, None, None)
    row = body["results"][0]
    assert set(row) == {"id", "number", "summary", "total", "state", "state_label", "waiting_on", "po_number"}
    assert row["id"] == str(task.pk) and re.fullmatch(r"REQ-\d{4}-\d{5}", row["number"])
    assert (row["summary"], row["total"], row["state"]) == ("2 × Laptop", "73290.00", "awaiting_approval")
    assert row["state_label"] == "Waiting for approval" and row["po_number"] is None
    assert row["waiting_on"]["kind"] == "approval" and "bob" in row["waiting_on"]["people"]
    assert row["waiting_on"]["since"].endswith("+08:00")


def test_labels_follow_the_callers_language(demo, erp, eager):
    submit(demo["alice"])
    row = client_for(demo["alice"]).get(REQUESTS, HTTP_ACCEPT_LANGUAGE="zh-Hant").json()["results"][0]
    assert row["state_label"] == "等待核准" and row["waiting_on"]["text"].startswith("等待 ")


def test_a_managers_list_holds_only_requests_he_made_himself(demo, erp, eager):
    submit(demo["alice"])
    assert client_for(demo["bob"]).get(REQUESTS).json()["count"] == 0


def test_the_filter_splits_open_from_finished_and_the_po_number_shows_once_issued(demo, erp, eager):
    done, _ = submit(demo["alice"]), submit(demo["alice"], lines=[{"description": "Monitor", "quantity": 1}])
    approval = Approval.objects.get(task=done)
    services.approval_decide(approval_id=approval.pk, user=demo["bob"], decision="approve",
                             state_version=approval.state_version)
    # Ordered is not finished (the goods are outstanding); closed short, it is.
    purchase_order_close_short(task_id=done.pk, user=demo["bob"], reason="supplier out of stock")
    alice = client_for(demo["alice"])
    finished = alice.get(REQUESTS, {"show": "finished"}).json()["results"]
    assert [r["id"] for r in finished] == [str(done.pk)]
    assert finished[0]["po_number"] == erp.purchase_orders()[0]["id"] and finished[0]["waiting_on"] is None
    assert [r["summary"] for r in alice.get(REQUESTS, {"show": "open"}).json()["results"]] == ["1 × Monitor"]
    assert alice.get(REQUESTS, {"show": "everything"}).status_code == 400


def test_the_list_costs_the_same_queries_however_many_requests(demo, erp, eager, django_assert_num_queries):
    alice = client_for(demo["alice"])
    submit(demo["alice"])
    with CaptureQueriesContext(connection) as one:
        assert alice.get(REQUESTS).json()["count"] == 1
    queries = len(one.captured_queries)
    returned = submit(demo["alice"], lines=[{"description": "Laptop", "quantity": 1},
                                            {"description": "Monitor", "quantity": 2}])
    approval = Approval.objects.get(task=returned)
    services.approval_decide(approval_id=approval.pk, user=demo["bob"], decision="return",
                             state_version=approval.state_version, comment="Why two monitors?")
    submit(demo["alice"], lines=[{"description": "flux capacitor", "quantity": 1}])
    with django_assert_num_queries(queries):
        assert alice.get(REQUESTS).json()["count"] == 3


def test_without_credentials_the_list_answers_401(demo):
    assert APIClient().get(REQUESTS).status_code == 401


def test_a_client_that_names_no_language_reads_the_language_saved_on_her_account(demo, erp, eager):
    from procurement.people.language import user_language_set

    submit(demo["alice"])
    user_language_set(user=demo["alice"], language="zh-hant")
    assert client_for(demo["alice"]).get(REQUESTS).json()["results"][0]["state_label"] == "等待核准"
    english = client_for(demo["alice"]).get(REQUESTS, HTTP_ACCEPT_LANGUAGE="en").json()["results"][0]
    assert english["state_label"] == "Waiting for approval"

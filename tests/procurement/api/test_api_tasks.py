"""`/api/v1/tasks/`: submit, list, read, amend and cancel a purchase request over HTTP."""
import io
import uuid

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from agentstate.models import Approval, Task
from procurement.purchase import services
from procurement.models import PurchaseRequest

pytestmark = pytest.mark.django_db(transaction=True)

TASKS = "/api/v1/tasks/"
LAPTOPS = [{"description": "Laptop", "quantity": 2}]


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def submit(client, **overrides):
    body = {"department": "ENG", "lines": LAPTOPS, "justification": "two new hires", **overrides}
    return client.post(TASKS, body, format="json")


def url(task_id, suffix=""):
    return f"{TASKS}{task_id}/{suffix}"


# -- submit ------------------------------------------------------------------------

def test_submit_answers_201_with_the_priced_task_waiting_for_approval(demo, erp, eager):
    response = submit(client_for(demo["alice"]))
    assert response.status_code == 201, response.json()
    body = response.json()
    assert uuid.UUID(body["id"]) and body["state"] == "awaiting_approval"
    assert body["department"] == "ENG" and body["requester"] == "alice"
    assert body["supplier"] == "新竹科技供應股份有限公司"
    assert body["lines"] == [{"description": "Laptop", "quantity": 2, "unit_price": "34900.00",
                              "amount": "69800.00", "received": 0, "rejected": 0, "invoiced": 0}]
    assert (body["subtotal"], body["tax"], body["total"]) == ("69800.00", "3490.00", "73290.00")
    assert [(a["status"], a["state_version"]) for a in body["approvals"]] == [("pending", body["version"])]
    assert body["receipts"] == [{"operation": "erp.requisition.create", "idempotency_key": body["receipts"][0][
        "idempotency_key"], "status": "confirmed", "external_id": erp.requisitions()[0]["id"]}]
    submitted = body["events"][1]
    assert [e["event"] for e in body["events"]][:3] == ["create", "submit", "start"]
    assert (submitted["from_state"], submitted["to_state"], submitted["actor"]) == ("draft", "received", "alice")
    assert submitted["at"].endswith("+08:00")


def test_detail_body_has_exactly_the_contract_fields(demo, erp, eager):
    body = submit(client_for(demo["alice"])).json()
    contract = {"id", "state", "version", "step", "department", "supplier", "lines", "subtotal", "tax", "total",
                "receipts", "approvals", "events", "number", "po_number", "waiting_on", "trace_id",
                "receipt_status", "billing_status"}  # the last two: DESIGN §16
    assert contract <= body.keys()
    assert body.keys() - contract <= {"question", "justification", "requester", "created_at", "updated_at"}
    assert set(body["events"][0]) == {"at", "actor", "event", "from_state", "to_state", "version"}
    assert set(body["approvals"][0]) == {"id", "status", "state_version"}


def test_lines_are_unpriced_until_the_agent_awards_the_request(demo, erp, eager):
    body = submit(client_for(demo["alice"]), lines=[{"description": "flux capacitor", "quantity": 1}]).json()
    assert body["state"] == "awaiting_input" and "flux capacitor" in body["question"]
    assert body["lines"] == [{"description": "flux capacitor", "quantity": 1, "unit_price": None, "amount": None,
                              "received": 0, "rejected": 0, "invoiced": 0}]
    assert body["supplier"] is None and body["total"] is None


def test_a_chat_draft_shows_what_was_asked_so_far_unpriced(demo):
    draft = services.request_draft_save(requester=demo["alice"], fields={
        "department": "ENG", "lines": [{"description": "Monitor", "quantity": None}], "justification": "desk"})
    body = client_for(demo["alice"]).get(url(draft.pk)).json()
    assert (body["state"], body["justification"], body["total"]) == ("draft", "desk", None)
    assert body["lines"] == [{"description": "Monitor", "quantity": None, "unit_price": None, "amount": None,
                              "received": 0, "rejected": 0, "invoiced": 0}]
    assert [t["id"] for t in client_for(demo["alice"]).get(TASKS).json()["results"]] == [str(draft.pk)]


BAD_INPUT = [
    ("no lines", {"lines": []}, "lines"),
    ("lines not a list", {"lines": "Laptop"}, "lines"),
    ("lines an object", {"lines": {"description": "Laptop", "quantity": 1}}, "lines"),
    ("a line not an object", {"lines": ["Laptop"]}, "lines.0"),
    ("too many lines", {"lines": [{"description": "Laptop", "quantity": 1}] * 51}, "lines"),
    ("quantity 0", {"lines": [{"description": "Laptop", "quantity": 0}]}, "lines.0.quantity"),
    ("quantity -1", {"lines": [{"description": "Laptop", "quantity": -1}]}, "lines.0.quantity"),
    ("quantity 10**9", {"lines": [{"description": "Laptop", "quantity": 10**9}]}, "lines.0.quantity"),
    ("quantity in words", {"lines": [{"description": "Laptop", "quantity": "two"}]}, "lines.0.quantity"),
    ("quantity a string", {"lines": [{"description": "Laptop", "quantity": "2"}]}, "lines.0.quantity"),
    ("quantity fractional", {"lines": [{"description": "Laptop", "quantity": 1.5}]}, "lines.0.quantity"),
    ("quantity true", {"lines": [{"description": "Laptop", "quantity": True}]}, "lines.0.quantity"),
    ("second line bad", {"lines": [*LAPTOPS, {"description": "Monitor", "quantity": 0}]}, "lines.1.quantity"),
    ("no quantity", {"lines": [{"description": "Laptop"}]}, "lines.0.quantity"),
    ("no description", {"lines": [{"quantity": 1}]}, "lines.0.description"),
    ("blank description", {"lines": [{"description": "  ", "quantity": 1}]}, "lines.0.description"),
    ("long description", {"lines": [{"description": "x" * 201, "quantity": 1}]}, "lines.0.description"),
    ("negative unit price", {"lines": [{"description": "Laptop", "quantity": 1, "unit_price": "-1"}]},
     "lines.0.unit_price"),
    ("unit price in words", {"lines": [{"description": "Laptop", "quantity": 1, "unit_price": "cheap"}]},
     "lines.0.unit_price"),
    ("5000-char justification", {"justification": "x" * 5000}, "justification"),
    ("blank justification", {"justification": ""}, "justification"),
    ("zero budget", {"budget": "0"}, "budget"),
    ("unknown department", {"department": "XXX"}, "department"),
    ("session not a uuid", {"session": "mine"}, "session"),
    ("unknown session", {"session": str(uuid.uuid4())}, "session"),
]


@pytest.mark.parametrize("body, where", [case[1:] for case in BAD_INPUT], ids=[case[0] for case in BAD_INPUT])
def test_invalid_request_is_refused_with_field_errors_and_nothing_is_created(demo, body, where):
    response = submit(client_for(demo["alice"]), **body)
    assert response.status_code == 400, response.json()
    errors = response.json()["errors"]
    assert [key for key in errors if key == where or key.startswith(where + ".")], errors
    assert all(isinstance(messages, list) and messages for messages in errors.values())
    assert Task.objects.count() == 0 and PurchaseRequest.objects.count() == 0


def test_missing_justification_and_department_are_both_reported(demo):
    response = client_for(demo["alice"]).post(TASKS, {"lines": LAPTOPS}, format="json")
    assert response.status_code == 400
    assert {"department", "justification"} <= response.json()["errors"].keys()


def test_requester_outside_the_department_is_refused_with_400(demo):
    response = submit(client_for(demo["erin"]), department="ENG")
    assert response.status_code == 400
    assert "not a member of Engineering" in response.json()["errors"]["department"][0]
    assert Task.objects.count() == 0


# -- list and read -----------------------------------------------------------------

def test_list_shows_the_callers_tasks_newest_first_in_pages(demo, erp, eager):
    alice = client_for(demo["alice"])
    first, second = submit(alice).json()["id"], submit(alice).json()["id"]
    submit(client_for(demo["erin"]), department="OPS")
    page = alice.get(TASKS, {"page_size": 1}).json()
    assert page.keys() == {"count", "next", "previous", "results"}
    assert (page["count"], page["previous"], [t["id"] for t in page["results"]]) == (2, None, [second])
    assert page["results"][0]["total"] == "73290.00"
    last = alice.get(page["next"]).json()
    assert [t["id"] for t in last["results"]] == [first] and last["next"] is None and last["previous"]


def test_managers_see_their_departments_tasks_and_directors_see_all(demo, erp, eager):
    mine = submit(client_for(demo["alice"])).json()["id"]
    theirs = submit(client_for(demo["erin"]), department="OPS").json()["id"]
    ids = {name: {t["id"] for t in client_for(demo[name]).get(TASKS).json()["results"]}
           for name in ("bob", "dave", "frank", "erin")}
    assert ids == {"bob": {mine}, "dave": {theirs}, "frank": {mine, theirs}, "erin": {theirs}}


def test_outsider_cannot_read_someone_elses_task(demo, erp, eager):
    task_id = submit(client_for(demo["alice"])).json()["id"]
    erin = client_for(demo["erin"])
    response = erin.get(url(task_id))
    assert response.status_code == 404 and response.json() == {"detail": "No such task."}
    assert erin.get(url("not-a-uuid")).status_code == 404
    assert client_for(demo["bob"]).get(url(task_id)).json()["id"] == task_id


def test_task_body_costs_the_same_queries_however_long_its_history(demo, erp, eager, django_assert_num_queries):
    alice = client_for(demo["alice"])
    short = submit(alice, lines=[{"description": "flux capacitor", "quantity": 1}]).json()
    long = submit(alice).json()
    bob = client_for(demo["bob"])
    approval = long["approvals"][0]
    bob.post(f"/api/v1/approvals/{approval['id']}/decision/",
             {"decision": "approve", "state_version": approval["state_version"]}, format="json")
    with CaptureQueriesContext(connection) as few:
        body = alice.get(url(short["id"])).json()
    assert len(body["events"]) == 4 and body["receipts"] == [] and body["approvals"] == []
    with django_assert_num_queries(len(few.captured_queries)):
        body = alice.get(url(long["id"])).json()
    assert len(body["events"]) > 6 and len(body["receipts"]) == 2 and len(body["approvals"]) == 1


def test_task_list_costs_the_same_queries_however_many_tasks(demo, erp, eager, django_assert_num_queries):
    alice, bob = client_for(demo["alice"]), client_for(demo["bob"])
    submit(alice)
    with CaptureQueriesContext(connection) as one:
        assert bob.get(TASKS).json()["count"] == 1
    queries = len(one.captured_queries)  # read now: every request clears the query log
    submit(alice, lines=[{"description": "Laptop", "quantity": 1}, {"description": "Monitor", "quantity": 2}])
    submit(alice, lines=[{"description": "flux capacitor", "quantity": 1}])
    with django_assert_num_queries(queries):
        assert bob.get(TASKS).json()["count"] == 3


# -- amend -------------------------------------------------------------------------

def test_requester_amends_the_lines_and_a_fresh_approval_opens_for_the_new_version(demo, erp, eager):
    alice = client_for(demo["alice"])
    task = submit(alice).json()
    response = alice.patch(url(task["id"]), {"lines": [{"description": "Laptop", "quantity": 1}],
                                             "version": task["version"]}, format="json")
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["state"] == "awaiting_approval" and body["version"] > task["version"]
    assert body["lines"][0]["quantity"] == 1 and body["total"] == "36645.00"
    assert {a["status"] for a in body["approvals"]} == {"superseded", "pending"}
    assert sorted(r["status"] for r in erp.requisitions()) == ["cancelled", "pending_approval"]


def test_amending_a_version_that_moved_on_is_refused_with_409_and_nothing_changes(demo, erp, eager):
    alice = client_for(demo["alice"])
    task = submit(alice).json()
    response = alice.patch(url(task["id"]), {"justification": "changed", "version": 1}, format="json")
    assert response.status_code == 409
    assert response.json()["current_version"] == task["version"]
    assert alice.get(url(task["id"])).json()["version"] == task["version"]


def test_only_the_requester_may_amend(demo, erp, eager):
    task = submit(client_for(demo["alice"])).json()
    change = {"justification": "bigger team"}
    assert client_for(demo["bob"]).patch(url(task["id"]), change, format="json").status_code == 403
    assert client_for(demo["erin"]).patch(url(task["id"]), change, format="json").status_code == 404
    assert Task.objects.get(pk=task["id"]).version == task["version"]


def test_an_amendment_must_change_something(demo, erp, eager):
    alice = client_for(demo["alice"])
    task = submit(alice).json()
    response = alice.patch(url(task["id"]), {"version": task["version"]}, format="json")
    assert response.status_code == 400 and response.json()["errors"]["non_field_errors"]
    response = alice.patch(url(task["id"]), {"lines": [{"description": "Laptop", "quantity": 0}]}, format="json")
    assert response.status_code == 400 and response.json()["errors"]["lines.0.quantity"]
    assert Task.objects.get(pk=task["id"]).version == task["version"]


# -- cancel ------------------------------------------------------------------------

def test_cancel_ends_the_task_and_cancels_its_requisition_in_the_erp(demo, erp, eager):
    alice = client_for(demo["alice"])
    task = submit(alice).json()
    assert [r["status"] for r in erp.requisitions()] == ["pending_approval"]
    response = alice.post(url(task["id"], "cancel/"), {"reason": "hires postponed"}, format="json")
    assert response.status_code == 200 and response.json()["state"] == "cancelled"
    assert [r["status"] for r in erp.requisitions()] == ["cancelled"]
    assert Approval.objects.get(task_id=task["id"]).status != "pending"
    again = alice.post(url(task["id"], "cancel/"))
    assert again.status_code == 409 and again.json()["detail"]


def test_cancel_before_any_requisition_touches_nothing_outside(demo, erp, eager):
    alice = client_for(demo["alice"])
    task = submit(alice, lines=[{"description": "flux capacitor", "quantity": 1}]).json()
    response = alice.post(url(task["id"], "cancel/"))
    assert response.status_code == 200 and response.json()["state"] == "cancelled"
    assert erp.requisitions() == []


def test_an_outsider_cannot_cancel(demo, erp, eager):
    task = submit(client_for(demo["alice"])).json()
    assert client_for(demo["erin"]).post(url(task["id"], "cancel/")).status_code == 404
    assert client_for(demo["bob"]).post(url(task["id"], "cancel/")).status_code == 403
    assert Task.objects.get(pk=task["id"]).state == "awaiting_approval"


# -- authentication ----------------------------------------------------------------

def test_without_credentials_the_api_answers_401(demo):
    response = APIClient().get(TASKS)
    assert response.status_code == 401 and response["WWW-Authenticate"] == "Token"
    assert APIClient().post(TASKS, {}, format="json").status_code == 401


def test_a_token_made_by_drf_create_token_authenticates(demo, erp, eager):
    out = io.StringIO()
    call_command("drf_create_token", "alice", stdout=out)
    key = out.getvalue().split()[2]
    assert out.getvalue() == f"Generated token {key} for user alice\n"
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert submit(client).status_code == 201
    assert client.get(TASKS).json()["count"] == 1
    client.credentials(HTTP_AUTHORIZATION="Token wrong")
    assert client.get(TASKS).status_code == 401


def test_a_logged_in_browser_session_authenticates(demo):
    client = APIClient(enforce_csrf_checks=True)
    assert client.login(username="alice", password="demo")
    assert client.get(TASKS).json()["count"] == 0
    # A session without its CSRF token may not write.
    assert submit(client).status_code == 403

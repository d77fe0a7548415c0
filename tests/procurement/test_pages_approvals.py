"""The manager's inbox and approval page: scope before the buttons, bound to a version."""
import pytest
from django.test import Client
from django.urls import reverse

from agentstate.models import Approval
from procurement import services

pytestmark = pytest.mark.django_db(transaction=True)
HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def approval(demo, erp, eager):
    task = services.request_submit(requester=demo["alice"], department="ENG", justification="new hires",
                                   lines=[{"description": "Laptop", "quantity": 2}])
    return Approval.objects.get(task=task, status="pending")


def client_for(user, csrf=False):
    client = Client(enforce_csrf_checks=csrf)
    client.force_login(user)
    return client


def csrf_post(client, url, data, **extra):
    client.get(reverse("approval-inbox"))  # sets the CSRF cookie
    token = client.cookies["csrftoken"].value
    return client.post(url, data | {"csrfmiddlewaretoken": token}, **extra)


def decision(approval, **overrides):
    return {"decision": "approve", "state_version": approval.state_version, "scope_hash": approval.scope_hash,
            "comment": ""} | overrides


def test_inbox_lists_the_pending_approval_with_total_and_time_left(approval, demo):
    page = client_for(demo["bob"]).get(reverse("approval-inbox"))
    body = page.content.decode()
    assert page.status_code == 200 and "2 × Laptop" in body and "NT$" in body and "alice" in body


def test_inbox_runs_a_fixed_number_of_queries_however_many_approvals(approval, demo, django_assert_num_queries):
    client = client_for(demo["bob"])
    client.get(reverse("approval-inbox"))
    with django_assert_num_queries(7) as one:
        client.get(reverse("approval-inbox"))
    for n in range(3):
        services.request_submit(requester=demo["alice"], department="ENG", justification=f"more {n}",
                                lines=[{"description": "Keyboard", "quantity": n + 1}])
    with django_assert_num_queries(len(one.captured_queries)):
        page = client.get(reverse("approval-inbox"))
    assert page.content.decode().count("/approvals/") >= 4


def test_approval_page_shows_the_scope_in_plain_words_before_the_buttons(approval, demo):
    body = client_for(demo["bob"]).get(reverse("approval-page", args=[approval.pk])).content.decode()
    scope = approval.scope
    assert body.index("Approving will:") < body.index('name="decision" value="approve"')
    for words in (scope["supplier"]["name"], scope["erp_requisition"], scope["cost_centre"],
                  f'value="{approval.state_version}"', approval.scope_hash, "bound to version"):
        assert str(words) in body


def test_outsider_and_requester_get_404_for_the_approval(approval, demo):
    for who in ("dave", "alice", "erin"):
        assert client_for(demo[who]).get(reverse("approval-page", args=[approval.pk])).status_code == 404
        assert client_for(demo[who]).post(reverse("approval-decide", args=[approval.pk]),
                                          decision(approval)).status_code == 404
    assert Approval.objects.get(pk=approval.pk).status == "pending"


def test_approve_with_htmx_answers_only_the_fragment(approval, demo):
    client = client_for(demo["bob"], csrf=True)
    page = csrf_post(client, reverse("approval-decide", args=[approval.pk]), decision(approval), **HX)
    body = page.content.decode()
    assert page.status_code == 200 and "Decided: Approved" in body and "<html" not in body


def test_without_csrf_token_nothing_is_decided(approval, demo):
    client = client_for(demo["bob"], csrf=True)
    assert client.post(reverse("approval-decide", args=[approval.pk]), decision(approval)).status_code == 403
    assert Approval.objects.get(pk=approval.pk).status == "pending"


def test_reject_without_a_reason_says_so_and_decides_nothing(approval, demo):
    page = client_for(demo["bob"]).post(reverse("approval-decide", args=[approval.pk]),
                                        decision(approval, decision="reject"), **HX)
    assert page.status_code == 400 and "comment is required to reject" in page.content.decode()
    assert Approval.objects.get(pk=approval.pk).status == "pending"


def test_a_stale_click_names_both_versions_and_decides_nothing(approval, demo):
    opened = client_for(demo["bob"])
    opened.get(reverse("approval-page", args=[approval.pk]))
    services.request_amend(task_id=approval.task_id, user=demo["alice"], lines=[{"description": "Laptop", "quantity": 1}])
    page = opened.post(reverse("approval-decide", args=[approval.pk]), decision(approval), **HX)
    body = page.content.decode()
    assert page.status_code == 409 and "This request changed since you opened it" in body
    assert f"v{approval.state_version} →" in body
    assert "alice · amend: amended to revision 2" in body  # what changed, and who changed it
    current = Approval.objects.get(task=approval.task, status="pending")
    assert reverse("approval-page", args=[current.pk]) in body and f"current version (v{current.state_version})" in body
    assert Approval.objects.filter(task=approval.task, status="approved").count() == 0


@pytest.mark.parametrize("tamper", [{"state_version": "abc"}, {"scope_hash": "f" * 64}, {"state_version": 1}])
def test_a_tampered_form_is_refused_with_a_message(approval, demo, tamper):
    page = client_for(demo["bob"]).post(reverse("approval-decide", args=[approval.pk]), decision(approval, **tamper))
    assert page.status_code in (400, 409) and 'role="alert"' in page.content.decode()
    assert Approval.objects.get(pk=approval.pk).status == "pending"


def test_a_double_click_makes_one_decision(approval, demo):
    client = client_for(demo["bob"])
    first = client.post(reverse("approval-decide", args=[approval.pk]), decision(approval), **HX)
    second = client.post(reverse("approval-decide", args=[approval.pk]), decision(approval), **HX)
    assert (first.status_code, second.status_code) == (200, 409)
    assert "already approved" in second.content.decode()


def test_approval_page_queries_do_not_grow_with_lines_or_versions(approval, demo, django_assert_num_queries):
    client = client_for(demo["bob"])
    with django_assert_num_queries(7) as first:
        client.get(reverse("approval-page", args=[approval.pk]))
    services.request_amend(task_id=approval.task_id, user=demo["alice"], lines=[
        {"description": item, "quantity": 1} for item in ["Laptop", "Monitor", "Keyboard", "USB-C dock", "Office chair"]])
    bigger = Approval.objects.get(task=approval.task, status="pending")
    assert len(bigger.scope["lines"]) == 5
    with django_assert_num_queries(len(first.captured_queries)):
        body = client.get(reverse("approval-page", args=[bigger.pk])).content.decode()
    assert "Changed since the previous version" in body

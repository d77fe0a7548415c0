"""Delegation (代理人, DESIGN §7, §9, §10): while it runs the delegate decides what is routed to the
person they stand in for, recorded "dave on behalf of bob"; it does not chain and ends by itself.
Bad input is refused field by field in the caller's language, and nothing is written."""
import re
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from agentstate.models import Approval
from procurement.models import Delegation

from tests.procurement.policy_support import APPROVALS, SMALL, api, body, decide, pending, submit

pytestmark = pytest.mark.django_db(transaction=True)
DELEGATIONS = "/api/v1/delegations/"


def this_week():
    today = timezone.localdate()
    return today, today + timedelta(days=6)


def delegate(by, to, starts=None, ends=None, language="en"):
    week = this_week()
    return api(by, language).post(DELEGATIONS, {"delegate": to, "starts": str(starts or week[0]),
                                                "ends": str(ends or week[1])}, format="json")


def page(user, url, language="en"):
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    return client.get(url).content.decode()


def offered_delegates(html: str) -> list[str]:
    [picker] = re.findall(r'<select name="delegate".*?</select>', html, re.S)
    return re.findall(r'<option value="([^"]+)"', picker)


def test_bob_delegates_to_dave_and_dave_approves_an_eng_request_on_behalf_of_bob(demo, erp, eager):
    task = submit(demo["alice"], SMALL)  # pending before the delegation: it becomes dave's to decide too
    approval = pending(task)
    created = delegate(demo["bob"], "dave")
    assert created.status_code == 201, created.json()
    assert created.json() | {"id": 0} == {"id": 0, "delegator": "bob", "delegate": "dave",
                                          "starts": str(this_week()[0]), "ends": str(this_week()[1]), "active": True}
    assert [a["id"] for a in api(demo["dave"]).get(APPROVALS, {"status": "pending"}).json()["results"]] == [
        str(approval.pk)]
    assert "REQ-" in page(demo["dave"], reverse("approval-inbox"))
    assert "You stand in for Bob Wang" in page(demo["dave"], reverse("approval-page", args=[approval.pk]))

    response = decide(demo["dave"], approval)
    assert response.status_code == 200, response.json()
    answer = response.json()
    assert (answer["status"], answer["decided_by"], answer["on_behalf_of"]) == ("approved", "dave", "bob")
    [step] = body(demo["dave"], approval).json()["chain"]
    assert (step["status"], step["decided_by"], step["on_behalf_of"]) == ("approved", "dave", "bob")
    task.refresh_from_db()
    assert task.state == "externally_confirmed"
    zh = page(demo["bob"], reverse("approval-page", args=[approval.pk]), "zh-hant")
    assert "Dave Huang 代 Bob Wang 核准" in zh
    assert "Dave Huang approved on behalf of Bob Wang" in page(demo["bob"], reverse("approval-page", args=[approval.pk]))
    timeline = page(demo["alice"], reverse("task-page", args=[task.pk]), "zh-hant")
    assert "代 Bob Wang 簽核" in timeline
    assert '<span class="decision">Dave Huang 代 Bob Wang 核准，' in timeline, \
        "the approval history says for whom, as the timeline does"
    # bob may not decide it again in person: it is decided, and it was his step.
    assert decide(demo["bob"], approval).status_code == 409


def test_a_delegates_delegate_gets_nothing(demo, erp, eager):
    approval = pending(submit(demo["alice"], SMALL))
    assert delegate(demo["bob"], "dave").status_code == 201
    # Written directly: erin, a requester, could not be named through the API or the page (see below).
    Delegation.objects.create(delegator=demo["dave"], delegate=demo["erin"], starts=this_week()[0],
                              ends=this_week()[1])
    assert api(demo["erin"]).get(APPROVALS, {"status": "pending"}).json()["results"] == []
    assert decide(demo["erin"], approval).status_code == 404
    assert Approval.objects.get(pk=approval.pk).status == "pending"


def test_a_delegation_outside_its_dates_gives_nothing(demo, erp, eager):
    approval = pending(submit(demo["alice"], SMALL))
    today = timezone.localdate()
    Delegation.objects.create(delegator=demo["bob"], delegate=demo["dave"], starts=today - timedelta(days=9),
                              ends=today - timedelta(days=1))
    Delegation.objects.create(delegator=demo["bob"], delegate=demo["dave"], starts=today + timedelta(days=1),
                              ends=today + timedelta(days=3))
    assert api(demo["dave"]).get(APPROVALS, {"status": "pending"}).json()["results"] == []
    assert decide(demo["dave"], approval).status_code == 404
    assert Approval.objects.get(pk=approval.pk).status == "pending"


@pytest.mark.parametrize("language, words", [
    ("en", {"self": "You cannot delegate to yourself.", "past": "A delegation cannot start in the past.",
            "overlap": "the dates may not overlap", "nobody": "No such person: nobody."}),
    ("zh-hant", {"self": "不能指定自己為代理人。", "past": "代理期間不能從過去的日期開始。",
                 "overlap": "代理期間不可重疊", "nobody": "查無此人：nobody。"})])
def test_bad_delegations_are_refused_field_by_field_in_the_callers_language(demo, language, words):
    today = timezone.localdate()
    bob = demo["bob"]
    refused = delegate(bob, "bob", language=language)
    assert refused.status_code == 400 and words["self"] in refused.json()["errors"]["delegate"]
    refused = delegate(bob, "dave", starts=today - timedelta(days=2), ends=today - timedelta(days=1),
                       language=language)
    assert refused.status_code == 400 and words["past"] in refused.json()["errors"]["starts"]
    assert refused.json()["errors"]["ends"]
    refused = delegate(bob, "nobody", language=language)
    assert refused.status_code == 400 and words["nobody"] in refused.json()["errors"]["delegate"]
    assert delegate(bob, "dave", language=language).status_code == 201
    refused = delegate(bob, "frank", starts=today + timedelta(days=3), ends=today + timedelta(days=10),
                       language=language)
    assert refused.status_code == 400 and words["overlap"] in refused.json()["errors"]["starts"][0]
    refused = api(bob, language).post(DELEGATIONS, {"delegate": "dave", "starts": "soon"}, format="json")
    assert refused.status_code == 400 and set(refused.json()["errors"]) == {"starts", "ends"}
    assert Delegation.objects.count() == 1


@pytest.mark.parametrize("language, words", [("en", "two people cannot stand in for each other"),
                                              ("zh-hant", "兩人不能在同一段日期互為代理人")])
def test_two_people_delegating_to_each_other_over_overlapping_days_is_refused(demo, language, words):
    today = timezone.localdate()
    assert delegate(demo["bob"], "dave", starts=today, ends=today + timedelta(days=6)).status_code == 201
    refused = delegate(demo["dave"], "bob", starts=today + timedelta(days=6), ends=today + timedelta(days=9),
                       language=language)
    assert refused.status_code == 400 and words in refused.json()["errors"]["delegate"][0]
    assert Delegation.objects.count() == 1
    later = delegate(demo["dave"], "bob", starts=today + timedelta(days=7), ends=today + timedelta(days=9))
    assert later.status_code == 201


def test_only_the_delegator_ends_a_delegation(demo):
    made = delegate(demo["bob"], "dave").json()
    assert api(demo["dave"]).delete(f"{DELEGATIONS}{made['id']}/").status_code == 404
    assert api(demo["alice"]).get(DELEGATIONS).json()["count"] == 0
    assert api(demo["dave"]).get(DELEGATIONS).json()["count"] == 1  # he sees whom he stands in for
    assert api(demo["bob"]).delete(f"{DELEGATIONS}{made['id']}/").status_code == 204
    assert not Delegation.objects.exists()
    assert api(demo["bob"]).delete(f"{DELEGATIONS}nonsense/").status_code == 404


@pytest.mark.parametrize("language, message, saved", [
    ("en", "You cannot delegate to yourself.", "Dave Huang decides for you from"),
    ("zh-hant", "不能指定自己為代理人。", "Dave Huang 自")])
def test_the_delegation_page_names_a_delegate_and_refuses_bad_input(demo, language, message, saved):
    client = Client(enforce_csrf_checks=True, HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(demo["bob"])
    url = reverse("delegations")
    form = client.get(url)
    assert form.status_code == 200 and 'type="date"' in form.content.decode()
    offered = offered_delegates(form.content.decode())
    assert offered == ["carol", "dave", "frank"], offered  # the other approvers (carol: finance): no requester
    assert reverse("delegations") in page(demo["bob"], reverse("approval-inbox"))  # linked from the header
    token = client.cookies["csrftoken"].value
    start, end = this_week()
    refused = client.post(url, {"delegate": "bob", "starts": start, "ends": end, "csrfmiddlewaretoken": token})
    assert refused.status_code == 400 and message in refused.content.decode() and not Delegation.objects.exists()
    done = client.post(url, {"delegate": "dave", "starts": start, "ends": end, "csrfmiddlewaretoken": token},
                       follow=True)
    assert done.status_code == 200 and saved in done.content.decode()
    delegation = Delegation.objects.get()
    client.post(reverse("delegation-end", args=[delegation.pk]), {"csrfmiddlewaretoken": token})
    assert not Delegation.objects.exists()


@pytest.mark.parametrize("language, waiting, chain", [
    ("en", "Waiting for approval by Bob Wang or Dave Huang on behalf of Bob Wang", "Bob Wang or Dave Huang on behalf of Bob Wang"),
    ("zh-hant", "等待 Bob Wang 或 Dave Huang（代 Bob Wang）", "Bob Wang 或 Dave Huang（代 Bob Wang）")])
def test_while_bob_is_away_the_requester_and_the_chain_name_dave_standing_in(demo, erp, eager, language, waiting,
                                                                              chain):
    task = submit(demo["alice"], SMALL)
    approval = pending(task)
    assert delegate(demo["bob"], "dave").status_code == 201
    task_page = page(demo["alice"], reverse("task-page", args=[task.pk]), language)
    assert waiting in task_page, re.findall(r'class="waiting">[^<]*', task_page)
    assert waiting in page(demo["alice"], reverse("my-requests"), language)
    assert chain in page(demo["bob"], reverse("approval-page", args=[approval.pk]), language)


@pytest.mark.parametrize("language, words", [("en", "you decide on behalf of Bob Wang"), ("zh-hant", "您代 Bob Wang 簽核")])
def test_daves_inbox_row_says_he_decides_on_behalf_of_bob(demo, erp, eager, language, words):
    submit(demo["alice"], SMALL)
    assert words not in page(demo["dave"], reverse("approval-inbox"), language)
    assert delegate(demo["bob"], "dave").status_code == 201
    assert words in page(demo["dave"], reverse("approval-inbox"), language)
    assert words not in page(demo["bob"], reverse("approval-inbox"), language)  # his own, in person


@pytest.mark.parametrize("language, words", [
    ("en", {"alice": "alice does not decide approvals (no manager, director or finance role), so cannot decide "
                     "yours; choose an approver.", "detail": "The delegation was not saved; see the fields."}),
    ("zh-hant", {"alice": "alice 不負責簽核（沒有主管、處長或財務的角色），無法代您簽核；請選擇一位簽核人。",
                 "detail": "代理人設定未儲存，請看各欄位的說明。"})])
def test_the_api_refuses_a_delegate_who_decides_no_approvals(demo, language, words):
    refused = delegate(demo["bob"], "alice", language=language)
    assert refused.status_code == 400
    assert refused.json()["errors"]["delegate"] == [words["alice"]]
    assert refused.json()["detail"] == words["detail"]
    assert delegate(demo["bob"], "erin", language=language).status_code == 400
    assert not Delegation.objects.exists()
    assert delegate(demo["bob"], "frank", language=language).status_code == 201


@pytest.mark.parametrize("language, message", [
    ("en", "alice does not decide approvals (no manager, director or finance role)"),
    ("zh-hant", "alice 不負責簽核（沒有主管、處長或財務的角色）")])
def test_the_page_refuses_a_requester_as_delegate_and_keeps_the_form(demo, language, message):
    client = Client(enforce_csrf_checks=True, HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(demo["bob"])
    url = reverse("delegations")
    client.get(url)
    start, end = this_week()
    refused = client.post(url, {"delegate": "alice", "starts": start, "ends": end,
                                "csrfmiddlewaretoken": client.cookies["csrftoken"].value})
    html = refused.content.decode()
    assert refused.status_code == 400 and message in html
    assert f'value="{start}"' in html and f'value="{end}"' in html, "the dates she typed are still there"
    assert offered_delegates(html) == ["carol", "dave", "frank"]
    assert not Delegation.objects.exists()


def test_the_delegate_picker_names_people_by_their_names(demo):
    html = page(demo["bob"], reverse("delegations"))
    [picker] = re.findall(r'<select name="delegate".*?</select>', html, re.S)
    assert re.findall(r'<option value="([^"]+)">([^<]+)</option>', picker) == [
        ("carol", "Carol Wu"), ("dave", "Dave Huang"), ("frank", "Frank Chang")]


def test_a_person_the_policy_names_in_a_step_is_offered_and_accepted(demo):
    from procurement.models.policy import ApprovalPolicy
    from procurement.policy.rules import current_policy

    policy = current_policy()
    rules = [rule | {"steps": [*rule["steps"], {**rule["steps"][0], "role": "", "user": "erin"}]}
             if rule["department"] == "OPS" else rule for rule in policy.rules]
    ApprovalPolicy.objects.create(version=policy.version + 1, rules=rules, created_by=demo["carol"])
    client = Client()
    client.force_login(demo["dave"])
    offered = offered_delegates(client.get(reverse("delegations")).content.decode())
    assert offered == ["bob", "carol", "erin", "frank"], offered
    assert delegate(demo["dave"], "erin").status_code == 201


def test_a_page_reads_todays_delegations_once(demo, erp, eager):
    """The header's "stands in for someone today" and "waiting for bob or dave on behalf of bob" share one read."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    task = submit(demo["alice"], SMALL)
    assert delegate(demo["bob"], "dave").status_code == 201
    client = Client()
    client.force_login(demo["alice"])
    for url in (reverse("my-requests"), reverse("task-page", args=[task.pk])):
        with CaptureQueriesContext(connection) as queries:
            body = client.get(url).content.decode()
        assert "Waiting for approval by Bob Wang or Dave Huang on behalf of Bob Wang" in body
        reads = [q["sql"] for q in queries.captured_queries if 'FROM "procurement_delegation"' in q["sql"]]
        assert len(reads) == 1, reads


def test_requesters_have_no_delegation_page_and_no_link_to_one(demo):
    for requester in ("alice", "erin"):
        client = Client()
        client.force_login(demo[requester])
        assert client.get(reverse("delegations")).status_code == 404
        assert client.post(reverse("delegations"), {"delegate": "bob"}).status_code == 404
        assert f'href="{reverse("delegations")}"' not in client.get(reverse("my-requests")).content.decode()
    assert f'href="{reverse("delegations")}"' in page(demo["bob"], reverse("delegations"))

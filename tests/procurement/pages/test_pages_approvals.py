"""The manager's inbox and approval page: scope before the buttons, bound to a version."""
import html
import re
from datetime import timedelta
from decimal import Decimal

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from agentstate.approvals import approvals_expire
from agentstate.models import Approval
from procurement.purchase import services

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
    assert page.status_code == 200 and "Laptop × 2" in body and "NT$" in body and "Alice Lin" in body


def test_inbox_runs_a_fixed_number_of_queries_however_many_approvals(approval, demo, django_assert_num_queries):
    client = client_for(demo["bob"])
    client.get(reverse("approval-inbox"))
    # 9 since the rows read whom the viewer stands in for (one query), to say "you decide on behalf of bob";
    # 10 since a page's ids are read before its rows (a million approvals are not joined to their tasks).
    with django_assert_num_queries(10) as one:  # the header counts unread notices
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
                  f'value="{approval.state_version}"', approval.scope_hash, "your decision applies to this version only (revision 1)"):
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


def test_a_stale_click_names_the_current_revision_and_decides_nothing(approval, demo):
    opened = client_for(demo["bob"])
    opened.get(reverse("approval-page", args=[approval.pk]))
    services.request_amend(task_id=approval.task_id, user=demo["alice"], lines=[{"description": "Laptop", "quantity": 1}])
    page = opened.post(reverse("approval-decide", args=[approval.pk]), decision(approval), **HX)
    body = page.content.decode()
    assert page.status_code == 409 and "This request changed since you opened it" in body
    assert f"v{approval.state_version}" not in body  # the revision people number, not the engine's version
    assert "Alice Lin · Amended: amended to revision 2" in body  # what changed, and who changed it
    current = Approval.objects.get(task=approval.task, status="pending")
    assert reverse("approval-page", args=[current.pk]) in body and "current version (revision 2)" in body
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
    # 11: the header counts unread notices; the chain's decisions come in one query; the click is
    # re-checked against bob's membership in one more; the department and its holds give the
    # budget outlook in two; 12 since the current step's running delegations (one query) name the
    # delegate standing in; 13 since the people it names are named by their full names, read in one query;
    # 14 since what she answered the agent before any approval (its question) is read too; 15 since
    # the forks of the same request still open are looked up (selectors.forks: one query with none).
    with django_assert_num_queries(15) as first:
        client.get(reverse("approval-page", args=[approval.pk]))
    services.request_amend(task_id=approval.task_id, user=demo["alice"], lines=[
        {"description": item, "quantity": 1} for item in ["Laptop", "Monitor", "Keyboard", "USB-C dock", "Office chair"]])
    bigger = Approval.objects.get(task=approval.task, status="pending")
    assert len(bigger.scope["lines"]) == 5
    # The same once there is a previous version: what the requester said since it (her reply, the purpose).
    with django_assert_num_queries(len(first.captured_queries)) as second:
        body = client.get(reverse("approval-page", args=[bigger.pk])).content.decode()
    assert "Changed since the previous version" in body
    services.request_amend(task_id=approval.task_id, user=demo["alice"], lines=[{"description": "Laptop", "quantity": 1}])
    third = Approval.objects.get(task=approval.task, status="pending")
    with django_assert_num_queries(len(second.captured_queries)):
        client.get(reverse("approval-page", args=[third.pk]))


# -- every status, both languages; what a decided approval says ----------------------------

def page_for(user, approval, language="en"):
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    return client.get(reverse("approval-page", args=[approval.pk]))


@pytest.fixture
def amended_before_reaward(approval, demo, monkeypatch):
    """alice amends; the agent has not re-awarded yet: the task has no award and no requisition."""
    monkeypatch.setattr(services, "enqueue_advance", lambda task_id: None)
    services.request_amend(task_id=approval.task_id, user=demo["alice"], lines=[{"description": "Laptop", "quantity": 1}])
    task = approval.task.__class__.objects.get(pk=approval.task_id)
    assert task.data["award"] is None and task.data["requisition"] is None
    return Approval.objects.get(pk=approval.pk)


def decided(approval, user, decision, comment=""):
    services.approval_decide(approval_id=approval.pk, user=user, decision=decision,
                             state_version=approval.state_version, scope_hash=approval.scope_hash, comment=comment)
    return Approval.objects.select_related("task").get(pk=approval.pk)


@pytest.mark.parametrize("language", ["en", "zh-hant"])
def test_the_page_of_an_approval_superseded_by_an_amendment_before_the_reaward_renders(
        amended_before_reaward, demo, language):
    page = page_for(demo["bob"], amended_before_reaward, language)
    body = page.content.decode()
    assert page.status_code == 200 and amended_before_reaward.status == "superseded"
    assert ("replaced by a newer version" if language == "en" else "已被請購的新版本取代") in body
    assert 'name="decision"' not in body  # nothing left to click
    assert reverse("task-page", args=[amended_before_reaward.task_id]) in body


@pytest.mark.parametrize("language", ["en", "zh-hant"])
@pytest.mark.parametrize("status", ["pending", "approved", "rejected", "returned", "superseded", "expired"])
def test_the_page_renders_for_every_approval_status(approval, demo, status, language):
    if status in ("approved", "rejected", "returned"):
        decided(approval, demo["bob"], {"approved": "approve", "rejected": "reject", "returned": "return"}[status],
                comment="a reason")
    elif status == "superseded":
        services.request_amend(task_id=approval.task_id, user=demo["alice"],
                               lines=[{"description": "Laptop", "quantity": 1}])
    elif status == "expired":
        Approval.objects.filter(pk=approval.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
        approvals_expire()
    assert Approval.objects.get(pk=approval.pk).status == status
    page = page_for(demo["bob"], approval, language)
    assert page.status_code == 200
    body = page.content.decode()
    asks = 'name="decision" value="approve"' in body
    assert asks == (status == "pending")
    assert (f'status-{status}') in body


def test_a_decided_approval_shows_who_when_the_comment_and_the_po_number(approval, demo):
    done = decided(approval, demo["bob"], "approve", comment="ok for the new hires")
    po = done.task.__class__.objects.get(pk=done.task_id).data["purchase_order"]["id"]
    body = page_for(demo["bob"], done).content.decode()
    assert "Approve this purchase?" not in body and "Approval: Approved" in body
    when = timezone.localtime(done.decided_at).strftime("%Y-%m-%d %H:%M")
    for words in (f"Decided by</dt><dd>{demo['bob'].get_full_name()}</dd>", when, "ok for the new hires", f"Purchase order {po} issued."):
        assert words in body, words
    assert "This approval covered:" in body and "Approving will:" not in body


def test_a_returned_approval_reads_in_chinese_with_its_comment(approval, demo):
    done = decided(approval, demo["bob"], "return", comment="只要一台")
    body = page_for(demo["bob"], done, "zh-hant").content.decode()
    assert "簽核人" in body and "只要一台" in body and "請購已退回申請人修改" in body


def test_a_superseded_approval_links_the_current_version(approval, demo):
    services.request_amend(task_id=approval.task_id, user=demo["alice"], lines=[{"description": "Laptop", "quantity": 1}])
    current = Approval.objects.get(task=approval.task, status="pending")
    body = page_for(demo["bob"], approval).content.decode()
    assert f'href="{reverse("approval-page", args=[current.pk])}"' in body
    assert "Open the current version (revision 2)" in body


def test_a_superseded_approval_shows_its_own_versions_purpose_and_lines_not_todays(approval, demo):
    first_purpose = approval.task.purchase_request.justification
    services.request_amend(task_id=approval.task_id, user=demo["alice"], justification="one spare for the lab",
                           lines=[{"description": "Monitor", "quantity": 3}])
    services.request_amend(task_id=approval.task_id, user=demo["alice"], justification="two spares for the lab")
    second = Approval.objects.filter(task=approval.task).order_by("created_at")[1]
    for old, purpose, item, quantity in ((approval, first_purpose, "Laptop", "2"),
                                         (second, "one spare for the lab", "Monitor", "3")):
        old.refresh_from_db()
        assert old.status == "superseded"
        body = page_for(demo["bob"], old).content.decode()
        assert re.search(r"<dt>Purpose</dt><dd>([^<]*)</dd>", body).group(1) == purpose
        assert "two spares for the lab" not in body
        [row] = re.findall(r'<tbody><tr>\s*<td data-label="Item">([^<]+)</td>\s*<td data-label="Qty" class="num">(\d+)',
                           body)
        assert row == (item, quantity)


def test_the_page_says_the_purpose_the_requesters_cap_and_why_it_came_here(demo, erp, eager):
    task = services.request_submit(requester=demo["alice"], department="ENG", justification="new hires in March",
                                   budget=Decimal("80000"), lines=[{"description": "Laptop", "quantity": 2}])
    approval = Approval.objects.get(task=task, status="pending")
    body = page_for(demo["bob"], approval).content.decode()
    for words in (task.purchase_request.number, "new hires in March", "NT$80,000",
                  # the amount in a nowrap span, even inside a sentence
                  "within the Engineering manager's limit of <span class=\"money\">NT$100,000</span>",
                  "Routed to: Bob Wang or Frank Chang", 'href="#quotes"', 'id="quotes"',
                  reverse("task-page", args=[task.pk])):
        assert words in body, words
    zh = page_for(demo["bob"], approval, "zh-hant").content.decode()
    assert "用途" in zh and "申請人自訂的預算上限" in zh and "因此由部門主管簽核" in zh
    assert "送交：Bob Wang 或 Frank Chang（任一位簽核即可）" in zh  # named as every page names waiting approvers


def test_above_the_managers_limit_the_page_shows_the_chain_manager_then_director(demo, erp, eager):
    task = services.request_submit(requester=demo["alice"], department="ENG", justification="team laptops",
                                   lines=[{"description": "Laptop", "quantity": 4}])
    approval = Approval.objects.get(task=task, status="pending")
    body = page_for(demo["frank"], approval).content.decode()
    assert "needs the approval chain below, step by step" in body
    assert "department manager (Bob Wang)" in body and "director (Frank Chang)" in body
    assert 'name="decision"' not in body  # the director's step comes second
    assert 'name="decision"' in page_for(demo["bob"], approval).content.decode()


@pytest.mark.parametrize("language, words", [
    ("en", "You approved step 1 ("), ("zh-hant", "您已核准第 1 關（")])
def test_after_approving_step_one_the_manager_reads_that_he_did_not_that_it_was_never_his(demo, erp, eager,
                                                                                         language, words):
    task = services.request_submit(requester=demo["alice"], department="ENG", justification="team laptops",
                                   lines=[{"description": "Laptop", "quantity": 4}])
    approval = Approval.objects.get(task=task, status="pending")
    client_for(demo["bob"]).post(reverse("approval-decide", args=[approval.pk]), decision(approval))
    body = page_for(demo["bob"], approval, language).content.decode()
    assert words in body and 'name="decision"' not in body
    assert "not routed to you" not in body and "不是送交您簽核" not in body
    assert "You approved step" not in page_for(demo["alice"], approval).content.decode()


# -- the decide form's bad input ---------------------------------------------------------------

@pytest.mark.parametrize("language, message", [
    ("en", "A comment is required to return it: say what should change."),
    ("zh-hant", "退回須填寫意見：請說明要修改什麼。")])
def test_a_return_with_an_empty_comment_is_a_400_in_the_users_language_and_nothing_moves(
        approval, demo, language, message):
    client = Client(enforce_csrf_checks=True, HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(demo["bob"])
    version = approval.task.version
    page = csrf_post(client, reverse("approval-decide", args=[approval.pk]),
                     decision(approval, decision="return", comment="   "), **HX)
    assert page.status_code == 400 and message in page.content.decode()
    assert 'role="alert"' in page.content.decode() and 'name="comment"' in page.content.decode()
    assert Approval.objects.get(pk=approval.pk).status == "pending"
    assert approval.task.__class__.objects.get(pk=approval.task_id).version == version


def test_an_unknown_decision_is_a_400_and_nothing_moves(approval, demo):
    page = client_for(demo["bob"]).post(reverse("approval-decide", args=[approval.pk]),
                                        decision(approval, decision="maybe"))
    assert page.status_code == 400 and "maybe" in page.content.decode()
    assert Approval.objects.get(pk=approval.pk).status == "pending"


def test_a_csrf_enforcing_client_approves_with_the_token_and_the_page_then_shows_the_decision(approval, demo):
    client = client_for(demo["bob"], csrf=True)
    page = csrf_post(client, reverse("approval-decide", args=[approval.pk]), decision(approval, comment="fine"))
    assert page.status_code == 200 and "Decided: Approved" in page.content.decode()
    after = client.get(reverse("approval-page", args=[approval.pk])).content.decode()
    assert "Approval: Approved" in after and "fine" in after and 'name="decision"' not in after


def test_a_stale_click_says_what_changed_in_chinese_without_event_codes(approval, demo):
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hant")
    client.force_login(demo["bob"])
    services.request_amend(task_id=approval.task_id, user=demo["alice"], lines=[{"description": "Laptop", "quantity": 1}])
    page = client.post(reverse("approval-decide", args=[approval.pk]), decision(approval), **HX)
    body = page.content.decode()
    assert page.status_code == 409 and "Alice Lin · 已修改：修改為第 2 版" in body and "· amend" not in body


def test_an_approval_opened_before_limits_were_frozen_reads_todays_limit(approval, demo):
    rule = {k: v for k, v in approval.rule.items() if k not in ("manager_limit", "director_limit")}
    Approval.objects.filter(pk=approval.pk).update(rule=rule)
    body = page_for(demo["bob"], approval).content.decode()
    assert "within the Engineering manager's limit of <span class=\"money\">NT$100,000</span>" in body
    inbox = client_for(demo["bob"]).get(reverse("approval-inbox")).content.decode()
    assert "up to NT$100,000: department manager" in inbox


def test_after_a_return_the_approver_reads_that_it_waits_for_the_requester_not_for_him(approval, demo):
    client = client_for(demo["bob"], csrf=True)
    page = csrf_post(client, reverse("approval-decide", args=[approval.pk]),
                     decision(approval, decision="return", comment="only one, please"), **HX)
    body = html.unescape(page.content.decode())
    assert page.status_code == 200 and "The request now: Waiting for the requester's answer." in body
    assert "Waiting for your answer" not in body

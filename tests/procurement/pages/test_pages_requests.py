"""The requester's home (her requests as they stand now), the plain new-request form, and the
request page's answer to an open question: full page and htmx fragment, both languages."""
import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from agentstate.models import Approval, Session, Task
from procurement.purchase import services
from procurement.receiving.services import purchase_order_close_short
from tests.procurement.page_text import visible_text

pytestmark = pytest.mark.django_db(transaction=True)
HX = {"HTTP_HX_REQUEST": "true"}
ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-hant"}


def client_for(user, csrf=False, **headers):
    client = Client(enforce_csrf_checks=csrf, **headers)
    client.force_login(user)
    return client


def submit(user, lines=(("Laptop", 2),), budget=None):
    return services.request_submit(requester=user, department="ENG", justification="new hires", budget=budget,
                                   lines=[{"description": d, "quantity": q} for d, q in lines])


def returned(task, bob, comment="Is one laptop enough?"):
    approval = Approval.objects.get(task=task, status="pending")
    services.approval_decide(approval_id=approval.pk, user=bob, decision="return",
                             state_version=approval.state_version, comment=comment)
    return Task.objects.get(pk=task.pk)


def formset(lines, prefix="lines") -> dict:
    data = {f"{prefix}-TOTAL_FORMS": len(lines), f"{prefix}-INITIAL_FORMS": 0, f"{prefix}-MIN_NUM_FORMS": 0,
            f"{prefix}-MAX_NUM_FORMS": 50}
    for n, (description, quantity) in enumerate(lines):
        data |= {f"{prefix}-{n}-description": description, f"{prefix}-{n}-quantity": quantity}
    return data


def number_of(task) -> str:
    return Task.objects.get(pk=task.pk).purchase_request.number


# -- home ----------------------------------------------------------------------------

def test_home_lists_her_requests_made_by_api_with_number_total_state_and_whom_it_waits_for(demo, erp, eager):
    task = submit(demo["alice"])
    body = client_for(demo["alice"]).get(reverse("home")).content.decode()
    assert number_of(task) in body and "Laptop × 2" in body and "NT$73,290" in body
    assert "Waiting for approval" in body and re.search(r"Waiting for approval by Bob Wang.* since \d\d:\d\d", body)
    assert reverse("task-page", args=[task.pk]) in body


def test_home_in_chinese_reads_in_chinese(demo, erp, eager):
    submit(demo["alice"])
    body = client_for(demo["alice"], **ZH).get(reverse("home")).content.decode()
    assert "我的請購" in body and "等待核准" in body and re.search(r"等待 Bob Wang.* 核准，自 \d\d:\d\d", body)
    assert "awaiting_approval<" not in body and "Waiting for" not in body
    # The column says where it stands; its value says 等待 once, not 「等待 等待 Bob Wang」.
    assert "等待 等待" not in body and "目前" in body


def test_a_request_page_says_waiting_once_in_each_language(demo, erp, eager):
    task = submit(demo["alice"])
    for headers, doubled in (({}, "Waiting for Waiting for"), (ZH, "等待 等待")):
        text = visible_text(client_for(demo["alice"], **headers).get(reverse("task-page", args=[task.pk])).content.decode())
        assert doubled not in text and ("Bob Wang" in text)


def test_home_fragment_for_polling_is_only_the_list(demo, erp, eager):
    submit(demo["alice"])
    page = client_for(demo["alice"]).get(reverse("my-requests"), **HX)
    body = page.content.decode()
    assert body.lstrip().startswith('<div id="my-requests"') and "<html" not in body and "every 3s" in body
    assert page["Vary"] and "HX-Request" in page["Vary"]


def test_filters_split_open_from_finished_and_a_finished_row_shows_its_po(demo, erp, eager):
    done, waiting = submit(demo["alice"]), submit(demo["alice"], lines=(("Monitor", 1),))
    approval = Approval.objects.get(task=done)
    services.approval_decide(approval_id=approval.pk, user=demo["bob"], decision="approve",
                             state_version=approval.state_version)
    # Ordered is not finished (the goods are outstanding); closed short, it is.
    purchase_order_close_short(task_id=done.pk, user=demo["bob"], reason="supplier out of stock")
    alice = client_for(demo["alice"])
    finished = alice.get(reverse("my-requests"), {"show": "finished"}).content.decode()
    opened = alice.get(reverse("my-requests"), {"show": "open"}).content.decode()
    po = erp.purchase_orders()[0]["id"]
    assert number_of(done) in finished and po in finished and number_of(waiting) not in finished
    assert number_of(waiting) in opened and number_of(done) not in opened
    assert 'hx-trigger="every 3s"' not in finished  # nothing there can move any more


def test_a_chat_draft_is_listed_as_a_draft_and_nobody_elses_requests_are(demo, erp, eager):
    session = Session.objects.create(owner=demo["alice"])
    services.request_draft_save(requester=demo["alice"], session=session,
                                fields={"department": "ENG", "lines": [{"description": "Monitor", "quantity": 2}]})
    submit(demo["bob"], lines=(("Keyboard", 1),))
    body = client_for(demo["alice"]).get(reverse("my-requests")).content.decode()
    assert "Draft" in body and "Monitor × 2" in body and "Keyboard" not in body


def test_managers_land_on_approvals_but_reach_their_own_requests(demo, erp, eager):
    bob = client_for(demo["bob"])
    assert bob.get(reverse("home")).url == reverse("approval-inbox")
    assert reverse("my-requests") in bob.get(reverse("approval-inbox")).content.decode()
    assert bob.get(reverse("my-requests")).status_code == 200


def test_home_costs_the_same_queries_however_many_requests(demo, erp, eager, django_assert_num_queries):
    alice = client_for(demo["alice"])
    submit(demo["alice"])
    alice.get(reverse("home"))
    with CaptureQueriesContext(connection) as one:
        alice.get(reverse("home"))
    queries = len(one.captured_queries)
    returned(submit(demo["alice"], lines=(("Laptop", 1), ("Monitor", 2))), demo["bob"])
    submit(demo["alice"], lines=(("flux capacitor", 1),))
    with django_assert_num_queries(queries):
        body = alice.get(reverse("home")).content.decode()
    assert body.count("<tr data-request") == 3


# -- the plain new-request form ------------------------------------------------------

def test_the_new_request_form_submits_a_request_and_opens_its_page(demo, erp, eager):
    client = client_for(demo["alice"], csrf=True)
    assert client.post(reverse("request-new"), {}).status_code == 403  # no CSRF token, nothing made
    client.get(reverse("request-new"))
    data = {"csrfmiddlewaretoken": client.cookies["csrftoken"].value, "department": "ENG",
            "justification": "desk for the intern", "budget": "10000"} | formset([("Monitor", "1"), ("", "")])
    page = client.post(reverse("request-new"), data)
    task = Task.objects.get(initiator=demo["alice"])
    assert page.status_code == 302 and page.url == reverse("task-page", args=[task.pk])
    assert task.purchase_request.budget == 10000 and [line.quantity for line in task.purchase_request.lines.all()] == [1]


@pytest.mark.parametrize("fields,lines,message", [
    ({"department": "OPS"}, [("Monitor", "1")], "Select a valid choice"),
    ({"justification": ""}, [("Monitor", "1")], "Say what it is for"),
    ({}, [("Monitor", "0")], "greater than or equal to 1"),
    ({}, [("", "")], "at least one item"),
    ({"budget": "-5"}, [("Monitor", "1")], "greater than or equal to 1"),
])
def test_bad_new_requests_get_field_errors_and_nothing_is_made(demo, fields, lines, message):
    data = {"department": "ENG", "justification": "desk"} | fields | formset(lines)
    page = client_for(demo["alice"]).post(reverse("request-new"), data)
    assert page.status_code == 400 and message in page.content.decode()
    assert not Task.objects.exists()


def test_new_request_errors_are_in_chinese_for_a_chinese_reader(demo):
    data = {"department": "ENG", "justification": ""} | formset([("Monitor", "0")])
    body = client_for(demo["alice"], **ZH).post(reverse("request-new"), data).content.decode()
    assert "請說明用途" in body and "請確認此數值是否大於或等於 1" in body


# -- the request page ----------------------------------------------------------------

def test_request_page_shows_number_state_waiting_and_the_three_totals(demo, erp, eager):
    task = submit(demo["alice"])
    body = client_for(demo["alice"]).get(reverse("task-page", args=[task.pk])).content.decode()
    assert number_of(task) in body and "Waiting for approval by Bob Wang" in body
    assert "NT$69,800" in body and "NT$3,490" in body and "NT$73,290" in body


def test_request_page_links_her_conversations(demo, erp, eager):
    session = Session.objects.create(owner=demo["alice"])
    draft = services.request_draft_save(requester=demo["alice"], session=session,
                                        fields={"department": "ENG", "lines": [{"description": "Laptop", "quantity": 1}]})
    body = client_for(demo["alice"]).get(reverse("task-page", args=[draft.pk])).content.decode()
    assert reverse("chat-page", args=[session.pk]) in body


def test_a_returned_request_shows_the_managers_question_verbatim_and_an_answer_form(demo, erp, eager):
    task = returned(submit(demo["alice"]), demo["bob"], comment="Is one laptop enough? 一台夠嗎？")
    body = client_for(demo["alice"], **ZH).get(reverse("task-page", args=[task.pk])).content.decode()
    assert "Bob Wang 詢問" in body and "Is one laptop enough? 一台夠嗎？" in body and "送出我的回覆" in body


def test_answering_revises_the_request_and_sends_it_back_to_approval(demo, erp, eager):
    task = returned(submit(demo["alice"]), demo["bob"])
    client = client_for(demo["alice"], csrf=True)
    client.get(reverse("task-page", args=[task.pk]))
    data = {"csrfmiddlewaretoken": client.cookies["csrftoken"].value, "version": task.version,
            "justification": "one new hire after all"} | formset([("Laptop", "1")])
    page = client.post(reverse("task-amend", args=[task.pk]), data, **HX)
    assert page.status_code == 200 and page["HX-Trigger"] == "task-moved"
    task.refresh_from_db()
    approval = Approval.objects.get(task=task, status="pending")
    assert task.state == "awaiting_approval" and approval.scope["lines"][0]["quantity"] == 1
    assert task.purchase_request.justification == "one new hire after all"


def test_a_bad_answer_gets_a_field_error_in_her_language_and_nothing_changes(demo, erp, eager):
    task = returned(submit(demo["alice"]), demo["bob"])
    data = {"version": task.version, "justification": "x"} | formset([("Laptop", "lots")])
    page = client_for(demo["alice"], **ZH).post(reverse("task-amend", args=[task.pk]), data, **HX)
    body = page.content.decode()
    assert page.status_code == 400 and "輸入整數" in body and body.lstrip().startswith('<div id="task-actions"')
    assert Task.objects.get(pk=task.pk).version == task.version


def test_an_unchanged_answer_is_refused_and_nothing_changes(demo, erp, eager):
    task = returned(submit(demo["alice"]), demo["bob"])
    data = {"version": task.version, "justification": "new hires"} | formset([("Laptop", "2")])
    page = client_for(demo["alice"]).post(reverse("task-amend", args=[task.pk]), data)
    assert page.status_code == 400 and "Nothing was sent: write your reply" in page.content.decode()
    assert Task.objects.get(pk=task.pk).version == task.version


def test_the_poll_answers_204_while_nothing_moved_and_the_panel_once_it_did(demo, erp, eager):
    task = Task.objects.get(pk=submit(demo["alice"]).pk)
    alice = client_for(demo["alice"])
    url = reverse("task-page", args=[task.pk])
    assert alice.get(url, {"seen": task.version}, **HX).status_code == 204
    returned(task, demo["bob"])
    moved = alice.get(url, {"seen": task.version}, **HX)
    assert moved.status_code == 200 and moved["HX-Trigger"] == "task-moved" and "Is one laptop enough?" in \
        moved.content.decode()
    actions = alice.get(url, {"part": "actions"}, **HX).content.decode()
    assert actions.lstrip().startswith('<div id="task-actions"') and "Send my answer" in actions


def test_outsiders_get_404_for_the_page_and_its_forms(demo, erp, eager):
    task = returned(submit(demo["alice"]), demo["bob"])
    erin = client_for(demo["erin"])
    assert erin.get(reverse("task-page", args=[task.pk])).status_code == 404
    data = {"version": task.version, "justification": "mine now"} | formset([("Laptop", "9")])
    assert erin.post(reverse("task-amend", args=[task.pk]), data).status_code == 404
    assert Task.objects.get(pk=task.pk).version == task.version


def test_the_manager_sees_the_request_but_no_answer_form(demo, erp, eager):
    task = returned(submit(demo["alice"]), demo["bob"])
    body = client_for(demo["bob"]).get(reverse("task-page", args=[task.pk])).content.decode()
    assert "Is one laptop enough?" in body and "Send my answer" not in body


@pytest.mark.parametrize("language, button", [("en", "Add an item"), ("zh-hant", "新增品項")])
def test_add_an_item_keeps_what_she_typed_and_offers_more_rows_without_sending(demo, language, button):
    client = client_for(demo["alice"], HTTP_ACCEPT_LANGUAGE=language)
    assert button in client.get(reverse("request-new")).content.decode()
    data = {"department": "ENG", "justification": "interns"} | formset([("Monitor", "2"), ("Keyboard", "3")])
    page = client.post(reverse("request-new"), data | {"add_line": "1"})
    body = page.content.decode()
    assert page.status_code == 200 and not Task.objects.exists()
    assert 'value="Monitor"' in body and 'value="3"' in body and "interns</textarea>" in body
    assert 'name="lines-3-description"' in body, "two more rows after the two she filled"
    assert 'class="bad"' not in body, "nothing was checked yet"


def test_add_an_item_on_a_request_being_changed_keeps_its_rows_and_changes_nothing(demo, erp, eager):
    task = submit(demo["alice"])
    task.refresh_from_db()
    version = task.version
    client = client_for(demo["alice"])
    data = {"version": version, "justification": "new hires"} | formset([("Laptop", "2"), ("Monitor", "1")])
    body = client.post(reverse("task-amend", args=[task.pk]), data | {"add_line": "1"},
                       HTTP_HX_REQUEST="true").content.decode()
    task.refresh_from_db()
    assert task.version == version and 'value="Monitor"' in body and 'name="lines-3-description"' in body

"""The new-request form's need-by date and per-item spec: kept where the chat keeps them, so the
PO PDF shows both and the arrival check asks her once after the day; a day gone by is refused."""
import io
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from pypdf import PdfReader

from agentstate.models import Approval, Task
from procurement.models import Notice
from procurement.notices.arrivals import arrival_checks
from procurement.purchase import services

pytestmark = pytest.mark.django_db(transaction=True)


def client_for(user, language) -> Client:
    client = Client(headers={"accept-language": language})
    client.force_login(user)
    return client


def formset(lines) -> dict:
    data = {"lines-TOTAL_FORMS": len(lines), "lines-INITIAL_FORMS": 0, "lines-MIN_NUM_FORMS": 0,
            "lines-MAX_NUM_FORMS": 50}
    for n, (description, quantity, spec) in enumerate(lines):
        data |= {f"lines-{n}-description": description, f"lines-{n}-quantity": quantity, f"lines-{n}-spec": spec}
    return data


def approved(task, bob) -> Task:
    approval = Approval.objects.get(task=task, status="pending")
    services.approval_decide(approval_id=approval.pk, user=bob, decision="approve",
                             state_version=approval.state_version, scope_hash=approval.scope_hash)
    task = Task.objects.get(pk=task.pk)
    assert task.state == "externally_confirmed", task.state
    return task


def pdf_text(response) -> str:
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(response.content)).pages)


@pytest.mark.parametrize("language, form_words, asked", [
    ("zh-hant", ["需要日期（選填）", "規格（選填）"], "東西到了嗎"),
    ("en", ["Needed by (optional)", "Spec (optional)"], "Has it arrived?"),
])
def test_need_by_and_spec_from_the_page_reach_the_po_pdf_and_the_arrival_check(demo, erp, eager, language,
                                                                               form_words, asked):
    client = client_for(demo["alice"], language)
    body = client.get(reverse("request-new")).content.decode()
    assert all(word in body for word in form_words), body
    day = timezone.localdate() + timedelta(days=3)
    page = client.post(reverse("request-new"), {
        "department": "ENG", "justification": "新進工程師", "needed_by": day.isoformat()}
        | formset([("Monitor", "3", "27 吋 4K"), ("", "", "")]))
    task = Task.objects.get(initiator=demo["alice"])
    assert page.status_code == 302 and page.url == reverse("task-page", args=[task.pk])
    assert task.data["draft"] == {"needed_by": day.isoformat(), "notes": ["27 吋 4K"]}
    assert task.purchase_request.justification == "新進工程師"  # nothing stuffed into the purpose

    task = approved(task, demo["bob"])
    text = pdf_text(client.get(reverse("task-po-pdf", args=[task.pk])))
    assert "27 吋 4K" in text and day.isoformat() in text, text

    assert arrival_checks(today=day) == 0  # not before the day has passed
    assert arrival_checks(today=day + timedelta(days=1)) == 1
    assert arrival_checks(today=day + timedelta(days=2)) == 0  # once
    notice = Notice.objects.get(recipient=demo["alice"], kind="arrival_check", task=task)
    assert day.isoformat() in notice.text and asked in notice.text, notice.text


def test_with_several_items_each_spec_says_its_item(demo, erp, eager):
    client_for(demo["alice"], "en").post(reverse("request-new"), {"department": "ENG", "justification": "desks"}
                                         | formset([("Monitor", "2", "27-inch"), ("Keyboard", "2", ""),
                                                    ("Laptop", "1", "16GB RAM")]))
    task = Task.objects.get(initiator=demo["alice"])
    assert task.data["draft"] == {"notes": ["Monitor：27-inch", "Laptop：16GB RAM"]}


def test_without_need_by_or_spec_the_request_has_no_draft_facts(demo, erp, eager):
    client_for(demo["alice"], "en").post(reverse("request-new"), {"department": "ENG", "justification": "desks"}
                                         | formset([("Monitor", "1", "")]))
    assert "draft" not in Task.objects.get(initiator=demo["alice"]).data


@pytest.mark.parametrize("language, message", [
    ("zh-hant", "這天已經過了：請填今天或之後的日期，或留空。"),
    ("en", "That day has passed: give today or a later day, or leave it empty."),
])
def test_a_need_by_day_gone_by_is_a_field_error_and_nothing_is_made(demo, language, message):
    yesterday = timezone.localdate() - timedelta(days=1)
    page = client_for(demo["alice"], language).post(reverse("request-new"), {
        "department": "ENG", "justification": "desks", "needed_by": yesterday.isoformat()}
        | formset([("Monitor", "1", "27 吋")]))
    body = page.content.decode()
    assert page.status_code == 400 and message in body, body
    assert 'value="27 吋"' in body  # what she typed stays
    assert not Task.objects.exists()


@pytest.mark.parametrize("language, message", [("zh-hant", "100"), ("en", "at most 100 characters")])
def test_a_spec_longer_than_the_limit_is_a_field_error(demo, language, message):
    page = client_for(demo["alice"], language).post(reverse("request-new"), {
        "department": "ENG", "justification": "desks"} | formset([("Monitor", "1", "x" * 101)]))
    assert page.status_code == 400 and message in page.content.decode()
    assert not Task.objects.exists()


def test_add_an_item_keeps_the_spec_and_the_day(demo):
    day = (timezone.localdate() + timedelta(days=5)).isoformat()
    page = client_for(demo["alice"], "en").post(reverse("request-new"), {
        "department": "ENG", "justification": "desks", "needed_by": day, "add_line": "1"}
        | formset([("Monitor", "1", "27-inch")]))
    body = page.content.decode()
    assert page.status_code == 200 and 'value="27-inch"' in body and f'value="{day}"' in body, body
    assert not Task.objects.exists()

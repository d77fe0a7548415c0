"""Catalogue items read in the reader's language on every page that names them (procurement.words.labels
item_label / items_summary): 「筆電 × 2、USB-C 擴充座 × 1」 on a zh-Hant page, "Laptop × 2, USB-C dock × 1"
on an English one, while the stored item and the API's `summary` stay English (DESIGN §10)."""
import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation
from rest_framework.test import APIClient

from agentstate.models import Approval
from procurement.words import labels
from procurement.purchase import services

from tests.procurement.page_text import page

pytestmark = pytest.mark.django_db(transaction=True)
ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-hant"}
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
LINES = [{"description": "Laptop", "quantity": 2}, {"description": "USB-C dock", "quantity": 1}]
ENGLISH_ITEMS = ("Laptop", "USB-C dock", "dock")


def submit(user):
    task = services.request_submit(requester=user, department="ENG", justification="new hires", lines=LINES)
    task.refresh_from_db()
    return task


def assert_chinese_items(text):
    assert "筆電 × 2、USB-C 擴充座 × 1" in text or ("筆電" in text and "USB-C 擴充座" in text), text
    assert [word for word in ENGLISH_ITEMS if word in text] == [], text


def test_a_line_and_a_summary_read_in_the_active_language():
    lines = [*LINES, {"description": "whiteboard", "quantity": None}, {"description": " office  CHAIR ", "quantity": 3}]
    with translation.override("zh-hant"):
        assert labels.items_summary(lines) == "筆電 × 2、USB-C 擴充座 × 1、whiteboard × ?、辦公椅 × 3"
    with translation.override("en"):
        assert labels.items_summary(lines) == "Laptop × 2, USB-C dock × 1, whiteboard × ?, Office chair × 3"


def test_the_approval_page_names_the_items_in_chinese_for_a_chinese_reader_and_in_english_for_an_english_one(
        demo, erp, eager):
    task = submit(demo["alice"])
    url = reverse("approval-page", args=[Approval.objects.get(task=task, status="pending").pk])
    client = Client(**ZH)
    client.force_login(demo["bob"])
    html = client.get(url).content.decode()
    assert "<title>簽核 · 筆電 × 2、USB-C 擴充座 × 1</title>" in html
    chinese = page(demo["bob"], url, **ZH)
    assert "筆電" in chinese and "USB-C 擴充座" in chinese
    assert [word for word in ENGLISH_ITEMS if word in chinese] == []
    english = page(demo["bob"], url, **EN)
    assert "Laptop" in english and "USB-C dock" in english and "筆電" not in english


def test_her_home_and_request_list_name_the_items_in_her_language(demo, erp, eager):
    submit(demo["alice"])
    for url in (reverse("home"), reverse("my-requests")):
        assert_chinese_items(page(demo["alice"], url, **ZH))
        english = page(demo["alice"], url, **EN)
        assert "Laptop × 2, USB-C dock × 1" in english and "筆電" not in english


def test_the_request_page_lists_the_priced_lines_in_her_language(demo, erp, eager):
    task = submit(demo["alice"])
    url = reverse("task-page", args=[task.pk])
    chinese = page(demo["alice"], url, **ZH)
    assert "筆電" in chinese and "USB-C 擴充座" in chinese
    assert [word for word in ENGLISH_ITEMS if word in chinese] == []
    assert "Laptop" in page(demo["alice"], url, **EN)


def test_the_inbox_row_and_its_export_name_the_items_in_the_approvers_language(demo, erp, eager):
    submit(demo["alice"])
    assert_chinese_items(page(demo["bob"], reverse("approval-inbox"), **ZH))
    english = page(demo["bob"], reverse("approval-inbox"), **EN)
    assert "Laptop × 2, USB-C dock × 1" in english and "筆電" not in english
    client = Client(**ZH)
    client.force_login(demo["bob"])
    export = client.get(reverse("approval-export", args=["csv"])).content.decode("utf-8-sig")
    assert "筆電 × 2、USB-C 擴充座 × 1" in export and "Laptop" not in export


def test_the_api_summary_and_the_stored_items_stay_english_whatever_the_callers_language(demo, erp, eager):
    task = submit(demo["alice"])
    client = APIClient(HTTP_ACCEPT_LANGUAGE="zh-hant")
    client.force_authenticate(demo["alice"])
    [row] = client.get("/api/v1/requests/").json()["results"]
    assert row["summary"] == "2 × Laptop, 1 × USB-C dock"
    assert [line.description for line in task.purchase_request.lines.all()] == ["Laptop", "USB-C dock"]
    assert Approval.objects.get(task=task).scope["summary"] == "2 × Laptop, 1 × USB-C dock"

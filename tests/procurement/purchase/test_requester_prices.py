"""Prices a requester gave are marked where the approver decides (segregation of duties). The
finding: alice changed a supplier's price in her quote-sheet answer (620 → 6,200), that row won
the award, and the approval page never said she had supplied or changed a price."""
import pytest
from rest_framework.test import APIClient

from agentstate.models import Approval, Task
from procurement.purchase import services
from procurement.quotesheet.services import next_question, quote_question_answer, quote_sheet_attach
from tests.procurement.page_text import page
from tests.procurement.quote_sheets import TAIPEI, row, xlsx_bytes

pytestmark = [pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def artifact_dir(settings, tmp_path):
    settings.STORAGES = {**settings.STORAGES, "artifacts": {
        "BACKEND": "django.core.files.storage.FileSystemStorage", "OPTIONS": {"location": str(tmp_path)}}}


def sheet_request(alice, price, answer: dict) -> Task:
    draft = services.request_draft_save(requester=alice, fields={})
    task = quote_sheet_attach(user=alice, content=xlsx_bytes([row("Monitor", TAIPEI, price)]), filename="報價.xlsx",
                              task=draft).task
    question = next_question(task.data["quote_sheet"])
    assert question["kind"] == "price"
    quote_question_answer(task=task, user=alice, n=question["n"], expected_version=task.version, **answer)
    task.refresh_from_db()
    task = services.request_submit(requester=alice, department="ENG", justification="展場",
                                   lines=[{"description": "Monitor", "quantity": 2}], draft=task)
    return Task.objects.get(pk=task.pk)


def test_a_price_she_changed_is_named_on_the_approval_page_and_in_the_scope(demo, erp, eager):
    task = sheet_request(demo["alice"], 620, {"action": "price", "value": "6200"})
    approval = Approval.objects.get(task=task, status="pending")
    assert task.data["award"]["lines"][0]["unit_price"] == "6200.00"
    [given] = approval.scope["requester_prices"]
    assert (given["given_by"], given["how"], given["sheet_unit_price"]) == ("alice", "changed", "620")
    assert given["median"] and not given["past_tolerance"]
    assert len(approval.chain) == 1  # within the tolerance: no extra step

    zh = page(demo["bob"], f"/approvals/{approval.pk}/", HTTP_ACCEPT_LANGUAGE="zh-hant")
    assert "申請人提供的價格" in zh and "從報價單的 NT$620 修改而來" in zh and "型錄中位數為" in zh
    en = page(demo["bob"], f"/approvals/{approval.pk}/", HTTP_ACCEPT_LANGUAGE="en")
    assert "Prices the requester gave" in en and "changed by Alice Lin from the quote sheet's NT$620" in en
    assert "The catalogue median is NT$6,550: −NT$350 (−5%)" in en

    client = APIClient()
    client.force_authenticate(demo["bob"])
    body = client.get(f"/api/v1/approvals/{approval.pk}/").json()
    assert body["scope"]["requester_prices"][0]["given_by"] == "alice"


def test_a_price_past_the_tolerance_goes_one_level_higher_as_well(demo, erp, eager):
    task = sheet_request(demo["alice"], 3000, {"action": "confirm"})
    approval = Approval.objects.get(task=task, status="pending")
    [given] = approval.scope["requester_prices"]
    assert given["how"] == "supplied" and given["past_tolerance"] and given["percent"] < -30
    assert [s["usernames"] for s in approval.chain] == [["bob"], ["frank"]]
    zh = page(demo["bob"], f"/approvals/{approval.pk}/", HTTP_ACCEPT_LANGUAGE="zh-hant")
    assert "出自 Alice Lin 自己提供的報價單" in zh and "超出報價單容許範圍：另須由上一層級核准" in zh


def test_a_request_priced_from_the_catalogue_alone_says_nothing_of_it(demo, erp, eager):
    task = services.request_submit(requester=demo["alice"], department="ENG", justification="新人",
                                   lines=[{"description": "Monitor", "quantity": 2}])
    approval = Approval.objects.get(task=task, status="pending")
    assert "requester_prices" not in approval.scope
    assert "申請人提供的價格" not in page(demo["bob"], f"/approvals/{approval.pk}/", HTTP_ACCEPT_LANGUAGE="zh-hant")

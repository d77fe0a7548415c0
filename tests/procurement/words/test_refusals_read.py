"""A refusal is raised as a code with its parameters and read in the reader's words: a quote sheet
with a column missing, a receipt past what was ordered, a close without a reason and a request
nobody may see each read whole in zh-Hant on the API and the page, and in English for English
readers; nothing English is written at the raise."""
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from django.utils import translation
from rest_framework.test import APIClient

from agentstate.errors import DomainError
from agentstate.models import Session
from procurement.models import GoodsReceipt
from procurement.quotesheet.reader import SheetRefused, read_sheet
from procurement.receiving.services import purchase_order_close_short
from procurement.words import refusal_errors

from scripts.count_uncoded_refusals import per_package, uncoded
from tests.procurement.quote_sheets import csv_bytes
from tests.procurement.receiving.support import close_url, ordered, receipts_url

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]
COLUMNS_MISSING = ("工作表的欄位是：名稱、價錢、x。缺少：品項、供應商、統一編號、單價（未稅）。"
                   "需要的欄位：品項、供應商、統一編號、單價（未稅）；選填：交期（天）。")


def api(user, language) -> APIClient:
    client = APIClient(HTTP_ACCEPT_LANGUAGE=language)
    client.force_authenticate(user)
    return client


def page(user, language) -> Client:
    client = Client()
    client.force_login(user)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    return client


def latin(text: str, *allowed: str) -> set[str]:
    return set(re.findall(r"[A-Za-z]+", text)) - set(allowed)


def attach(user, session, language):
    sheet = SimpleUploadedFile("報價.csv", csv_bytes(header=["名稱", "價錢", "x"]), content_type="text/csv")
    return api(user, language).post(f"/api/v1/sessions/{session.pk}/attachments/", {"file": sheet},
                                    format="multipart")


def test_a_sheet_without_its_columns_is_a_code_read_whole_in_zh_hant_and_in_english(demo):
    with pytest.raises(SheetRefused) as caught:
        read_sheet(csv_bytes(header=["名稱", "價錢", "x"]))
    said = caught.value.said
    assert said.code == "sheet_columns_missing"
    assert dict(said.params) == {"headers": ("名稱", "價錢", "x"), "missing": ("item", "supplier", "tax_id", "unit_price"),
                                 "required": ("item", "supplier", "tax_id", "unit_price"),
                                 "optional": ("lead_time_days",)}
    session = Session.objects.create(owner=demo["alice"])
    chinese = attach(demo["alice"], session, "zh-hant")
    assert chinese.status_code == 400
    assert chinese.json()["detail"] == COLUMNS_MISSING and latin(COLUMNS_MISSING, "x") == set()
    assert chinese.json()["errors"] == {"file": [COLUMNS_MISSING]}
    english = attach(demo["alice"], session, "en").json()["detail"]
    assert english.startswith("The sheet's columns are: 名稱, 價錢, x. Missing: 品項 (item), 供應商 (supplier)")
    assert session.turns.count() == 0


def test_a_receipt_past_the_ordered_quantity_reads_on_her_page_and_the_api_in_zh_hant(demo, erp, eager):
    task = ordered(demo)
    answer = page(demo["alice"], "zh-hant").post(reverse("task-receive", args=[task.pk]), {"accepted_0": "4"},
                                                 HTTP_HX_REQUEST="true")
    assert answer.status_code == 400
    body = answer.content.decode()
    assert "請修正標示的欄位。" in body and "最多只能再驗收 3：訂購 3，已驗收 0。" in body
    assert "At most" not in body and "Please correct" not in body
    refused = api(demo["alice"], "zh-hant").post(receipts_url(task), {"lines": [{"line": 0, "accepted": 4}]},
                                                  format="json").json()
    assert refused == {"detail": "請修正標示的欄位。", "errors": {"lines.0.accepted": ["最多只能再驗收 3：訂購 3，已驗收 0。"]}}
    twice = api(demo["alice"], "zh-hant").post(receipts_url(task), {"lines": [{"line": 0, "accepted": 1},
                                                                              {"line": 0, "accepted": 1}]},
                                                format="json").json()
    assert twice["errors"] == {"lines.1.line": ["每張驗收單中，每個採購項目只能出現一次。"]}
    assert not GoodsReceipt.objects.exists() and erp.goods_receipts() == []


def test_closing_short_without_a_reason_or_with_nothing_open_reads_in_zh_hant(demo, erp, eager):
    task = ordered(demo)
    with pytest.raises(DomainError) as unsaid:  # the API's serializer asks first; the service says it too
        purchase_order_close_short(task_id=task.pk, user=demo["bob"], reason=" ")
    assert unsaid.value.said.code == "receipt_invalid"
    with translation.override("zh-hant"):
        assert refusal_errors(unsaid.value) == {"reason": ["請說明為何其餘部分要結案。"]}
    assert api(demo["alice"], "en").post(receipts_url(task), {"lines": [{"line": 0, "accepted": 3}]},
                                         format="json").status_code == 201
    nothing = api(demo["bob"], "zh-hant").post(close_url(task), {"reason": "供應商缺貨"}, format="json")
    assert nothing.status_code == 409 and nothing.json()["detail"] == "這張請購已沒有未交貨的部分可以結案。"
    english = api(demo["bob"], "en").post(close_url(task), {"reason": "out of stock"}, format="json")
    assert english.json()["detail"] == "Nothing is left open on this request to close."


def test_a_request_nobody_may_see_is_not_found_in_the_readers_words(demo, erp, eager):
    task = ordered(demo)
    chinese = api(demo["dave"], "zh-hant").get(f"/api/v1/tasks/{task.pk}/")
    assert chinese.status_code == 404 and chinese.json() == {"detail": "找不到這個請購。"}
    assert api(demo["dave"], "en").get(f"/api/v1/tasks/{task.pk}/").json() == {"detail": "No such task."}


# procurement raised 52 refusals without a code before receiving, quote sheets and the lookups were
# coded; what is left is the chat's and a few of purchase's. The ceiling only goes down.
UNCODED_CEILING = {"agentstate": 43, "procurement": 21}


def test_no_refusal_without_a_code_is_added():
    counts = per_package(Path(__file__).resolve().parents[3])
    assert all(counts[package] <= ceiling for package, ceiling in UNCODED_CEILING.items()), counts
    for done in ("procurement/receiving/", "procurement/quotesheet/", "procurement/selectors/"):
        assert not [row for row in uncoded(Path(__file__).resolve().parents[3]) if row[0].startswith(done)]

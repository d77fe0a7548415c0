"""Two numbers, two labels: our request number (REQ-2026-00001) is the "Request no." / 「請購編號」,
the ERP's requisition (REQ-000001) the "ERP requisition no." / 「ERP 請購單號」, on the request page
and the approval page alike. And a requester reads no raw ids: no trace id, no short uuids."""
import re

import pytest
from django.test import Client

from agentstate.memory.services import memory_create
from agentstate.models import Approval
from procurement.purchase import services
from procurement.models import PurchaseRequest

from tests.procurement.page_text import visible_text

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
OURS = {"en": "Request no.", "zh-hant": "請購編號"}
THEIRS = {"en": "ERP requisition no.", "zh-hant": "ERP 請購單號"}
UUID_ISH = re.compile(r"\b[0-9a-f]{8}(?:-[0-9a-f]{4}){0,4}\b")


@pytest.fixture
def awaiting(demo, erp, eager):
    task = services.request_submit(requester=demo["alice"], department="ENG", justification="new hires",
                                   lines=[{"description": "Laptop", "quantity": 1}])
    return task, Approval.objects.get(task=task, status="pending")


def read(user, url, language) -> str:
    client = Client()
    client.force_login(user)
    client.cookies["django_language"] = language
    response = client.get(url)
    assert response.status_code == 200
    return visible_text(response.content.decode())


@pytest.mark.parametrize("language", ["en", "zh-hant"])
def test_our_number_and_the_erps_each_have_their_own_label(demo, awaiting, language):
    task, approval = awaiting
    ours = PurchaseRequest.objects.get(task=task).number
    theirs = approval.scope["erp_requisition"]
    assert OURS[language] != THEIRS[language] and OURS[language] not in THEIRS[language]
    for page in (read(demo["alice"], f"/tasks/{task.pk}/", language),
                 read(demo["bob"], f"/approvals/{approval.pk}/", language)):
        assert f"{OURS[language]} {ours}" in page
        assert f"{THEIRS[language]} {theirs}" in page
        assert f"{THEIRS[language]} {ours}" not in page and f"{OURS[language]} {theirs}" not in page


@pytest.mark.parametrize("language", ["en", "zh-hant"])
def test_my_requests_list_heads_the_number_column_with_the_request_no_label(demo, awaiting, language):
    page = read(demo["alice"], "/", language)
    assert OURS[language] in page and THEIRS[language] not in page


@pytest.mark.parametrize("language", ["en", "zh-hant"])
def test_the_requester_reads_no_trace_id_and_the_admin_does(demo, awaiting, language):
    task, _ = awaiting
    task.refresh_from_db()
    assert task.trace_id
    mine = read(demo["alice"], f"/tasks/{task.pk}/", language)
    assert str(task.trace_id) not in mine and not UUID_ISH.search(mine), UUID_ISH.findall(mine)
    assert ("Trace ID" if language == "en" else "追蹤編號") not in mine
    assert str(task.trace_id) in read(demo["carol"], f"/tasks/{task.pk}/", language)


@pytest.mark.parametrize("language", ["en", "zh-hant"])
def test_the_requester_reads_her_memory_entry_without_its_short_id(demo, language):
    entry = memory_create(by=demo["carol"], scope="user", subject="alice", kind="preference",
                          content="Prefers quotes as PDF")
    mine = read(demo["alice"], f"/memory/{entry.pk}/", language)
    assert "Prefers quotes as PDF" in mine
    assert str(entry.pk)[:8] not in mine and not UUID_ISH.search(mine), UUID_ISH.findall(mine)
    assert str(entry.pk)[:8] in read(demo["carol"], f"/memory/{entry.pk}/", language)

"""The ERP's own requisition id (REQ-000001) sits beside our request number (REQ-2026-00001) on
the request's page and the approval page: wherever it is shown, it is named as the ERP's, in
zh-Hant (「ERP 請購單號 REQ-000001」, or the receipt row 「ERP 請購單」) and in English ("ERP requisition no.
REQ-000001", or the receipt row "ERP requisition")."""
import re

import pytest
from django.test import Client

from agentstate.models import Approval
from procurement.purchase import services
from procurement.models import PurchaseRequest

from tests.procurement.page_text import visible_text

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
ERP_ID = re.compile(r"REQ-\d{6}\b")
LABEL = {"en": "ERP requisition no. ", "zh-hant": "ERP 請購單號 "}
ROW = {"en": "ERP requisition ", "zh-hant": "ERP 請購單 "}


@pytest.fixture
def awaiting(demo, erp, eager):
    task = services.request_submit(requester=demo["alice"], department="ENG", justification="new hires",
                                   lines=[{"description": "Laptop", "quantity": 1}])
    return task, Approval.objects.get(task=task, status="pending")


def read(user, url, language) -> str:
    client = Client()
    client.force_login(user)
    client.cookies["django_language"] = language
    return visible_text(client.get(url).content.decode())


@pytest.mark.parametrize("language", ["en", "zh-hant"])
def test_every_erp_requisition_id_on_the_request_and_approval_pages_is_labelled_as_the_erps(demo, awaiting,
                                                                                            language):
    task, approval = awaiting
    ours = PurchaseRequest.objects.get(task=task).number
    [theirs] = {approval.scope["erp_requisition"]}
    timeline = read(demo["alice"], f"/tasks/{task.pk}/", language)
    deciding = read(demo["bob"], f"/approvals/{approval.pk}/", language)
    assert ours in timeline and ours in deciding, "our number is there too"
    for page in (timeline, deciding):
        shown = [m for m in ERP_ID.finditer(page)]
        assert shown, "the ERP's id is shown"
        # In the receipts table it stands in the row named "ERP requisition", column "ERP id".
        labelled = re.compile(rf"(?:{re.escape(LABEL[language])}|{re.escape(ROW[language])}(\S+ )?)$")  # (status between)
        unlabelled = [page[max(0, m.start() - 40):m.end()] for m in shown if not labelled.search(page[:m.start()])]
        assert unlabelled == [], unlabelled
    assert f"{LABEL[language]}{theirs}" in timeline and f"{LABEL[language]}{theirs}" in deciding

"""alice's request page once her goods arrived and carol's invoice is posted, in zh-Hant: the ERP's
operations and the agent's receipts read in words (「供應商發票入帳」, 「採購助理」), with no
`erp.supplier_invoice.post` or `match` left in English; also after an exception bob approved."""
import pytest
from django.test import Client
from django.urls import reverse

from agentstate.models import Approval
from procurement.purchase import services
from tests.procurement.invoicing.support import ordered
from tests.procurement.invoicing.support import enter, receive
from tests.procurement.page_text import english_words, page, state_codes

pytestmark = pytest.mark.django_db(transaction=True)
ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-hant"}


@pytest.mark.parametrize("accepted, rejected", [(3, 0), (2, 1)])
def test_her_page_after_the_receipt_and_the_posted_invoice_reads_in_chinese(demo, erp, eager, accepted, rejected):
    task = ordered(demo["alice"], demo["bob"])
    receive(demo, task, accepted, rejected=rejected, reason="damaged")
    enter(demo, task)
    if rejected:  # billed 3 for 2 accepted: bob approves the exception, and the invoice is posted
        approval = Approval.objects.get(task=task, status="pending")
        services.approval_decide(approval_id=approval.pk, user=demo["bob"], decision="approve",
                                 state_version=approval.state_version, scope_hash=approval.scope_hash)

    text = page(demo["alice"], reverse("task-page", args=[task.pk]), **ZH)

    assert "供應商發票入帳" in text and "SI-000001" in text
    people = [demo[name].get_full_name() for name in ("alice", "bob", "carol", "frank")] + ["alice", "new desks", "damaged"]
    assert english_words(text, people) == [] and state_codes(text) == [], text
    # Her approval history tells the invoice exception's decision from the purchase's.
    client = Client(**ZH)
    client.force_login(demo["alice"])
    history = client.get(reverse("task-page", args=[task.pk])).content.decode().split("簽核紀錄</h2>")[1].split("</ul>")[0]
    assert history.count("已核准") == 1 + bool(rejected)
    assert history.count('<span class="approval-kind">發票異常</span>') == bool(rejected), history


def test_while_her_invoice_exception_waits_her_requests_name_its_approvers(demo, erp, eager):
    """Billed 3 for 2 accepted: her home and the API say whom the request waits for, as the chat does,
    not 「—」; once bob decides, it waits on nobody again."""
    task = ordered(demo["alice"], demo["bob"])
    receive(demo, task, 2, rejected=1, reason="damaged")
    enter(demo, task)
    approval = Approval.objects.get(task=task, status="pending")

    api = Client()
    api.force_login(demo["alice"])
    row = next(r for r in api.get("/api/v1/requests/").json()["results"] if r["id"] == str(task.pk))
    assert row["waiting_on"]["kind"] == "approval" and "bob" in row["waiting_on"]["people"], row
    home = page(demo["alice"], reverse("home"), **ZH)
    assert f"等待 {demo['bob'].get_full_name()}" in home, home

    services.approval_decide(approval_id=approval.pk, user=demo["bob"], decision="approve",
                             state_version=approval.state_version, scope_hash=approval.scope_hash)
    row = next(r for r in api.get("/api/v1/requests/").json()["results"] if r["id"] == str(task.pk))
    assert row["waiting_on"] is None, row

"""A fork and its original try to buy the same goods (the finding: a fork left two live requests
waiting on the same approvers, nothing stopped both being approved, and the fork's timeline said
alice created it when carol did). Each approval page names the other; approving one asks, in the
same click, whether to cancel the other; two purchase orders never go out unasked."""
import pytest
from django.test import Client
from rest_framework.test import APIClient

from agentstate.models import Approval, Task, TaskEvent
from procurement.purchase import services
from procurement.history import timetravel as tt
from procurement.models import PurchaseRequest, Quote
from procurement.selectors import live_relatives
from tests.procurement.page_text import page, visible_text

pytestmark = pytest.mark.django_db(transaction=True)


def fresh(task) -> Task:
    return Task.objects.get(pk=task.pk)


@pytest.fixture
def twins(demo, erp, eager):
    task = fresh(services.request_submit(requester=demo["alice"], department="ENG", justification="新人",
                                         lines=[{"description": "Laptop", "quantity": 1}]))
    assert task.state == "awaiting_approval"
    awarded = task.data["award"]["supplier"]
    other = next(q.supplier.name for q in Quote.objects.filter(item="Laptop").select_related("supplier")
                 if q.supplier.name != awarded)
    award_cp = next(c.id for c in tt.task_checkpoints(user=task.initiator, task_id=task.pk)
                    if c.cursor == "award" and c.state == "processing")
    fork = fresh(tt.task_fork(user=demo["carol"], task_id=task.pk, checkpoint=award_cp, supplier=other))
    assert fork.state == "awaiting_approval"
    return fresh(task), fork


def pending(task) -> Approval:
    return Approval.objects.get(task=task, status="pending")


def number(task) -> str:
    return PurchaseRequest.objects.get(task=task).number


def test_the_forks_first_event_names_carol_who_forked_it(twins):
    _original, fork = twins
    assert TaskEvent.objects.filter(task=fork).order_by("id").first().actor == "carol"


def test_each_approval_page_names_and_links_the_other(demo, twins):
    original, fork = twins
    zh = page(demo["bob"], f"/approvals/{pending(original).pk}/", HTTP_ACCEPT_LANGUAGE="zh-hant")
    assert f"相同品項也在 {number(fork)} （等待核准）" in zh and "兩筆都核准就會買兩次" in zh
    assert "(等待核准)" not in zh  # its state in Chinese parentheses
    assert "另一筆相同品項的申請尚未結束" in zh
    en = page(demo["bob"], f"/approvals/{pending(fork).pk}/", HTTP_ACCEPT_LANGUAGE="en")
    assert f"The same goods, also in {number(original)}" in en and "approving both buys them twice" in en


def test_approving_without_an_answer_is_refused_and_nothing_is_decided(demo, erp, twins):
    original, fork = twins
    approval = pending(fork)
    client = APIClient()
    client.force_authenticate(demo["bob"])
    answer = client.post(f"/api/v1/approvals/{approval.pk}/decision/", {
        "decision": "approve", "state_version": approval.state_version, "scope_hash": approval.scope_hash},
        format="json", HTTP_ACCEPT_LANGUAGE="zh-hant")
    assert answer.status_code == 400 and number(original) in answer.json()["errors"]["other_request"][0]
    assert "請選擇取消它" in answer.json()["errors"]["other_request"][0]
    assert pending(fork).status == "pending" and fresh(fork).version == fork.version
    assert erp.purchase_orders() == []


def test_approving_one_and_cancelling_the_other_buys_once(demo, erp, twins):
    original, fork = twins
    approval = pending(fork)
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hant")
    client.force_login(demo["bob"])
    answer = client.post(f"/approvals/{approval.pk}/decide/", {
        "decision": "approve", "state_version": approval.state_version, "scope_hash": approval.scope_hash,
        "other_request": "cancel"})
    assert answer.status_code == 200, visible_text(answer.content.decode())
    assert fresh(fork).state == "externally_confirmed" and fresh(original).state == "cancelled"
    assert len(erp.purchase_orders()) == 1
    timeline = page(demo["alice"], f"/tasks/{original.pk}/", HTTP_ACCEPT_LANGUAGE="zh-hant")
    assert f"改為核准相同品項的 {number(fork)}" in timeline
    # Once the other is cancelled, nothing more is asked.
    assert live_relatives(fresh(fork)) == []


def test_keeping_both_is_a_choice_made_knowingly(demo, erp, twins):
    original, fork = twins
    for task in (fork, original):
        approval = pending(task)
        services.approval_decide(approval_id=approval.pk, user=demo["bob"], decision="approve",
                                 state_version=approval.state_version, scope_hash=approval.scope_hash,
                                 other_request="keep")
    assert len(erp.purchase_orders()) == 2

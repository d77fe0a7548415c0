"""request_now: the request as it stands now, and request numbers, whichever way it was made."""
import re

import pytest
from django.utils import translation

from agentstate.models import Approval, Session
from procurement.purchase import services
from procurement.purchase.requests import FINISHED, OPEN, request_now, requests_of

pytestmark = pytest.mark.django_db(transaction=True)
LAPTOPS = [{"description": "Laptop", "quantity": 2}]


def submit(user, lines=LAPTOPS, **extra):
    task = services.request_submit(requester=user, department="ENG", justification="two new hires", lines=lines,
                                   **extra)
    return requests_of(user).get(pk=task.pk)


def test_requests_made_by_api_and_by_chat_are_numbered_one_after_the_other(demo, erp, eager):
    alice = demo["alice"]
    first = request_now(submit(alice))
    draft = services.request_draft_save(requester=alice, fields={"department": "ENG", "lines": LAPTOPS},
                                        session=Session.objects.create(owner=alice))
    assert request_now(requests_of(alice).get(pk=draft.pk)).number is None  # a draft has no number yet
    services.request_submit(requester=alice, department="ENG", justification="desk", lines=LAPTOPS, draft=draft)
    second = request_now(requests_of(alice).get(pk=draft.pk))
    assert re.fullmatch(r"REQ-\d{4}-00001", first.number)
    assert second.number == first.number[:-1] + "2"


def test_an_awarded_request_has_priced_lines_totals_and_waits_for_bobs_approval(demo, erp, eager):
    now = request_now(submit(demo["alice"]))
    assert now.state == "awaiting_approval" and now.supplier == "新竹科技供應股份有限公司"
    assert [(line.description, line.quantity, str(line.amount)) for line in now.lines] == [("Laptop", 2, "69800.00")]
    assert (str(now.subtotal), str(now.tax), str(now.total)) == ("69800.00", "3490.00", "73290.00")
    assert now.waiting_on.kind == "approval" and "bob" in now.waiting_on.people
    assert now.justification == "two new hires" and now.po_number is None and now.question is None
    with translation.override("zh-hant"):
        assert re.fullmatch(r"等待 Bob Wang 或 Frank Chang 核准，自 \d\d:\d\d", now.waiting_on.text())
        assert now.state_label == "等待核准"


def test_a_returned_request_asks_the_approvers_comment_and_waits_for_the_requester(demo, erp, eager):
    task = submit(demo["alice"])
    approval = Approval.objects.get(task=task)
    services.approval_decide(approval_id=approval.pk, user=demo["bob"], decision="return",
                             state_version=approval.state_version, comment="Is one laptop enough?")
    now = request_now(requests_of(demo["alice"]).get(pk=task.pk))
    assert now.state == "awaiting_input"
    assert (now.question.text, now.question.asked_by) == ("Is one laptop enough?", "bob")
    assert now.waiting_on.kind == "answer" and now.waiting_on.people == ("alice",)
    assert now.waiting_on.text(demo["alice"]).startswith("Waiting for your answer")


def test_an_ordered_request_shows_its_purchase_order_and_stays_open_until_its_goods_arrive(demo, erp, eager):
    task = submit(demo["alice"])
    approval = Approval.objects.get(task=task)
    services.approval_decide(approval_id=approval.pk, user=demo["bob"], decision="approve",
                             state_version=approval.state_version)
    now = request_now(requests_of(demo["alice"]).get(pk=task.pk))
    assert now.state == "externally_confirmed" and now.waiting_on is None
    assert now.po_number == erp.purchase_orders()[0]["id"]
    assert [t.pk for t in requests_of(demo["alice"], OPEN)] == [task.pk]
    assert list(requests_of(demo["alice"], FINISHED)) == []


def test_before_the_award_lines_are_as_requested_without_prices(demo, erp, eager):
    now = request_now(submit(demo["alice"], lines=[{"description": "flux capacitor", "quantity": 3}], budget=5000))
    assert now.state == "awaiting_input" and "flux capacitor" in now.question.text and not now.question.asked_by
    assert [(line.description, line.quantity, line.unit_price) for line in now.lines] == [("flux capacitor", 3, None)]
    assert now.total is None and now.budget == 5000 and now.summary == "3 × flux capacitor"


def test_only_the_requesters_own_requests_are_hers(demo, erp, eager):
    submit(demo["alice"])
    assert requests_of(demo["erin"]).count() == 0 and requests_of(demo["bob"]).count() == 0

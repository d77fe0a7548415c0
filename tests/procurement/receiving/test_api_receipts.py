"""`/api/v1/tasks/{id}/receipts/` (DESIGN §16): partial, full, rejected and returned receipts, each
posted to the ERP once; who may record them; what is refused and that nothing is written then."""
import pytest

from agentstate.models import Receipt
from procurement.models import GoodsReceipt, Membership

from tests.procurement.receiving.support import client_for, ordered, receipts_url

pytestmark = pytest.mark.django_db(transaction=True)


def post(user, task, lines, note="", language="en"):
    return client_for(user, language).post(receipts_url(task), {"lines": lines, "note": note}, format="json")


def body(user, task):
    return client_for(user).get(f"/api/v1/tasks/{task.pk}/").json()


def test_two_then_one_scratched_and_returned_reads_as_she_would_count_it(demo, erp, eager):
    task = ordered(demo)
    assert body(demo["alice"], task)["receipt_status"] == "none"
    first = post(demo["alice"], task, [{"line": 0, "accepted": 2}], note="two came")
    assert first.status_code == 201, first.json()
    assert first.json()["lines"] == [{"line": 0, "accepted": 2, "rejected": 0, "reason": ""}]
    assert first.json()["created_by"] == "alice" and first.json()["erp_status"] == "confirmed"
    mid = body(demo["alice"], task)
    assert mid["receipt_status"] == "partial" and mid["state"] == "externally_confirmed"
    assert (mid["lines"][0]["quantity"], mid["lines"][0]["received"], mid["lines"][0]["invoiced"]) == (3, 2, 0)
    second = post(demo["alice"], task, [{"line": 0, "accepted": 1}])
    assert second.status_code == 201 and body(demo["alice"], task)["receipt_status"] == "full"
    back = post(demo["alice"], task, [{"line": 0, "accepted": -1, "reason": "damaged"}], note="scratched")
    assert back.status_code == 201, back.json()
    after = body(demo["alice"], task)
    assert after["receipt_status"] == "partial" and after["lines"][0]["received"] == 2
    listed = client_for(demo["alice"]).get(receipts_url(task)).json()["results"]
    assert [r["lines"][0]["accepted"] for r in listed] == [2, 1, -1], "oldest first"
    posted = erp.goods_receipts()
    assert [p["lines"][0]["accepted"] for p in posted] == [2, 1, -1], "one ERP goods receipt per receipt"
    assert {p["external_ref"] for p in posted} == {r["id"] for r in listed}
    assert {p["purchase_order_id"] for p in posted} == {erp.purchase_orders()[0]["id"]}


def test_a_rejected_quantity_says_why_and_does_not_count_as_received(demo, erp, eager):
    task = ordered(demo)
    answer = post(demo["alice"], task, [{"line": 0, "accepted": 2, "rejected": 1, "reason": "damaged"}])
    assert answer.status_code == 201
    line = body(demo["alice"], task)["lines"][0]
    assert (line["received"], line["rejected"]) == (2, 1)
    assert erp.goods_receipts()[0]["lines"] == [{"description": "Monitor", "accepted": 2, "rejected": 1}]


def test_more_than_ordered_less_accepted_is_a_field_error_in_her_language_and_nothing_is_written(demo, erp, eager):
    task = ordered(demo)
    post(demo["alice"], task, [{"line": 0, "accepted": 2}])
    version = body(demo["alice"], task)["version"]
    answer = post(demo["alice"], task, [{"line": 0, "accepted": 2}], language="zh-hant")
    assert answer.status_code == 400
    assert list(answer.json()["errors"]) == ["lines.0.accepted"]
    assert answer.json()["errors"]["lines.0.accepted"] == ["最多只能再驗收 1：訂購 3，已驗收 2。"]
    english = post(demo["alice"], task, [{"line": 0, "accepted": 2}]).json()["errors"]["lines.0.accepted"][0]
    assert english.startswith("At most 1 more can be accepted")
    assert GoodsReceipt.objects.filter(task=task).count() == 1 and len(erp.goods_receipts()) == 1
    assert body(demo["alice"], task)["version"] == version


@pytest.mark.parametrize("line, field", [
    ({"line": 0, "accepted": 0, "rejected": 1}, "lines.0.reason"),            # a rejection without a reason
    ({"line": 0, "accepted": 1, "rejected": 1, "reason": "broken"}, "lines.0.reason"),  # not one of ours
    ({"line": 0, "accepted": -1, "reason": "other"}, "lines.0.accepted"),      # a return of nothing accepted
    ({"line": 5, "accepted": 1}, "lines.0.line"),                              # no such PO line
    ({"line": 0, "accepted": 0}, "lines.0.accepted"),                          # nothing at all
])
def test_a_bad_line_is_refused_with_its_field_and_nothing_is_written(demo, erp, eager, line, field):
    task = ordered(demo)
    answer = post(demo["alice"], task, [line])
    assert answer.status_code == 400 and field in answer.json()["errors"], answer.json()
    assert not GoodsReceipt.objects.filter(task=task).exists() and erp.goods_receipts() == []


def test_a_colleague_of_her_department_may_record_her_goods_and_another_department_may_not(demo, erp, eager):
    task = ordered(demo)
    Membership.objects.create(user=demo["erin"], department=task.purchase_request.department, role="requester")
    assert post(demo["erin"], task, [{"line": 0, "accepted": 1}]).status_code == 201
    Membership.objects.filter(user=demo["erin"], department__code="ENG").delete()
    assert post(demo["erin"], task, [{"line": 0, "accepted": 1}]).status_code == 404, "OPS cannot touch ENG's"
    assert client_for(demo["erin"]).get(receipts_url(task)).status_code == 404
    assert client_for(demo["dave"]).get(receipts_url(task)).status_code == 404
    # frank (director of every department) sees the request but does not receive goods for it.
    assert post(demo["frank"], task, [{"line": 0, "accepted": 1}]).status_code == 403
    assert GoodsReceipt.objects.filter(task=task).count() == 1


def test_before_the_purchase_order_a_receipt_is_409(demo, erp, eager):
    from procurement.purchase import services

    task = services.request_submit(requester=demo["alice"], department="ENG",
                                   lines=[{"description": "Monitor", "quantity": 3}], justification="x")
    assert post(demo["alice"], task, [{"line": 0, "accepted": 1}]).status_code == 409
    assert not GoodsReceipt.objects.exists()


def test_the_erp_answer_lost_after_commit_is_found_by_its_key_and_never_posted_twice(demo, erp, eager):
    task = ordered(demo)
    erp.fault(mode="drop", path="/goods-receipts", method="POST", times=1)
    answer = post(demo["alice"], task, [{"line": 0, "accepted": 2}])
    assert answer.status_code == 201
    receipt = Receipt.objects.get(task=task, operation="erp.goods_receipt.post")
    assert receipt.status == "confirmed" and receipt.attempts == 1, "found by its key, never resent"
    assert len(erp.goods_receipts()) == 1 and receipt.external_id == erp.goods_receipts()[0]["id"]
    assert client_for(demo["alice"]).get(receipts_url(task)).json()["results"][0]["erp_status"] == "confirmed"

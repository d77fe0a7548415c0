"""The three-way match over the API (DESIGN §16): an invoice for what arrived is matched and
posted to the ERP once, with no one else; one ahead of the goods waits and is posted when they
arrive; one billing what was rejected is an exception and nothing is posted. Each ERP write
exactly once, the simulator dropping its answer after it committed."""
import pytest

from agentstate.models import Receipt
from procurement.infra import erp as erp_client
from tests.procurement.invoicing.support import approval_of, decide, enter, ordered, read, receive

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def task(demo, erp, eager):
    return ordered(demo["alice"], demo["bob"])


def erp_invoices(erp) -> list[dict]:
    return erp_client.ErpClient(erp.url, 2).list_supplier_invoices()


def test_an_invoice_for_what_arrived_is_matched_and_posted_once_though_the_answer_is_lost(demo, task, erp):
    receive(demo, task, 3)
    erp.fault(mode="drop", path="/supplier-invoices", method="POST", times=1)

    body = enter(demo, task)

    assert body["status"] == "posted" and body["exceptions"] == [] and body["erp_status"] == "confirmed"
    [stored] = erp_invoices(erp)
    assert stored["external_ref"] == body["id"] and stored["total"] == "20160.00"
    assert Receipt.objects.filter(operation=erp_client.POST_SUPPLIER_INVOICE).count() == 1


def test_an_invoice_ahead_of_the_goods_waits_and_is_posted_once_when_the_rest_arrives(demo, task, erp):
    body = enter(demo, task)
    assert body["status"] == "waiting_receipt"

    receive(demo, task, 2)
    assert read(demo, body)["status"] == "waiting_receipt" and erp_invoices(erp) == []

    receive(demo, task, 1)
    assert read(demo, body)["status"] == "posted"
    [stored] = erp_invoices(erp)
    assert stored["external_ref"] == body["id"]
    assert len(erp.goods_receipts()) == 2


def test_billing_a_rejected_monitor_is_an_exception_and_nothing_is_posted(demo, task, erp):
    receive(demo, task, 2, rejected=1, reason="damaged")

    body = enter(demo, task)

    assert body["status"] == "exception" and body["erp_status"] == "none"
    [variance] = body["exceptions"]
    assert {k: variance[k] for k in ("kind", "line", "expected", "actual", "amount")} == {
        "kind": "quantity_over_received", "line": 0, "expected": "2", "actual": "3", "amount": "6720.00"}
    assert erp_invoices(erp) == []


def test_a_replacement_arriving_matches_the_exception_again_and_posts_it_once(demo, task, erp):
    receive(demo, task, 2, rejected=1, reason="damaged")
    body = enter(demo, task)
    approval = approval_of(demo, body)

    receive(demo, task, 1)  # the scratched one replaced: the match it showed no longer stands

    assert read(demo, body)["status"] == "posted" and len(erp_invoices(erp)) == 1
    assert approval_of(demo, body)["status"] == "superseded"
    assert decide(demo, approval, "approve").status_code == 409
    assert len(erp_invoices(erp)) == 1


def test_a_price_above_the_po_beyond_tolerance_is_a_price_variance(demo, task, erp):
    receive(demo, task, 3)
    lines = [{"line": 0, "quantity": 3, "unit_price": "6500.00"}]
    body = enter(demo, task, lines=lines, subtotal="19500.00", tax="975.00", total="20475.00")

    assert body["status"] == "exception"
    assert [(v["kind"], v["expected"], v["actual"]) for v in body["exceptions"]] == [
        ("price_variance", "6400.00", "6500.00")]
    assert erp_invoices(erp) == []


def test_an_exception_goes_to_the_manager_in_plain_words_and_approving_posts_it_once_with_the_variance(demo, task,
                                                                                                      erp):
    receive(demo, task, 2, rejected=1, reason="damaged")
    body = enter(demo, task)
    assert body["status"] == "exception" and body["approval"]

    approval = approval_of(demo, body)
    assert approval["kind"] == "invoice_exception" and approval["status"] == "pending"
    assert approval["rule"]["policy_rule"].startswith("ENG: manager, up to") and "bob" in approval["rule"]["usernames"]
    assert approval["scope"]["total"] == "6720.00" and approval["scope"]["invoice_total"] == "20160.00"
    assert approval["scope"]["variance_words"] == ["Invoiced quantity 3, accepted 2: 1 unit too many, NT$6,720"]
    assert erp_invoices(erp) == []  # nothing before the decision
    erp.fault(mode="drop", path="/supplier-invoices", method="POST", times=1)

    answer = decide(demo, approval, "approve")

    assert answer.status_code == 200, answer.json()
    assert read(demo, body)["status"] == "posted"
    [stored] = erp_invoices(erp)
    assert stored["external_ref"] == body["id"]
    assert stored["variance"]["amount"] == "6720.00" and stored["variance"]["approved_by"] == "bob"
    assert decide(demo, approval, "approve").status_code == 409  # twice is one decision
    assert len(erp_invoices(erp)) == 1
    task.refresh_from_db()
    assert task.state == "externally_confirmed"


def test_rejecting_an_exception_refuses_the_invoice_and_mails_the_supplier_in_chinese(demo, task, erp, mailoutbox):
    receive(demo, task, 2, rejected=1, reason="damaged")
    body = enter(demo, task)
    approval = approval_of(demo, body)

    answer = decide(demo, approval, "reject", comment="只收到兩台，請重開發票")

    assert answer.status_code == 200, answer.json()
    assert read(demo, body)["status"] == "rejected" and erp_invoices(erp) == []
    [mail] = [m for m in mailoutbox if "AB12345678" in m.subject]
    assert mail.to == [approval["scope"]["supplier"]["email"]]
    assert "發票數量 3，已驗收 2：多 1 台，NT$6,720" in mail.body and "只收到兩台，請重開發票" in mail.body


def test_a_requester_may_not_decide_an_invoice_exception_of_her_own_request(demo, task, erp):
    receive(demo, task, 2, rejected=1, reason="damaged")
    approval = approval_of(demo, enter(demo, task))

    assert decide(demo, approval, "approve", user="alice").status_code in (403, 404)
    assert erp_invoices(erp) == []

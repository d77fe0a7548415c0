"""chat.claims: what a model's reply says of numbers, amounts and states, against State."""
from procurement.chat.brain import TaskView
from procurement.chat.claims import unfounded

WAITING = TaskView(id="t1", state="awaiting_approval", version=5, number="REQ-2026-0007", total="52500.00",
                   subtotal="50000.00", receipts=[{"operation": "erp.requisition.create", "status": "confirmed",
                                                   "external_id": "REQ-000003"}])
ORDERED = TaskView(id="t2", state="externally_confirmed", version=9, number="REQ-2026-0002", po_number="PO-000011",
                   total="1050.00", decision={"status": "approved", "by": "bob"})


def test_a_made_up_purchase_order_and_approval_are_unfounded():
    assert unfounded("Approved! PO-999999 issued.", [WAITING]) == ["PO-999999", "Approved", "PO-999999 issued"]


def test_numbers_amounts_and_states_state_holds_are_founded():
    assert unfounded("REQ-2026-0007 (ERP REQ-000003) for NT$52,500 is waiting for approval.", [WAITING]) == []
    assert unfounded("PO-000011 was issued; REQ-2026-0002 was approved, NT$1,050 in all.", [ORDERED]) == []
    assert unfounded("已核准，採購單 PO-000011 已發出，共 1,050 元。", [ORDERED]) == []


def test_an_amount_or_a_state_that_differs_from_state_is_unfounded():
    assert unfounded("REQ-2026-0007 comes to NT$49,999.", [WAITING]) == ["NT$49,999"]
    assert unfounded("REQ-2026-0007 was rejected.", [WAITING]) == ["rejected"]
    assert unfounded("已取消。", [WAITING]) == ["已取消"]


def test_a_state_said_not_to_hold_claims_nothing():
    assert unfounded("It is not approved yet; it waits for bob.", [WAITING]) == []
    assert unfounded("Hello! What would you like to buy?", []) == []

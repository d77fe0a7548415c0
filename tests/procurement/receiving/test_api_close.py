"""`POST /api/v1/tasks/{id}/close/` (DESIGN §16): a manager or accounts payable closes the rest short;
the ERP's PO is closed once, the task ends `closed`, and the budget the rest would have spent is freed."""
from decimal import Decimal

import pytest

from agentstate.models import Receipt
from procurement.models import BudgetReservation, Department
from procurement.purchase.pricing import totals

from tests.procurement.receiving.support import client_for, close_url, ordered, receipts_url

pytestmark = pytest.mark.django_db(transaction=True)


def receive(demo, task, accepted):
    answer = client_for(demo["alice"]).post(receipts_url(task), {"lines": [{"line": 0, "accepted": accepted}]},
                                            format="json")
    assert answer.status_code == 201, answer.json()


def close(user, task, reason="the supplier cannot deliver the third"):
    return client_for(user).post(close_url(task), {"reason": reason}, format="json")


def test_the_manager_closes_the_rest_once_and_its_budget_is_released(demo, erp, eager):
    task = ordered(demo)
    receive(demo, task, 2)
    reserved = Department.objects.get(code="ENG").budget_reserved
    held = BudgetReservation.objects.get(task=task).amount
    unit = Decimal(task.data["award"]["lines"][0]["unit_price"])
    erp.fault(mode="drop", path=f"/purchase-orders/{task.data['purchase_order']['id']}/close", method="POST", times=1)
    answer = close(demo["bob"], task)
    assert answer.status_code == 200, answer.json()
    assert answer.json()["state"] == "closed"
    order = erp.purchase_orders()[0]
    assert order["status"] == "closed" and order["close_reason"] == "the supplier cannot deliver the third"
    closing = Receipt.objects.get(task=task, operation="erp.purchase_order.close")
    assert closing.status == "confirmed" and closing.attempts == 1, "found closed, never sent twice"
    assert erp.stats()["writes"] == 4  # requisition, order, one goods receipt, one close
    released = totals(unit)[2]
    assert Department.objects.get(code="ENG").budget_reserved == reserved - released
    assert BudgetReservation.objects.get(task=task).amount == held - released
    assert close(demo["bob"], task).status_code == 409, "nothing is left open"
    assert client_for(demo["alice"]).post(receipts_url(task), {"lines": [{"line": 0, "accepted": 1}]},
                                          format="json").status_code == 409, "closed: no more goods"


def test_accounts_payable_may_close_and_the_requester_or_another_department_may_not(demo, erp, eager):
    task = ordered(demo)
    assert close(demo["alice"], task).status_code == 403
    assert close(demo["erin"], task).status_code == 404
    assert close(demo["dave"], task).status_code == 404
    assert close(demo["bob"], task, reason=" ").status_code == 400
    assert erp.purchase_orders()[0]["status"] == "issued"
    assert close(demo["carol"], task).status_code == 200
    assert erp.purchase_orders()[0]["status"] == "closed"


def test_with_everything_received_there_is_nothing_to_close(demo, erp, eager):
    task = ordered(demo)
    receive(demo, task, 3)
    answer = close(demo["bob"], task)
    assert answer.status_code == 409 and answer.json()["current_version"]
    assert erp.purchase_orders()[0]["status"] == "issued"

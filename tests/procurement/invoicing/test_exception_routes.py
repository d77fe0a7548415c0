"""Every invoice exception reaches a person (DESIGN §16, §7): one the approval policy cannot route
goes to the named fallback (INVOICE_EXCEPTION_FALLBACK, else the administrators) and never
dead-ends as `exception` with no approval."""
import pytest

from procurement.models import Membership
from tests.procurement.invoicing.support import approval_of, decide, enter, invoice_body, ordered, read, receive

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def task(demo, erp, eager):
    return ordered(demo["alice"], demo["bob"])


def over_billed(demo, task, number="AB00000001") -> dict:
    """Three monitors billed, two accepted and one rejected: a quantity exception of one monitor."""
    return enter(demo, task, number=number)


@pytest.mark.parametrize("fallback, decider", [("", "carol"), ("frank", "frank")])
def test_an_exception_no_rule_routes_goes_to_the_named_fallback_who_can_approve_it(demo, task, settings, fallback,
                                                                                  decider):
    settings.INVOICE_EXCEPTION_FALLBACK = fallback
    receive(demo, task, 2, rejected=1, reason="damaged")
    # Nobody holds a deciding role any more: no policy rule finds anyone for the variance.
    Membership.objects.filter(role__in=["manager", "director"]).delete()

    body = over_billed(demo, task)

    assert body["status"] == "exception" and body["approval"], body
    waiting = approval_of(demo, body, decider)
    assert waiting["rule"]["rule"] == "fallback" and waiting["rule"]["usernames"] == [decider]
    assert decide(demo, waiting, "approve", user=decider).status_code == 200
    assert read(demo, body)["status"] == "posted"



def test_a_second_exception_on_the_same_po_gets_its_own_approval_once_the_first_is_decided(demo, task):
    receive(demo, task, 2, rejected=1, reason="damaged")
    po_line = invoice_body(task)["lines"][0]
    first = over_billed(demo, task)
    # One monitor at NT$6,500 against the PO's NT$6,400: a price exception on a second invoice.
    second = enter(demo, task, number="AB00000002", lines=[po_line | {"quantity": 1, "unit_price": "6500.00"}],
                   subtotal="6500.00", tax="325.00", total="6825.00")
    assert first["status"] == second["status"] == "exception"
    assert first["approval"] and not second["approval"]  # the engine holds one pending approval per task

    assert decide(demo, approval_of(demo, first), "approve").status_code == 200

    second = read(demo, second)
    assert second["approval"] and second["approval"] != first["approval"]
    answer = decide(demo, approval_of(demo, second), "approve")
    assert answer.status_code == 200, answer.json()
    assert read(demo, first)["status"] == "posted" and read(demo, second)["status"] == "posted"

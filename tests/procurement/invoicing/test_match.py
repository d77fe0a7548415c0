"""The three-way match on plain figures: what a buyer's accounts payable would call matched,
waiting for the goods, or an exception, with the variance it costs (tax included)."""
from decimal import Decimal as D

from procurement.invoicing.match import (DEFAULT_TOLERANCES, Billed, BilledLine, OrderedLine, Tolerance,
                                         three_way_match)

SELLER = "62140097"


def monitors(**kwargs) -> OrderedLine:
    return OrderedLine(**({"line": 0, "description": "Monitor", "ordered": 3, "unit_price": D("6500")} | kwargs))


def bill(*lines, subtotal=None, tax=None, seller=SELLER) -> Billed:
    rows = tuple(BilledLine(n, quantity, D(price)) for n, quantity, price in lines)
    subtotal = sum((row.amount for row in rows), D("0")) if subtotal is None else D(subtotal)
    tax = (subtotal * D("0.05")).quantize(D("1")) if tax is None else D(tax)
    return Billed(seller_tax_id=seller, lines=rows, subtotal=subtotal, tax=tax, total=subtotal + tax)


def match(lines, billed):
    return three_way_match(lines, billed, supplier_tax_id=SELLER)


def test_an_invoice_for_what_arrived_at_the_po_price_matches():
    outcome = match([monitors(accepted=3)], bill((0, 3, "6500")))
    assert outcome.status == "matched" and outcome.exceptions == () and outcome.variance == 0


def test_an_invoice_ahead_of_a_partial_delivery_waits_for_the_rest():
    outcome = match([monitors(accepted=2)], bill((0, 3, "6500")))
    assert outcome.status == "waiting"
    assert [w.as_json() for w in outcome.waiting] == [{"line": 0, "invoiced": 3, "accepted": 2}]


def test_billing_a_rejected_unit_is_an_exception_costing_it_with_tax():
    outcome = match([monitors(accepted=2, rejected=1)], bill((0, 3, "6500")))
    assert outcome.status == "exception"
    [variance] = outcome.exceptions
    assert (variance.kind, variance.line, variance.expected, variance.actual) == ("quantity_over_received", 0, "2", "3")
    assert variance.amount == D("6825.00")  # 6,500 + 5%


def test_billing_more_than_was_ordered_is_an_exception_not_a_wait():
    outcome = match([monitors(accepted=3)], bill((0, 4, "6500")))
    assert outcome.status == "exception" and outcome.exceptions[0].kind == "quantity_over_received"
    assert outcome.exceptions[0].amount == D("6825.00")


def test_a_returned_unit_billed_is_an_exception():
    outcome = match([monitors(accepted=2, returned=1)], bill((0, 3, "6500")))
    assert outcome.status == "exception"


def test_what_earlier_invoices_billed_is_not_billed_again():
    assert match([monitors(accepted=3, invoiced_before=2)], bill((0, 1, "6500"))).status == "matched"
    outcome = match([monitors(accepted=3, invoiced_before=2)], bill((0, 2, "6500")))
    assert outcome.status == "exception" and outcome.exceptions[0].expected == "1"


def test_a_price_within_one_percent_or_ten_dollars_matches_and_beyond_is_a_variance():
    assert match([monitors(accepted=3)], bill((0, 3, "6565"))).status == "matched"  # +1%
    outcome = match([monitors(accepted=3)], bill((0, 3, "6600")))
    [variance] = outcome.exceptions
    assert (variance.kind, variance.expected, variance.actual) == ("price_variance", "6500.00", "6600.00")
    assert variance.amount == D("315.00")  # 100 × 3 + 5%


def test_a_tax_off_by_more_than_a_dollar_is_a_mismatch():
    assert match([monitors(accepted=3)], bill((0, 3, "6500"), tax="976")).status == "matched"  # 975 ± 1
    outcome = match([monitors(accepted=3)], bill((0, 3, "6500"), tax="1000"))
    [variance] = outcome.exceptions
    assert (variance.kind, variance.expected, variance.actual, variance.amount) == (
        "tax_mismatch", "975.00", "1000.00", D("25.00"))


def test_another_seller_is_a_supplier_mismatch():
    outcome = match([monitors(accepted=3)], bill((0, 3, "6500"), seller="24549210"))
    assert [v.kind for v in outcome.exceptions] == ["supplier_mismatch"]


def test_a_header_that_is_not_the_sum_of_its_lines_is_a_total_mismatch():
    outcome = match([monitors(accepted=3)], bill((0, 3, "6500"), subtotal="19600"))
    assert "total_mismatch" in [v.kind for v in outcome.exceptions]


def test_a_line_the_po_does_not_have_is_unmatched():
    outcome = match([monitors(accepted=3)], bill((0, 3, "6500"), (1, 1, "100")))
    [variance] = outcome.exceptions
    assert (variance.kind, variance.line, variance.amount) == ("unmatched_line", 1, D("105.00"))


def test_an_exception_outranks_waiting():
    chair = OrderedLine(line=1, description="Chair", ordered=2, unit_price=D("3000"), accepted=1)
    outcome = match([monitors(accepted=3), chair], bill((0, 3, "7000"), (1, 2, "3000")))
    assert outcome.status == "exception" and [w.line for w in outcome.waiting] == [1]


def test_tolerances_combine_by_and_or_or():
    either = Tolerance(D("10"), D("1"), "or")
    both = Tolerance(D("10"), D("1"), "and")
    assert either.allows(D("60"), D("6500")) and not both.allows(D("60"), D("6500"))  # 1% of 6,500 is 65
    assert both.allows(D("9"), D("6500")) and not either.allows(D("70"), D("6500"))
    assert not Tolerance().allows(D("1"), D("10")) and Tolerance().allows(D("0"), D("10"))


def test_a_quantity_tolerance_lets_one_unit_over_match():
    loose = DEFAULT_TOLERANCES | {"quantity": Tolerance(D("1"))}
    assert match([monitors(accepted=2, rejected=1, tolerances=loose)], bill((0, 3, "6500"))).status == "matched"

"""The award rule and tax arithmetic (DESIGN §10), on plain inputs: no database."""
import json
from datetime import date, timedelta
from decimal import Decimal
from types import SimpleNamespace

import pytest

from procurement.models import Quote, Supplier
from procurement.purchase.tax import business_tax, totals, with_tax
from procurement.purchase.catalogue import starting_vocabulary
from procurement.purchase.pricing import award, match_item

WORDS = starting_vocabulary()  # the catalogue's words a new database starts with

TODAY = date(2026, 3, 1)
NEXT_YEAR = TODAY + timedelta(days=365)


def quote(supplier, item, unit_price, lead_time_days=5, valid_until=NEXT_YEAR):
    return SimpleNamespace(supplier=supplier, item=item, unit_price=Decimal(unit_price),
                           lead_time_days=lead_time_days, valid_until=valid_until)


def line(description, quantity=1):
    return {"description": description, "quantity": quantity}


def test_lowest_total_among_suppliers_quoting_every_line_wins():
    quotes = [
        quote("Alpha", "Laptop", "35000"), quote("Alpha", "Monitor", "6500"),
        quote("Beta", "Laptop", "34500"), quote("Beta", "Monitor", "6800"),
    ]
    result = award([line("laptop", 2), line("monitor", 3)], quotes, TODAY, WORDS)

    # Alpha: 70,000 + 19,500 = 89,500; Beta: 69,000 + 20,400 = 89,400
    assert result.supplier == "Beta"
    assert result.subtotal == Decimal("89400.00")
    assert [(p.item, p.quantity, p.unit_price, p.amount) for p in result.lines] == [
        ("Laptop", 2, Decimal("34500.00"), Decimal("69000.00")),
        ("Monitor", 3, Decimal("6800.00"), Decimal("20400.00")),
    ]
    assert [(c["supplier"], c["total"], c["awarded"]) for c in result.comparison] == [
        ("Beta", "93870.00", True), ("Alpha", "93975.00", False),
    ]
    assert result.question is None


def test_equal_totals_go_to_the_shorter_lead_time_of_the_slowest_line():
    quotes = [
        quote("Alpha", "Laptop", "35000", lead_time_days=3), quote("Alpha", "Keyboard", "1500", lead_time_days=9),
        quote("Beta", "Laptop", "35000", lead_time_days=7), quote("Beta", "Keyboard", "1500", lead_time_days=7),
    ]
    result = award([line("laptop"), line("keyboard")], quotes, TODAY, WORDS)

    assert result.supplier == "Beta"
    assert result.lead_time_days == 7


def test_equal_totals_and_lead_times_go_to_the_supplier_name_first_in_order():
    quotes = [quote("Zenith", "Monitor", "6500", 4), quote("Apex", "Monitor", "6500", 4)]

    assert award([line("monitor")], quotes, TODAY, WORDS).supplier == "Apex"


def test_cheaper_supplier_missing_an_item_is_excluded_and_shown_as_missing_it():
    quotes = [
        quote("Cheap IT", "Laptop", "30000"),
        quote("Full Range", "Laptop", "35800"), quote("Full Range", "Office chair", "8500"),
    ]
    result = award([line("laptop"), line("office chair")], quotes, TODAY, WORDS)

    assert result.supplier == "Full Range"
    assert result.total == Decimal("46515.00")  # (35,800 + 8,500) × 1.05
    cheap = next(c for c in result.comparison if c["supplier"] == "Cheap IT")
    assert cheap["covers_all"] is False
    assert cheap["missing"] == ["Office chair"]
    assert "total" not in cheap


def test_expired_quote_is_ignored_even_when_cheaper():
    quotes = [
        quote("Stale", "Laptop", "20000", valid_until=TODAY - timedelta(days=1)),
        quote("Current", "Laptop", "35000", valid_until=TODAY),  # valid through today
    ]
    result = award([line("laptop")], quotes, TODAY, WORDS)

    assert result.supplier == "Current"
    assert result.total == Decimal("36750.00")
    stale = next(c for c in result.comparison if c["supplier"] == "Stale")
    assert stale["expired"] == ["Laptop"]


def test_no_single_supplier_quoting_every_line_asks_the_requester_to_split():
    quotes = [quote("IT Shop", "Laptop", "35000"), quote("Furniture Co", "Office chair", "8200")]
    result = award([line("laptop"), line("chair", 4)], quotes, TODAY, WORDS)

    assert result.supplier is None
    assert result.total is None
    assert result.unquoted == ["laptop", "chair"]
    question = str(result.question)
    assert "split" in question
    assert "IT Shop quotes Laptop" in question
    assert "Furniture Co quotes Office chair" in question


def test_unknown_item_is_named_in_a_question_and_nothing_is_awarded():
    quotes = [quote("Alpha", "Laptop", "35000")]
    result = award([line("laptop"), line("flux capacitor")], quotes, TODAY, WORDS)

    assert result.supplier is None
    assert result.unquoted == ["flux capacitor"]
    assert str(result.question).startswith("We have no quote for 'flux capacitor'.")
    assert "Laptop" in str(result.question)  # tells the requester what can be bought


def test_item_whose_only_quotes_have_expired_cannot_be_awarded():
    quotes = [quote("Alpha", "Monitor", "6500", valid_until=TODAY - timedelta(days=30))]
    result = award([line("monitor", 2)], quotes, TODAY, WORDS)

    assert result.supplier is None
    assert result.unquoted == ["monitor"]
    assert "no quote for 'monitor'" in str(result.question)


def test_tax_is_five_percent_rounded_half_up_to_a_whole_nt_dollar_as_on_a_uniform_invoice():
    assert business_tax(Decimal("10")) == Decimal("1.00")  # 0.50 rounds up
    assert business_tax(Decimal("9.90")) == Decimal("0.00")  # 0.495 rounds down
    assert business_tax(Decimal("69810")) == Decimal("3491.00")  # 3,490.50 rounds up; half-even would give 3,490
    assert business_tax(Decimal("69829.99")) == Decimal("3491.00")  # 3,491.4995 rounds down
    assert totals(Decimal("70000")) == (Decimal("70000.00"), Decimal("3500.00"), Decimal("73500.00"))
    assert totals(Decimal("10.30")) == (Decimal("10.30"), Decimal("1.00"), Decimal("11.30"))  # 0.515
    assert with_tax(Decimal("1001")) == Decimal("1051.00")  # 50.05 of tax is NT$50, not NT$1,051.05


def test_award_subtotal_is_exact_to_the_cent_and_tax_is_whole_dollars():
    quotes = [quote("Alpha", "Laptop", "35000"), quote("Alpha", "Monitor", "6500"),
              quote("Alpha", "Keyboard", "1499.90")]
    result = award([line("Laptop", 2), line("Monitor"), line("Keyboard", 3)], quotes, TODAY, WORDS)

    # 70,000 + 6,500 + 4,499.70 = 80,999.70; tax 4,049.985 → NT$4,050 in whole dollars
    assert (result.subtotal, result.tax, result.total) == (
        Decimal("80999.70"), Decimal("4050.00"), Decimal("85049.70"))


def test_award_evidence_is_json_ready():
    quotes = [quote("Alpha", "Laptop", "35000"), quote("Beta", "Monitor", "6500")]
    body = json.loads(json.dumps(award([line("laptop")], quotes, TODAY, WORDS).as_json()))

    assert body["supplier"] == "Alpha"
    assert body["total"] == "36750.00"
    assert body["lines"][0]["amount"] == "35000.00"


def test_quote_model_instances_work_without_saving():
    hsinchu = Supplier(name="Hsinchu Tech Supply", tax_id="24536806")
    formosa = Supplier(name="Formosa Computer", tax_id="90473155")
    quotes = [
        Quote(supplier=hsinchu, item="USB-C dock", unit_price=Decimal("3150"), valid_until=NEXT_YEAR,
              lead_time_days=4),
        Quote(supplier=formosa, item="USB-C dock", unit_price=Decimal("3250"), valid_until=NEXT_YEAR,
              lead_time_days=5),
    ]
    result = award([SimpleNamespace(description="擴充座", quantity=2)], quotes, TODAY, WORDS)

    assert result.supplier == "Hsinchu Tech Supply"
    assert result.total == Decimal("6615.00")


@pytest.mark.parametrize(("description", "item"), [
    ("Laptop", "Laptop"), ("2 laptops", "Laptop"), ("Notebooks for new hires", "Laptop"),
    ("筆電", "Laptop"), ("筆記型電腦", "Laptop"),
    ("27-inch monitors", "Monitor"), ("external screen", "Monitor"), ("Displays", "Monitor"),
    ("兩台螢幕", "Monitor"),
    ("keyboards", "Keyboard"), ("鍵盤", "Keyboard"),
    ("USB-C Dock", "USB-C dock"), ("docks", "USB-C dock"), ("laptop docking station", "USB-C dock"),
    ("擴充座", "USB-C dock"),
    ("Office chairs", "Office chair"), ("chair", "Office chair"), ("椅子", "Office chair"),
    ("辦公椅", "Office chair"),
])
def test_descriptions_match_their_quoted_item_including_chinese(description, item):
    assert match_item(description, WORDS) == item


@pytest.mark.parametrize("description", [
    "flux capacitor", "monitor arm", "laptop stand", "screen protector", "筆電包", "",
])
def test_unknown_things_and_accessories_match_no_item(description):
    assert match_item(description, WORDS) is None


def test_an_item_quoted_outside_the_synonym_table_matches_by_its_name():
    quotes = [quote("Alpha", "Webcam", "1200")]

    assert award([line("webcams", 3)], quotes, TODAY, WORDS).total == Decimal("3780.00")

"""Reading a quote sheet: by content, not by name; formulas are never calculated; a bad file is
refused with a message that says what was expected. Checking its rows against the catalogue."""
import io
import zipfile
from decimal import Decimal

import pytest
from django.utils import translation

from procurement.quotesheet import checks
from procurement.words import refusal
from procurement.quotesheet.reader import SheetRefused, read_sheet
from procurement.purchase.catalogue import vocabulary
from procurement.quotesheet.services import catalogue_medians, supplier_list
from tests.procurement.quote_sheets import EXCEPTION_ROWS, HEADER, HSINCHU, csv_bytes, row, xlsx_bytes

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256))


def refused(content: bytes) -> SheetRefused:
    with pytest.raises(SheetRefused) as caught:
        read_sheet(content)
    return caught.value


def refusal_in_english(error: SheetRefused) -> str:
    with translation.override("en"):
        return refusal(error)


def test_xlsx_and_csv_give_the_same_twenty_rows():
    from_xlsx, from_csv = read_sheet(xlsx_bytes()), read_sheet(csv_bytes())
    assert len(from_xlsx) == 20 and from_xlsx == from_csv
    assert from_xlsx[0].row == 2 and from_xlsx[0].unit_price == Decimal("34500")


def test_a_csv_saved_by_excel_in_big5_is_read():
    rows = read_sheet(csv_bytes(encoding="cp950"))
    assert rows[3].item == "雷射印表機"


def test_wrong_columns_say_which_columns_are_expected():
    error = refused(csv_bytes(header=["名稱", "價錢", "廠商", "備註", "x"]))
    with translation.override("zh-hant"):  # worded on read, in the reader's language
        read = refusal(error)
    assert error.http_status == 400 and error.said.code == "sheet_columns_missing"
    assert read == ("工作表的欄位是：名稱、價錢、廠商、備註、x。缺少：品項、統一編號、單價（未稅）。"
                    "需要的欄位：品項、供應商、統一編號、單價（未稅）；選填：交期（天）。")
    assert "Missing: 品項 (item), 統一編號 (tax ID)" in refusal_in_english(error)


@pytest.mark.parametrize("content", [PNG, b"%PDF-1.7\n" + bytes(range(200)), bytes(range(256)) * 10],
                         ids=["png", "pdf", "binary"])
def test_a_file_that_is_not_a_spreadsheet_is_refused_whatever_its_name(content):
    assert "not a spreadsheet" in str(refused(content))


def test_a_zip_that_is_not_a_workbook_is_refused():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("hello.txt", "hi")
    assert "not a spreadsheet" in str(refused(buffer.getvalue()))


def test_an_old_binary_xls_is_refused_with_what_to_do():
    assert ".xlsx" in str(refused(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(500)))


def test_a_formula_price_is_not_calculated_but_refused_naming_the_cell():
    rows = [row("Laptop", HSINCHU, "=B2*1.05")]
    for content in (xlsx_bytes(rows), csv_bytes(rows)):
        error = refused(content)
        assert "Row 2" in str(error) and "=B2*1.05" in str(error) and "formula" in str(error)


def test_a_formula_in_a_text_cell_stays_text():
    rows = read_sheet(xlsx_bytes([row('=HYPERLINK("http://x","Laptop")', HSINCHU, 34500)]))
    assert rows[0].item == '=HYPERLINK("http://x","Laptop")'


def test_a_file_over_the_limit_is_refused_with_413(settings):
    settings.QUOTE_SHEET_MAX_BYTES = 1000
    error = refused(csv_bytes() * 10)
    assert error.http_status == 413 and "MB" in str(error)


def test_too_many_rows_are_refused(settings):
    settings.QUOTE_SHEET_MAX_ROWS = 5
    assert "at most 5" in str(refused(csv_bytes()))


def test_excel_dropping_leading_zeros_of_a_tax_id_is_undone():
    rows = read_sheet(xlsx_bytes([["Laptop", "X", 4595257, 34500, 5]]))
    assert rows[0].tax_id == "04595257"


@pytest.mark.django_db
def test_twenty_rows_with_three_exceptions_give_exactly_three_questions(demo):
    states, questions = checks.sheet_check(read_sheet(xlsx_bytes()), catalogue=catalogue_medians(), vocabulary=vocabulary(),
                                           suppliers=supplier_list(), tolerance_percent=30)
    assert len(states) == 20
    assert {q["row"]: q["kind"] for q in questions} == EXCEPTION_ROWS
    assert [q["n"] for q in questions] == [1, 2, 3]
    price = next(q for q in questions if q["kind"] == "price")
    assert price["median"] == "6550.00" and price["percent"] == 83


@pytest.mark.django_db
def test_the_price_tolerance_is_a_setting(demo):
    rows = read_sheet(xlsx_bytes())
    _, questions = checks.sheet_check(rows, catalogue=catalogue_medians(), vocabulary=vocabulary(), suppliers=supplier_list(),
                                      tolerance_percent=90)
    assert "price" not in {q["kind"] for q in questions}


def test_header_names_in_english_are_read_too():
    rows = read_sheet(csv_bytes(header=["Item", "Supplier", "Tax ID", "Unit price", "Lead time"]))
    assert len(rows) == 20 and HEADER[0] == "品項"

"""Reading a quote sheet's bytes into rows, or refusing the file with a message that says why.

The content decides what a file is, never its name: an XLSX is a ZIP holding a workbook, a CSV
is text (UTF-8, or Big5 as Excel in Taiwan saves it). Formulas are never calculated: a cell
is read as what was typed, so "=B2*1.05" is that text, and a price must be a typed number.

A workbook's XML never needs a DOCTYPE: one that declares any (entities that expand, "billion
laughs", or point outside) is refused before openpyxl reads it, and openpyxl itself parses
through defusedxml (it uses it when installed). Any error while the rows are read is a refusal
too, never an exception out of here."""
import csv
import io
import re
import zipfile
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from django.conf import settings

from agentstate.errors import DomainError
from agentstate.said import Said, say
import openpyxl

ZIP_MAGIC = b"PK\x03\x04"
OLE_MAGIC = b"\xd0\xcf\x11\xe0"  # the old binary .xls
# Inflated size a workbook may reach; a small ZIP that inflates past it is refused unread.
MAX_INFLATED_BYTES = 100 * 1024 * 1024

# Column -> the headers people write for it (compared without spaces, case or brackets).
COLUMNS = {
    "item": ["品項", "品名", "項目", "item", "product"],
    "supplier": ["供應商", "廠商", "supplier", "vendor"],
    "tax_id": ["統一編號", "統編", "taxid", "tax_id", "ubn"],
    "unit_price": ["單價", "未稅單價", "單價未稅", "unitprice", "unit_price", "price"],
    "lead_time_days": ["交期", "交期天", "交期天數", "leadtime", "leadtimedays", "lead_time_days"],
}
REQUIRED = ("item", "supplier", "tax_id", "unit_price")
OPTIONAL = ("lead_time_days",)
PRICE = re.compile(r"^(?:NT\$|\$)?\s*(\d{1,3}(?:,\d{3})+|\d+)(\.\d{1,2})?\s*(?:元)?$", re.IGNORECASE)


class SheetRefused(DomainError):
    """The file is not a quote sheet we can read; nothing was stored. Its code is worded on read
    (procurement.words.refusals), on the file's field too."""

    def __init__(self, *, said: Said, status: int = 400):
        super().__init__(said=said, errors={"file": [said]})
        self.http_status = status


@dataclass(frozen=True)
class SheetRow:
    row: int              # the row number as the spreadsheet shows it (the header is row 1)
    item: str
    supplier: str
    tax_id: str
    unit_price: Decimal
    lead_time_days: int | None


def expected_columns() -> dict:
    """The columns a refusal names as expected: the required ones, and the optional."""
    return {"required": list(REQUIRED), "optional": list(OPTIONAL)}


def read_sheet(content: bytes) -> list[SheetRow]:
    """The sheet's quote rows (empty rows skipped); SheetRefused when it cannot be one."""
    if not content:
        raise SheetRefused(said=say("sheet_file_empty"))
    if len(content) > settings.QUOTE_SHEET_MAX_BYTES:
        mb = settings.QUOTE_SHEET_MAX_BYTES / (1024 * 1024)
        raise SheetRefused(said=say("sheet_file_too_big", size=f"{len(content) / (1024 * 1024):.1f}", limit=f"{mb:g}"),
                           status=413)
    if content.startswith(ZIP_MAGIC):
        table = _xlsx_cells(content)
    elif content.startswith(OLE_MAGIC):
        raise SheetRefused(said=say("sheet_old_excel"))
    else:
        table = _csv_cells(content)
    return _rows(table)


def _not_a_sheet() -> SheetRefused:
    return SheetRefused(said=say("sheet_not_a_spreadsheet"))


def _xlsx_cells(content: bytes) -> list[list[str]]:
    try:
        with zipfile.ZipFile(io.BytesIO(content)) as archive:
            names = archive.namelist()
            if "xl/workbook.xml" not in names:
                raise _not_a_sheet()
            if sum(info.file_size for info in archive.infolist()) > MAX_INFLATED_BYTES:
                raise SheetRefused(said=say("sheet_inflates_too_far", mb=MAX_INFLATED_BYTES // (1024 * 1024)),
                                   status=413)
            if any(_declares_entities(archive, name) for name in names if name.endswith((".xml", ".rels"))):
                raise SheetRefused(said=say("sheet_declares_entities"))
        # read_only: streamed; data_only=False: a formula cell gives its formula, never a cached result.
        book = openpyxl.load_workbook(io.BytesIO(content), read_only=True, data_only=False)
    except SheetRefused:
        raise
    except Exception:
        raise _not_a_sheet() from None
    try:
        sheet = book.worksheets[0]
        limit = settings.QUOTE_SHEET_MAX_ROWS + 1
        table = []
        for n, values in enumerate(sheet.iter_rows(values_only=True)):
            if n > limit + 1000:  # trailing blank rows are skipped below; endless ones are not read
                break
            table.append([_cell_text(v) for v in values])
        return table
    except SheetRefused:
        raise
    except Exception:  # the sheet's XML is parsed here, lazily: a broken part is no spreadsheet
        raise _not_a_sheet() from None
    finally:
        book.close()


def _declares_entities(archive: zipfile.ZipFile, name: str) -> bool:
    """Whether the part has a DOCTYPE or an ENTITY declaration. Inside XML text a "<" is always
    escaped, so the bytes "<!DOCTYPE" or "<!ENTITY" can only be markup (or a comment, refused too)."""
    with archive.open(name) as part:
        tail = b""
        while chunk := part.read(64 * 1024):
            window = (tail + chunk).upper()
            if b"<!DOCTYPE" in window or b"<!ENTITY" in window:
                return True
            tail = chunk[-16:]
    return False


def _cell_text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


def _csv_cells(content: bytes) -> list[list[str]]:
    if b"\x00" in content[:65536]:
        raise _not_a_sheet()
    for encoding in ("utf-8-sig", "cp950"):
        try:
            text = content.decode(encoding)
            break
        except UnicodeDecodeError:
            continue
    else:
        raise _not_a_sheet()
    if any(ord(ch) < 32 and ch not in "\t\r\n" for ch in text[:65536]):
        raise _not_a_sheet()
    try:
        dialect = csv.Sniffer().sniff(text[:4096], delimiters=",\t;")
    except csv.Error:
        dialect = csv.excel
    try:
        return [[cell.strip() for cell in row] for row in csv.reader(io.StringIO(text), dialect)]
    except csv.Error:
        raise _not_a_sheet() from None


def _key(header: str) -> str:
    return re.sub(r"[\s()（）\[\]_\-]", "", header).lower()


def _columns(header: list[str]) -> dict[str, int]:
    wanted = {_key(word): column for column, words in COLUMNS.items() for word in words}
    found = {}
    for index, title in enumerate(header):
        column = wanted.get(_key(title))
        if column and column not in found:
            found[column] = index
    return found


def _rows(table: list[list[str]]) -> list[SheetRow]:
    table = [row for row in table if any(cell for cell in row)]
    if not table:
        raise SheetRefused(said=say("sheet_empty", **expected_columns()))
    header, body = table[0], table[1:]
    columns = _columns(header)
    missing = [c for c in REQUIRED if c not in columns]
    if missing:
        headers = [title[:100] for title in header if title][:20]
        raise SheetRefused(said=say("sheet_columns_missing", headers=headers, missing=missing, **expected_columns()))
    if not body:
        raise SheetRefused(said=say("sheet_no_quotes"))
    if len(body) > settings.QUOTE_SHEET_MAX_ROWS:
        raise SheetRefused(said=say("sheet_too_many_rows", n=len(body), max=settings.QUOTE_SHEET_MAX_ROWS))
    return [_row(n, cells, columns) for n, cells in enumerate(body, start=2)]


def _row(n: int, cells: list[str], columns: dict[str, int]) -> SheetRow:
    def cell(column):
        index = columns.get(column)
        return cells[index] if index is not None and index < len(cells) else ""

    return SheetRow(row=n, item=cell("item")[:200], supplier=cell("supplier")[:200],
                    tax_id=_tax_id(cell("tax_id")), unit_price=_price(n, cell("unit_price")),
                    lead_time_days=_days(n, cell("lead_time_days")))


def _tax_id(text: str) -> str:
    text = text.replace(" ", "")[:20]
    return text.zfill(8) if text.isdigit() and len(text) < 8 else text  # Excel drops leading zeros


def _price(n: int, text: str) -> Decimal:
    match = PRICE.match(text.replace(" ", ""))
    value = None
    if match:
        try:
            value = Decimal(match.group(1).replace(",", "") + (match.group(2) or ""))
        except InvalidOperation:
            value = None
    if value is None or value <= 0 or value >= Decimal("1000000000000"):
        code = "sheet_price_formula" if text.startswith("=") else "sheet_price_not_positive"
        raise SheetRefused(said=say(code, row=n, text=text[:40]))
    return value


def _days(n: int, text: str) -> int | None:
    if not text:
        return None
    if not text.isdigit() or int(text) > 3650:
        raise SheetRefused(said=say("sheet_lead_time_not_days", row=n, text=text[:40]))
    return int(text)

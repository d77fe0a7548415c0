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
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from agentstate.errors import DomainError
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
HEADER_NAMES = {  # how the refusal names each column
    "item": gettext_lazy("品項 (item)"), "supplier": gettext_lazy("供應商 (supplier)"),
    "tax_id": gettext_lazy("統一編號 (tax ID)"), "unit_price": gettext_lazy("單價 (unit price, before tax)"),
    "lead_time_days": gettext_lazy("交期 (lead time in days)"),
}
PRICE = re.compile(r"^(?:NT\$|\$)?\s*(\d{1,3}(?:,\d{3})+|\d+)(\.\d{1,2})?\s*(?:元)?$", re.IGNORECASE)


class SheetRefused(DomainError):
    """The file is not a quote sheet we can read; nothing was stored. Written in the reader's language."""
    translated = True

    def __init__(self, message: str, status: int = 400):
        super().__init__(message, errors={"file": [message]})
        self.http_status = status


@dataclass(frozen=True)
class SheetRow:
    row: int              # the row number as the spreadsheet shows it (the header is row 1)
    item: str
    supplier: str
    tax_id: str
    unit_price: Decimal
    lead_time_days: int | None


def expected_columns() -> str:
    required = "、".join(str(HEADER_NAMES[c]) for c in REQUIRED)
    return _("Expected columns: %(required)s; optional: %(optional)s.") % {
        "required": required, "optional": str(HEADER_NAMES["lead_time_days"])}


def read_sheet(content: bytes) -> list[SheetRow]:
    """The sheet's quote rows (empty rows skipped); SheetRefused when it cannot be one."""
    if not content:
        raise SheetRefused(_("The file is empty."))
    if len(content) > settings.QUOTE_SHEET_MAX_BYTES:
        mb = settings.QUOTE_SHEET_MAX_BYTES / (1024 * 1024)
        raise SheetRefused(_("The file is %(size)s MB; files up to %(limit)s MB are accepted.")
                           % {"size": f"{len(content) / (1024 * 1024):.1f}", "limit": f"{mb:g}"}, status=413)
    if content.startswith(ZIP_MAGIC):
        table = _xlsx_cells(content)
    elif content.startswith(OLE_MAGIC):
        raise SheetRefused(_("This is an old Excel file (.xls). Save it as .xlsx or .csv and attach it again."))
    else:
        table = _csv_cells(content)
    return _rows(table)


def _not_a_sheet() -> SheetRefused:
    return SheetRefused(_("This file is not a spreadsheet. Attach the quotes as an Excel workbook (.xlsx) or a "
                          "CSV file."))


def _xlsx_cells(content: bytes) -> list[list[str]]:
    try:
        with zipfile.ZipFile(io.BytesIO(content)) as archive:
            names = archive.namelist()
            if "xl/workbook.xml" not in names:
                raise _not_a_sheet()
            if sum(info.file_size for info in archive.infolist()) > MAX_INFLATED_BYTES:
                raise SheetRefused(_("The workbook unpacks to more than %(mb)d MB; it is not read.")
                                   % {"mb": MAX_INFLATED_BYTES // (1024 * 1024)}, status=413)
            if any(_declares_entities(archive, name) for name in names if name.endswith((".xml", ".rels"))):
                raise SheetRefused(_("The workbook's XML declares entities (a DOCTYPE), which a spreadsheet never "
                                     "needs; it is not read. Save it again from Excel and attach it."))
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
        raise SheetRefused(_("The sheet is empty. %(expected)s") % {"expected": expected_columns()})
    header, body = table[0], table[1:]
    columns = _columns(header)
    missing = [c for c in REQUIRED if c not in columns]
    if missing:
        found = "、".join(h for h in header if h) or _("none")
        raise SheetRefused(_("The sheet's columns are: %(found)s. Missing: %(missing)s. %(expected)s") % {
            "found": found[:300], "missing": "、".join(str(HEADER_NAMES[c]) for c in missing),
            "expected": expected_columns()})
    if not body:
        raise SheetRefused(_("The sheet has its header but no quotes."))
    if len(body) > settings.QUOTE_SHEET_MAX_ROWS:
        raise SheetRefused(_("The sheet has %(n)d quotes; at most %(max)d are read at once.")
                           % {"n": len(body), "max": settings.QUOTE_SHEET_MAX_ROWS})
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
        shown = text[:40] or _("(empty)")
        if text.startswith("="):
            message = _("Row %(row)d: the unit price is the formula “%(text)s”. Formulas are not calculated; type the "
                        "price as a number and attach the file again.")
        else:
            message = _("Row %(row)d: the unit price “%(text)s” is not a price above zero. Type it as a number, such "
                        "as 35000, and attach the file again.")
        raise SheetRefused(message % {"row": n, "text": shown})
    return value


def _days(n: int, text: str) -> int | None:
    if not text:
        return None
    if not text.isdigit() or int(text) > 3650:
        raise SheetRefused(_("Row %(row)d: the lead time “%(text)s” is not a number of days.")
                           % {"row": n, "text": text[:40]})
    return int(text)

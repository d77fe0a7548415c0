"""Accounts payable's queue as a spreadsheet: CSV and XLSX, the inbox exports' way (pages/inbox.py):
headers in the reader's language, amounts as numbers shown in NT$, dates as dates."""
import csv
import io
from datetime import date, datetime

from django.http import HttpResponse
from django.utils.translation import gettext as _
from django.utils.translation import pgettext
from openpyxl import Workbook

from procurement.invoicing.queue import SECTIONS, QueueRow
from procurement.pages.inbox import _cell, _local

NTD_FORMAT = '"NT$"#,##0'
AMOUNT_COLUMNS = ("H", "I", "J")  # 未稅, 營業稅, 含稅


def _columns():
    return [_("Queue"), _("Invoice number"), _("Invoice date"), _("Supplier"), _("Seller tax ID"),
            _("Request number"), _("PO number"), _("Untaxed (NT$)"), _("Business tax (NT$)"),
            _("Total incl. tax (NT$)"), _("Status"), _("Variance"), _("Entered at"), _("Posted at")]


def _values(row: QueueRow) -> list:
    return [row.section_label, row.number, row.date, row.supplier, row.seller_tax_id, row.request_number,
            row.po_number, row.subtotal, row.tax, row.total, row.status_label,
            pgettext("list separator", "; ").join(row.variance), _local(row.entered_at), _local(row.posted_at)]


def queue_rows(sections: dict[str, list[QueueRow]]) -> list[QueueRow]:
    return [row for section in SECTIONS for row in sections.get(section, [])]


def _text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, date):
        return value.isoformat()
    return _cell(value)


def export_csv(rows: list[QueueRow], filename: str) -> HttpResponse:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(_columns())
    for row in rows:
        writer.writerow([_text(v) for v in _values(row)])
    # A byte-order mark so spreadsheet programs read the Chinese as UTF-8.
    response = HttpResponse("\ufeff" + buffer.getvalue(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}.csv"'
    return response


def export_xlsx(rows: list[QueueRow], filename: str) -> HttpResponse:
    book = Workbook()
    sheet = book.active
    sheet.title = pgettext("export sheet", "Accounts payable")[:31]
    sheet.append(_columns())
    for row in rows:
        sheet.append([_cell(v) for v in _values(row)])
    if sheet.max_row > 1:
        for column in AMOUNT_COLUMNS:
            for cells in sheet[f"{column}2:{column}{sheet.max_row}"]:
                cells[0].number_format = NTD_FORMAT
        for cells in sheet[f"C2:C{sheet.max_row}"]:
            cells[0].number_format = "yyyy-mm-dd"
        for column in ("M", "N"):
            for cells in sheet[f"{column}2:{column}{sheet.max_row}"]:
                cells[0].number_format = "yyyy-mm-dd hh:mm"
    buffer = io.BytesIO()
    book.save(buffer)
    response = HttpResponse(buffer.getvalue(),
                            content_type="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
    response["Content-Disposition"] = f'attachment; filename="{filename}.xlsx"'
    return response

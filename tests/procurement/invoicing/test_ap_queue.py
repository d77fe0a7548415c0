"""Accounts payable's queue on /invoices/: invoices waiting for their goods, exceptions waiting for
a decision (the variance in words), the matched ones posted today; and the queue as CSV and XLSX
in the reader's language, amounts as numbers in NT$. A requester is refused."""
import csv
import io
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from openpyxl import load_workbook

from agentstate.models import Receipt
from procurement.infra import erp as erp_client
from procurement.models.invoicing import SupplierInvoice
from tests.procurement.invoicing.support import ordered
from tests.procurement.invoicing.support import enter, receive
from tests.procurement.invoicing.test_invoice_pages import client_for

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def queue(demo, erp, eager):
    """Four invoices: one ahead of its goods, one billing a rejected monitor, one posted today and one
    posted yesterday."""
    waiting = ordered(demo["alice"], demo["bob"])
    enter(demo, waiting, number="AA00000001")
    short = ordered(demo["alice"], demo["bob"])
    receive(demo, short, 2, rejected=1, reason="damaged")
    enter(demo, short, number="AA00000002")
    posted = ordered(demo["alice"], demo["bob"])
    receive(demo, posted, 3)
    enter(demo, posted, number="AA00000003")
    earlier = ordered(demo["alice"], demo["bob"])
    receive(demo, earlier, 3)
    old = enter(demo, earlier, number="AA00000004")
    Receipt.objects.filter(operation=erp_client.POST_SUPPLIER_INVOICE, scope=f"invoice:{old['id']}").update(
        updated_at=timezone.now() - timedelta(days=1))
    statuses = dict(SupplierInvoice.objects.values_list("number", "status"))
    assert statuses == {"AA00000001": "waiting_receipt", "AA00000002": "exception", "AA00000003": "posted",
                        "AA00000004": "posted"}, statuses


def _section(body: str, key: str) -> str:
    start = body.index(f'id="queue-{key}"')
    return body[start:body.index("</section>", start)]


def test_each_section_holds_its_invoices_with_the_variance_in_words(demo, queue):
    body = client_for(demo["carol"]).get(reverse("invoices")).content.decode()

    waiting, exceptions, today = (_section(body, key) for key in ("waiting", "exceptions", "posted_today"))
    assert "等待到貨" in waiting and "AA00000001" in waiting
    assert "AA00000002" not in waiting and "AA00000003" not in waiting
    assert "AA00000002" in exceptions and "AA00000001" not in exceptions and "AA00000003" not in exceptions
    assert "發票數量 3，已驗收 2：多 1 台" in exceptions
    assert "AA00000003" in today and "AA00000004" not in today and "AA00000002" not in today
    assert reverse("invoice-export", args=["xlsx"]) in body


def test_the_xlsx_opens_with_the_rows_headers_in_chinese_and_amounts_as_numbers_in_ntd(demo, queue):
    answer = client_for(demo["carol"]).get(reverse("invoice-export", args=["xlsx"]))

    assert answer.status_code == 200 and answer["Content-Disposition"].endswith('.xlsx"')
    sheet = load_workbook(io.BytesIO(answer.content)).active
    header, *rows = list(sheet.iter_rows(values_only=True))
    assert header[:3] == ("佇列", "發票號碼", "發票日期") and header[9] == "含稅金額（NT$）"
    assert [(row[0], row[1]) for row in rows] == [("等待到貨", "AA00000001"), ("例外待決定", "AA00000002"),
                                                  ("今日已比對並入帳", "AA00000003")]
    assert rows[0][7:10] == (19200, 960, 20160) and isinstance(rows[0][9], (int, float))
    assert sheet["J2"].number_format == '"NT$"#,##0'
    assert "多 1 台" in rows[1][11]


def test_the_csv_opens_with_the_same_rows_in_english(demo, queue):
    answer = client_for(demo["carol"], "en").get(reverse("invoice-export", args=["csv"]))

    assert answer.status_code == 200
    table = list(csv.reader(io.StringIO(answer.content.decode("utf-8-sig"))))
    assert table[0][:2] == ["Queue", "Invoice number"] and table[0][9] == "Total incl. tax (NT$)"
    assert [row[1] for row in table[1:]] == ["AA00000001", "AA00000002", "AA00000003"]
    assert table[3][9] == "20160.00" and table[3][0] == "Matched and posted today"


def test_a_requester_is_refused_the_queue_and_its_export(demo, queue):
    alice = client_for(demo["alice"])
    assert alice.get(reverse("invoices")).status_code == 403
    answer = alice.get(reverse("invoice-export", args=["xlsx"]))
    assert answer.status_code == 403 and "AA00000001" not in answer.content.decode()
    assert client_for(demo["carol"]).get(reverse("invoice-export", args=["pdf"])).status_code == 404

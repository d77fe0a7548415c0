"""An invoice exception as a first user reads it, in zh-Hant and English: bob's inbox marks it as an
invoice exception with its variance, the page's button names what the click posts, the version
and the verbs read as on a purchase's approval, what came of the goods shows per line, the result
names the request as its own page does; carol's queue keeps the approved variance, and entering an
invoice tells her what came of it."""
import csv
import io
import re

import pytest
from django.urls import reverse
from django.utils import translation

from agentstate.models import Approval
from procurement.invoicing.queue import entered_words
from procurement.invoicing.services import invoice_enter
from procurement.models.invoicing import SupplierInvoice
from procurement.receiving.services import goods_receipt_record
from tests.procurement.invoicing.support import exception, invoice_body, ordered, page_client  # noqa: F401 (a fixture)
from tests.procurement.invoicing.test_invoice_pages import typed

pytestmark = pytest.mark.django_db(transaction=True)
ZH, EN = "zh-hant", "en"


def text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html))


def approve(demo, approval, language):
    return page_client(demo["bob"], language).post(reverse("approval-decide", args=[approval.pk]), {
        "decision": "approve", "state_version": approval.state_version, "scope_hash": approval.scope_hash})


@pytest.mark.parametrize("language, now, bare", [
    (ZH, "請購目前：部分到貨（2/3）。", "請購目前：已下單。"),
    (EN, "The request now: Partly delivered (2/3).", "The request now: Ordered."),
])
def test_the_result_names_the_request_as_its_own_page_does(demo, exception, language, now, bare):
    answer = approve(demo, exception, language)
    body = text(answer.content.decode())

    assert answer.status_code == 200 and SupplierInvoice.objects.get().status == "posted"
    assert now in body and bare not in body
    page = text(page_client(demo["bob"], language).get(reverse("approval-page", args=[exception.pk])).content.decode())
    assert now in page


@pytest.mark.parametrize("language, kind, number, variance, purchase", [
    (ZH, "發票異常", "發票 AB12345678", "差異 NT$6,720", 'data-label="總計（含稅）"'),
    (EN, "Invoice exception", "Invoice AB12345678", "variance NT$6,720", 'data-label="Total (incl. tax)"'),
])
def test_the_inbox_marks_the_row_as_an_invoice_exception_with_its_variance(demo, exception, language, kind, number,
                                                                          variance, purchase):
    body = page_client(demo["bob"], language).get(reverse("approval-inbox")).content.decode()
    row = body.split("<tbody>")[1].split("</tr>")[0]

    assert kind in row and number in text(row) and variance in text(row)
    assert purchase not in row and ('data-label="用途"' if language == ZH else 'data-label="Purpose"') not in row


def test_the_inbox_export_says_the_amount_is_a_variance(demo, exception):
    answer = page_client(demo["bob"], EN).get(reverse("approval-export", args=["csv"]))
    rows = list(csv.reader(io.StringIO(answer.content.decode("utf-8-sig"))))

    assert "Invoice exception: invoice AB12345678" in rows[1][4] and "variance" in rows[1][4]


@pytest.mark.parametrize("language, button, variance_button, version, bound", [
    (ZH, "核准並入帳 NT$20,160", "核准 NT$6,720", "您的決定只適用於這一版（第 1 版）", re.compile(r"（v\d+）")),
    (EN, "Approve and post NT$20,160", "Approve NT$6,720", "your decision applies to this version only (revision 1)",
     re.compile(r"\(v\d+\)")),
])
def test_the_button_names_what_is_posted_and_the_version_reads_as_on_a_purchase(demo, exception, language, button,
                                                                                variance_button, version, bound):
    body = text(page_client(demo["bob"], language).get(reverse("approval-page", args=[exception.pk])).content.decode())

    assert button in body and variance_button not in body
    assert version in body and not bound.search(body)


@pytest.mark.parametrize("language, note, button, other", [
    (ZH, "駁回會拒收這張發票", "駁回", "退回會拒收"),
    (EN, "Rejecting refuses the invoice", "Reject", "Returning refuses"),
])
def test_the_note_and_the_button_use_the_same_verb(demo, exception, language, note, button, other):
    body = page_client(demo["bob"], language).get(reverse("approval-page", args=[exception.pk])).content.decode()

    assert note in body and other not in body
    assert re.search(r'<button type="submit" class="danger">' + button + "</button>", body)


@pytest.mark.parametrize("language, words", [
    (ZH, ["已驗收", "拒收", "1（損壞），已退回供應商", "驗收後退貨"]),
    (EN, ["Accepted", "Rejected", "1 (damaged), sent back to the supplier", "Returned after acceptance"]),
])
def test_the_approver_sees_the_rejected_unit_went_back(demo, exception, language, words):
    body = page_client(demo["bob"], language).get(reverse("approval-page", args=[exception.pk])).content.decode()
    table = body.split('class="stack deliveries"')[1].split("</table>")[0]

    assert all(word in text(table) for word in words), text(table)
    assert re.search(r'data-label="(Accepted|已驗收)" class="num">2</td>', table)


def test_a_return_after_acceptance_shows_too(demo, erp, eager):
    task = ordered(demo["alice"], demo["bob"])
    goods_receipt_record(task_id=task.pk, user=demo["alice"], lines=[{"line": 0, "accepted": 3}])
    goods_receipt_record(task_id=task.pk, user=demo["alice"], lines=[{"line": 0, "accepted": -1, "reason": "damaged"}])
    fields = invoice_body(task)
    invoice_enter(user=demo["carol"], task_id=fields.pop("task"), fields=fields)
    approval = Approval.objects.get(task=task, status="pending")

    body = page_client(demo["bob"], EN).get(reverse("approval-page", args=[approval.pk])).content.decode()
    table = body.split('class="stack deliveries"')[1].split("</table>")[0]
    assert 'data-label="Accepted" class="num">2</td>' in table
    assert re.search(r'data-label="Returned after acceptance" class="num"><strong class="bad">1</strong>', table)


def _section(body: str, key: str) -> str:
    start = body.index(f'id="queue-{key}"')
    return body[start:body.index("</section>", start)]


@pytest.mark.parametrize("language, section, variance", [
    (ZH, "今日入帳（差異已核准）", "發票數量 3，已驗收 2：多 1 台"),
    (EN, "Posted today with an approved variance", "Invoiced quantity 3, accepted 2: 1 unit too many"),
])
def test_the_queue_keeps_an_approved_variance_apart_from_the_matched(demo, exception, language, section, variance):
    assert approve(demo, exception, ZH).status_code == 200
    carol = page_client(demo["carol"], language)
    body = carol.get(reverse("invoices")).content.decode()

    assert "AB12345678" not in _section(body, "posted_today")
    approved = _section(body, "approved_today")
    assert section in approved and "AB12345678" in approved and variance in approved

    rows = list(csv.reader(io.StringIO(carol.get(reverse("invoice-export", args=["csv"])).content.decode("utf-8-sig"))))
    row = next(r for r in rows[1:] if r[1] == "AB12345678")
    assert row[0] == section and variance in row[11]


@pytest.fixture
def po(demo, erp, eager):
    return ordered(demo["alice"], demo["bob"])


@pytest.mark.parametrize("received, message", [
    ({"line": 0, "accepted": 3}, "已登錄發票 AB12345678：比對相符，已入帳至 ERP。"),
    (None, "已登錄發票 AB12345678：等待到貨，驗收後即自動比對。"),
    ({"line": 0, "accepted": 2, "rejected": 1, "reason": "damaged"},
     "已登錄發票 AB12345678：比對不符（差異 NT$6,720），已送"),
])
def test_entering_an_invoice_lands_on_the_queue_with_what_came_of_it(demo, po, received, message):
    if received:
        goods_receipt_record(task_id=po.pk, user=demo["alice"], lines=[received])
    carol = page_client(demo["carol"], ZH)
    answer = carol.post(reverse("invoice-new", args=[po.pk]), typed(po), follow=True)

    assert answer.redirect_chain == [(reverse("invoices"), 302)]
    assert message in text(answer.content.decode())
    assert "已登錄發票" not in text(carol.get(reverse("invoices")).content.decode())  # said once


def test_in_english_too(demo, po):
    answer = page_client(demo["carol"], EN).post(reverse("invoice-new", args=[po.pk]), typed(po), follow=True)
    assert "Invoice AB12345678 entered: it waits for the goods and is matched when they are received." in text(
        answer.content.decode())


@pytest.mark.parametrize("language, words", [
    ("zh-hant", "已登錄發票 AB12345678：比對相符，正在入帳至 ERP。"),
    ("en", "Invoice AB12345678 entered: it matched and is being posted to the ERP.")])
def test_a_matched_invoice_whose_posting_has_not_run_yet_is_not_said_posted(demo, po, language, words):
    """With a worker, the posting runs after the entry: the message she lands on must not say it is
    posted before the ERP has it."""
    goods_receipt_record(task_id=po.pk, user=demo["alice"], lines=[{"line": 0, "accepted": 3}])
    page_client(demo["carol"], ZH).post(reverse("invoice-new", args=[po.pk]), typed(po))
    invoice = SupplierInvoice.objects.get(number="AB12345678")
    SupplierInvoice.objects.filter(pk=invoice.pk).update(status=SupplierInvoice.Status.MATCHED)  # as before the worker ran
    with translation.override(language):
        assert entered_words(invoice) == words

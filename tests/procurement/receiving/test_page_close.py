"""The request page's close-short form (DESIGN §16): a manager of the department or accounts payable
closes the rest with a reason, at the version they saw; the ERP's PO is closed once, the budget the
rest would have spent is released and said so on the page, and what was accepted can still be
invoiced afterwards. A requester sees no form and is refused."""
import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from agentstate.models import Receipt, Task
from procurement.invoicing.po import purchase_order_of
from procurement.invoicing.selectors import pos_open_for_invoicing
from procurement.models import Department, Notice, PurchaseRequest
from procurement.notices.derive import notices_for_task
from procurement.models.invoicing import SupplierInvoice

from tests.procurement.receiving.support import ordered

pytestmark = pytest.mark.django_db(transaction=True)
HX = {"HTTP_HX_REQUEST": "true"}


def client_for(user, language="zh-hant", **kwargs):
    client = Client(**kwargs)
    client.force_login(user)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    return client


def received(demo, task, accepted=2):
    answer = client_for(demo["alice"]).post(reverse("task-receive", args=[task.pk]), {"accepted_0": str(accepted)})
    assert answer.status_code == 302
    return Task.objects.get(pk=task.pk)


def closes(erp) -> list:
    return [order for order in erp.purchase_orders() if order["status"] == "closed"]


def close_calls(erp) -> list:
    """The close requests the ERP simulator received (a retry under the same key would count too)."""
    return [r for r in erp.requests_seen() if r["method"] == "POST" and r["path"].endswith("/close")]


def erp_invoices(erp) -> list:
    return erp._control("GET", "/supplier-invoices")["results"]


@pytest.mark.parametrize("language, words", [
    ("zh-hant", {"title": "提前結案", "line": "螢幕 × 1 不再交貨", "reason": "其餘不再交貨的原因",
                 "released": "提前結案：未使用的預算 <span class=\"money\">NT$6,720</span> 已釋放"}),
    ("en", {"title": "Close the rest short", "line": "Monitor × 1 will not be delivered",
            "reason": "Why the rest will not be delivered",
            "released": "Closed short: unspent budget <span class=\"money\">NT$6,720</span> released"}),
])
def test_bob_closes_the_rest_with_a_reason_through_a_csrf_checked_post(demo, erp, eager, language, words):
    task = received(demo, ordered(demo))
    reserved = Department.objects.get(code="ENG").budget_reserved
    bob = client_for(demo["bob"], language, enforce_csrf_checks=True)
    page = bob.get(reverse("task-page", args=[task.pk])).content.decode()
    po = task.data["purchase_order"]["id"]
    assert words["title"] in page and words["line"] in page and words["reason"] in page and po in page
    assert "NT$6,720" in page and reverse("task-close-short", args=[task.pk]) in page
    assert f'name="version" value="{task.version}"' in page

    answer = bob.post(reverse("task-close-short", args=[task.pk]), {
        "reason": "供應商停產", "version": task.version,
        "csrfmiddlewaretoken": bob.cookies[settings.CSRF_COOKIE_NAME].value})

    assert answer.status_code == 302
    assert Task.objects.get(pk=task.pk).state == "closed"
    assert len(closes(erp)) == 1 and closes(erp)[0]["close_reason"] == "供應商停產"
    assert len(close_calls(erp)) == 1, "the ERP's PO is closed once"
    assert Receipt.objects.filter(task=task, operation="erp.purchase_order.close").count() == 1
    assert Department.objects.get(code="ENG").budget_reserved == reserved - 6720
    page = bob.get(reverse("task-page", args=[task.pk])).content.decode()
    assert words["released"] in page
    assert reverse("task-close-short", args=[task.pk]) not in page, "nothing is left to close"
    alice_page = client_for(demo["alice"], language).get(reverse("task-page", args=[task.pk])).content.decode()
    assert words["released"] in alice_page, "the requester reads what the close released"


def test_accounts_payable_closes_from_htmx_and_gets_the_actions_back(demo, erp, eager):
    task = received(demo, ordered(demo))
    answer = client_for(demo["carol"]).post(reverse("task-close-short", args=[task.pk]),
                                            {"reason": "缺貨", "version": task.version}, **HX)
    assert answer.status_code == 200 and answer["HX-Trigger"] == "task-moved"
    assert answer.content.decode().lstrip().startswith('<div id="task-actions"')
    assert Task.objects.get(pk=task.pk).state == "closed" and len(closes(erp)) == 1


def test_the_requester_sees_no_form_and_her_post_is_refused(demo, erp, eager):
    task = received(demo, ordered(demo))
    alice = client_for(demo["alice"])
    assert reverse("task-close-short", args=[task.pk]) not in alice.get(
        reverse("task-page", args=[task.pk])).content.decode()
    assert alice.post(reverse("task-close-short", args=[task.pk]),
                      {"reason": "不要了", "version": task.version}).status_code == 403
    assert client_for(demo["erin"]).post(reverse("task-close-short", args=[task.pk]),
                                         {"reason": "x", "version": task.version}).status_code == 404
    assert Task.objects.get(pk=task.pk).state == "externally_confirmed" and closes(erp) == []


@pytest.mark.parametrize("language, error", [("zh-hant", "請說明為何其餘部分要結案。"),
                                             ("en", "Say why the rest is closed.")])
def test_without_a_reason_the_field_says_why_and_nothing_is_closed(demo, erp, eager, language, error):
    task = received(demo, ordered(demo))
    answer = client_for(demo["bob"], language).post(reverse("task-close-short", args=[task.pk]),
                                                    {"reason": "  ", "version": task.version}, **HX)
    assert answer.status_code == 400
    body = answer.content.decode()
    assert f'<p class="bad" role="alert">{error}</p>' in body and body.lstrip().startswith('<div id="task-actions"')
    task.refresh_from_db()
    assert task.state == "externally_confirmed" and closes(erp) == []


def test_a_request_that_moved_since_she_looked_is_not_closed(demo, erp, eager):
    task = ordered(demo)
    seen = task.version
    task = received(demo, task, accepted=1)  # alice records a delivery meanwhile
    answer = client_for(demo["bob"]).post(reverse("task-close-short", args=[task.pk]),
                                          {"reason": "供應商停產", "version": seen})
    assert answer.status_code == 409
    assert f"您開啟後，這筆請購已有變動（第 {seen} 版 → 第 {task.version} 版）" in answer.content.decode()
    assert Task.objects.get(pk=task.pk).state == "externally_confirmed" and closes(erp) == []
    assert Department.objects.get(code="ENG").budget_reserved > 0


def test_accounts_payable_still_invoices_what_was_accepted_after_the_close(demo, erp, eager):
    task = received(demo, ordered(demo))
    assert client_for(demo["bob"]).post(reverse("task-close-short", args=[task.pk]),
                                        {"reason": "供應商停產", "version": task.version}).status_code == 302
    carol = client_for(demo["carol"])
    listed = carol.get(reverse("invoices")).content.decode()
    assert "待請款的採購單" in listed and reverse("invoice-new", args=[task.pk]) in listed
    # What is left to bill is what was accepted (2 of 3), in the list and in the form she opens.
    assert "NT$13,440" in listed and "已提前結案；原訂 <span class=\"money\">NT$20,160</span>" in listed
    form = carol.get(reverse("invoice-new", args=[task.pk])).content.decode()
    assert 'name="line_0_quantity" value="2"' in form
    po = purchase_order_of(Task.objects.get(pk=task.pk))
    answer = carol.post(reverse("invoice-new", args=[task.pk]), {
        "number": "AB12345678", "date": "2026-03-15", "seller_tax_id": po.supplier.tax_id, "subtotal": "12800",
        "tax": "640", "total": "13440", "line_0_quantity": "2", "line_0_unit_price": "6400"})
    assert answer.status_code == 302
    invoice = SupplierInvoice.objects.get()
    assert invoice.status == "posted", invoice.exceptions
    assert [i["number"] for i in erp_invoices(erp)] == ["AB12345678"]
    assert Task.objects.get(pk=task.pk).state == "closed"
    assert task.pk not in {t.pk for t in pos_open_for_invoicing()}, "all that was accepted is billed"
    assert reverse("invoice-new", args=[task.pk]) not in carol.get(reverse("invoices")).content.decode()


def test_an_invoice_past_what_was_accepted_on_a_closed_request_is_an_exception_not_a_wait(demo, erp, eager):
    task = received(demo, ordered(demo))
    client_for(demo["bob"]).post(reverse("task-close-short", args=[task.pk]),
                                 {"reason": "供應商停產", "version": task.version})
    po = purchase_order_of(Task.objects.get(pk=task.pk))
    client_for(demo["carol"]).post(reverse("invoice-new", args=[task.pk]), {
        "number": "AB12345678", "date": "2026-03-15", "seller_tax_id": po.supplier.tax_id, "subtotal": "19200",
        "tax": "960", "total": "20160", "line_0_quantity": "3", "line_0_unit_price": "6400"})
    invoice = SupplierInvoice.objects.get()
    assert invoice.status == "exception" and invoice.exceptions[0]["kind"] == "quantity_over_received"
    assert erp_invoices(erp) == [] and Task.objects.get(pk=task.pk).state == "closed"


def test_the_requester_and_the_supplier_are_told_what_will_not_come_once(demo, erp, eager, mailoutbox):
    task = received(demo, ordered(demo))
    alice = demo["alice"]
    assert client_for(demo["bob"]).post(reverse("task-close-short", args=[task.pk]),
                                        {"reason": "供應商停產。", "version": task.version}).status_code == 302
    notices_for_task(task.pk)  # a second pass (recovery, beat) tells nobody again
    number = PurchaseRequest.objects.get(task=task).number
    [notice] = Notice.objects.filter(recipient=alice, kind="closed_short")
    assert notice.text_in("zh-hant") == (f"Bob Wang 已將您的請購 {number} 提前結案：螢幕 × 1 不再交貨（供應商停產）。"
                                         "未使用的預算 NT$6,720 已釋放。")
    assert notice.text_in("en") == (f"Bob Wang closed your request {number} short: Monitor × 1 will not be delivered "
                                    "(供應商停產). Unspent budget NT$6,720 was released.")
    po = Task.objects.get(pk=task.pk).data["purchase_order"]["id"]
    supplier = purchase_order_of(Task.objects.get(pk=task.pk)).approval.scope["emails"]
    [closed] = [m for m in mailoutbox if m.to == supplier and "其餘品項" in m.subject]
    assert closed.subject == f"採購單 {po}：其餘品項不再需要"
    assert "1. 螢幕 × 1" in closed.body and "請勿再交貨" in closed.body and "原因：供應商停產。" in closed.body
    assert f"已交貨並驗收的品項請照常開立統一發票，並註明 {po}。" in closed.body and "Monitor" not in closed.body

"""A request whose PO is out, an invoice body that matches it, and the API calls the invoicing
tests make: receiving goods, entering an invoice, reading it, reading and deciding its approval."""
import pytest
from django.test import Client

from agentstate.models import Approval, Task
from procurement.purchase import services
from procurement.invoicing.po import purchase_order_of
from procurement.invoicing.services import invoice_enter
from procurement.receiving.services import goods_receipt_record
from procurement.purchase.tax import totals
from tests.procurement.receiving.support import client_for, receipts_url

URL = "/api/v1/invoices/"


def ordered(requester, approver, lines=({"description": "Monitor", "quantity": 3},), department="ENG") -> Task:
    """Submitted, approved, PO issued by the ERP (steps run eagerly)."""
    task = services.request_submit(requester=requester, department=department, justification="new desks",
                                   lines=list(lines))
    approval = Approval.objects.get(task_id=task.pk, status="pending")
    services.approval_decide(approval_id=approval.pk, user=approver, decision="approve",
                             state_version=approval.state_version, scope_hash=approval.scope_hash)
    task = Task.objects.get(pk=task.pk)
    assert task.state == "externally_confirmed", task.state
    return task


def invoice_body(task, number="AB12345678", **overrides) -> dict:
    po = purchase_order_of(task)
    subtotal, tax, total = totals(po.subtotal)
    return {"task": str(task.pk), "number": number, "date": "2026-03-15", "seller_tax_id": po.supplier.tax_id,
            "lines": [{"line": n, "quantity": line.quantity, "unit_price": str(line.unit_price)}
                      for n, line in enumerate(po.lines)],
            "subtotal": str(subtotal), "tax": str(tax), "total": str(total)} | overrides


def receive(demo, task, accepted, rejected=0, reason=""):
    line = {"line": 0, "accepted": accepted} | ({"rejected": rejected, "reason": reason} if rejected else {})
    answer = client_for(demo["alice"]).post(receipts_url(task), {"lines": [line]}, format="json")
    assert answer.status_code == 201, answer.json()


def enter(demo, task, **overrides) -> dict:
    answer = client_for(demo["carol"]).post(URL, invoice_body(task, **overrides), format="json")
    assert answer.status_code == 201, answer.json()
    return answer.json()


def read(demo, body) -> dict:
    return client_for(demo["carol"]).get(URL + body["id"] + "/").json()


def approval_of(demo, body, user="bob") -> dict:
    answer = client_for(demo[user]).get(f"/api/v1/approvals/{body['approval']}/")
    assert answer.status_code == 200, answer.json()
    return answer.json()


def decide(demo, approval, decision, user="bob", comment=""):
    return client_for(demo[user]).post(f"/api/v1/approvals/{approval['id']}/decision/", {
        "decision": decision, "state_version": approval["state_version"], "scope_hash": approval["scope_hash"],
        "comment": comment}, format="json")


@pytest.fixture
def exception(demo, erp, eager):
    """Three monitors ordered, two accepted, one rejected as damaged; the invoice bills all three:
    its pending invoice_exception approval."""
    task = ordered(demo["alice"], demo["bob"])
    goods_receipt_record(task_id=task.pk, user=demo["alice"],
                         lines=[{"line": 0, "accepted": 2, "rejected": 1, "reason": "damaged"}])
    fields = invoice_body(task)
    invoice = invoice_enter(user=demo["carol"], task_id=fields.pop("task"), fields=fields)
    assert invoice.status == "exception"
    return Approval.objects.get(task=task, status="pending")


def page_client(user, language):
    """A browser's client for `user`, reading `language`."""
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    return client

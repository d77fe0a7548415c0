"""A matched invoice is posted to the ERP exactly once, through the receipts protocol, even when
the simulator drops its answer after committing (DESIGN §6, §16)."""
import pytest

from agentstate.errors import Conflict
from agentstate.models import Receipt
from procurement.infra import erp as erp_client
from procurement.models.invoicing import SupplierInvoice
from procurement.invoicing.services import invoice_enter, invoice_post
from tests.procurement.invoicing.support import invoice_body, ordered

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def matched(demo, erp, eager):
    task = ordered(demo["alice"], demo["bob"])
    fields = invoice_body(task)
    invoice = invoice_enter(user=demo["carol"], task_id=fields.pop("task"), fields=fields)
    SupplierInvoice.objects.filter(pk=invoice.pk).update(status=SupplierInvoice.Status.MATCHED)  # the match's say
    return invoice


def erp_invoices(erp) -> list[dict]:
    return erp_client.ErpClient(erp.url, 2).list_supplier_invoices()


def test_a_dropped_answer_after_commit_is_found_by_key_and_posted_once(erp, matched):
    erp.fault(mode="drop", path="/supplier-invoices", method="POST", times=1)

    posted = invoice_post(invoice_id=matched.pk)
    again = invoice_post(invoice_id=matched.pk)

    assert posted.status == again.status == SupplierInvoice.Status.POSTED
    [stored] = erp_invoices(erp)
    assert stored["number"] == "AB12345678" and stored["external_ref"] == str(matched.pk)
    assert stored["purchase_order_id"] == matched.task.data["purchase_order"]["id"]
    assert stored["lines"][0]["description"] == "Monitor"
    receipt = Receipt.objects.get(operation=erp_client.POST_SUPPLIER_INVOICE)
    assert receipt.status == "confirmed" and receipt.external_id == stored["id"] and receipt.attempts == 1


def test_an_unmatched_invoice_is_not_posted(erp, demo, eager):
    task = ordered(demo["alice"], demo["bob"])
    fields = invoice_body(task)
    invoice = invoice_enter(user=demo["carol"], task_id=fields.pop("task"), fields=fields)

    with pytest.raises(Conflict):
        invoice_post(invoice_id=invoice.pk)
    assert erp_invoices(erp) == []

"""What the supplier's purchase order mail carries beside its lines (DESIGN §16): the buyer and its
統一編號, the supplier's, the ship-to address, the need-by day, the spec, the contact and the payment
terms, the same facts as the PO's PDF, and that PDF as its attachment."""
from django.conf import settings
from django.utils import translation

from procurement.invoicing.po import purchase_order_of
from procurement.invoicing.po_pdf import in_language, need_by, po_filename, po_pdf, spec

SUPPLIER_LANGUAGE = "zh-hant"  # Taiwan suppliers; Supplier has no language of its own yet


def supplier_facts(task, scope: dict) -> dict:
    """The mail's company facts, in the supplier's language."""
    with translation.override(SUPPLIER_LANGUAGE):
        contact = in_language(settings.COMPANY_CONTACT, settings.COMPANY_CONTACT_EN)
        terms = in_language(settings.PAYMENT_TERMS, settings.PAYMENT_TERMS_EN)
    return {"company": settings.COMPANY_NAME, "company_tax_id": settings.COMPANY_TAX_ID, "contact": contact,
            "supplier_tax_id": scope["supplier"].get("tax_id") or "", "ship_to": settings.COMPANY_SHIP_TO,
            "need_by": need_by(task), "spec": spec(task), "payment_terms": terms}


def supplier_po_files(note) -> list[tuple[str, bytes, str]]:
    """The PO's PDF, made when the mail is sent (infra.outbox.ATTACHMENTS), in the supplier's language."""
    po = purchase_order_of(note.task) if note.task_id else None
    if po is None:
        return []
    with translation.override(SUPPLIER_LANGUAGE):
        content = po_pdf(po, getattr(note.task, "purchase_request", None))
    return [(po_filename(po), content, "application/pdf")]

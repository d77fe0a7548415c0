"""Accounts payable's pages: the POs waiting for invoices and the invoices entered, and the form
that enters one (typed, or filled in from the e-invoice's QR code by htmx)."""
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods
from django.views.decorators.vary import vary_on_headers

from agentstate.errors import Conflict, DomainError, NotFound, NotPermitted

from procurement.purchase.requests import request_now, stand_ins_for, with_request_reads
from procurement.workflow import CLOSED
from procurement.invoicing.einvoice_qr import decode_left, read_photo
from procurement.selectors.tasks import task_for
from procurement.pages.invoice_forms import InvoiceForm
from procurement.invoicing.po import purchase_order_of
from procurement.invoicing.po_pdf import po_pdf
from procurement.invoicing.selectors import invoices_visible_to, is_accounts_payable, po_to_invoice, pos_open_for_invoicing
from procurement.invoicing.matching import quantities_to_bill, total_to_bill
from procurement.invoicing.services import InvoiceInvalid, invoice_enter
from procurement.invoicing.variance_words import variance_words
from procurement.invoicing.queue import SECTIONS, ap_queue, entered_words
from procurement.pages import invoice_queue
from procurement.words import refusal, refusal_errors

LIST, FORM = "procurement/invoices.html", "procurement/invoice_new.html"


def _refused(request, message: str, status: int):
    return render(request, "procurement/invoice_refused.html", {"message": message}, status=status)


@login_required
def invoices_page(request):
    if not is_accounts_payable(request.user):
        return _refused(request, _("Only accounts payable enters supplier invoices."), 403)
    tasks = list(with_request_reads(pos_open_for_invoicing())[:50])  # the same queries however many
    stand_ins = stand_ins_for(tasks)
    # A PO closed short is billed for what was accepted, not its whole total.
    open_pos = [(request_now(task, stand_ins), total_to_bill(purchase_order_of(task)) if task.state == CLOSED else None)
                for task in tasks]
    invoices = list(invoices_visible_to(request.user)[:50])
    for invoice in invoices:  # an exception in plain words, in her language
        invoice.variance_lines = [variance_words(v) for v in invoice.exceptions]
    queue = ap_queue(invoices_visible_to(request.user))
    sections = [(key, label, queue[key]) for key, label in SECTIONS.items()]
    return render(request, LIST, {"open_pos": open_pos, "invoices": invoices, "sections": sections})


@login_required
@require_http_methods(["GET"])
def invoices_export(request, fmt):
    """The queue's three sections as one CSV or XLSX sheet, for accounts payable only."""
    if not is_accounts_payable(request.user):
        return _refused(request, _("Only accounts payable enters supplier invoices."), 403)
    if fmt not in ("csv", "xlsx"):
        raise Http404("No such format.")
    rows = invoice_queue.queue_rows(ap_queue(invoices_visible_to(request.user)))
    filename = f"invoices-{timezone.localdate():%Y%m%d}"
    return (invoice_queue.export_csv if fmt == "csv" else invoice_queue.export_xlsx)(rows, filename)


@login_required
@require_http_methods(["GET", "POST"])
@vary_on_headers("HX-Request")
def invoice_new(request, task_id):
    try:
        po = po_to_invoice(request.user, task_id)
    except NotFound:
        raise Http404
    except (NotPermitted, Conflict) as refused:
        return _refused(request, refusal(refused), refused.http_status)
    if request.method == "GET":
        return _form(request, InvoiceForm(po=po, quantities=quantities_to_bill(po)))
    if "fill" in request.POST:
        return _filled(request, po)
    form = InvoiceForm(request.POST, request.FILES, po=po)
    if not form.is_valid():
        return _form(request, form, 400)
    try:
        invoice = invoice_enter(user=request.user, task_id=po.task.pk, fields=form.fields_for_entry())
    except InvoiceInvalid as refused:
        form.add_entry_errors(refusal_errors(refused))
        return _form(request, form, 400)
    except DomainError as refused:
        form.add_error(None, refusal(refused))
        return _form(request, form, refused.http_status)
    messages.success(request, entered_words(invoice))
    response = redirect("invoices")
    if request.htmx:
        # Not a 302: the browser's XHR would follow it and htmx swap the whole invoices page into the
        # form (a page inside the page). A 204 swaps nothing, and HX-Redirect loads the list.
        location = response["Location"]
        response = HttpResponse(status=204)
        response["HX-Redirect"] = location
    return response


def _filled(request, po):
    """The QR text (or a photo of it) read into the header fields; nothing is written."""
    form = InvoiceForm(request.POST, request.FILES, po=po)
    if not form.is_valid():
        return _form(request, form, 400)
    data = request.POST.copy()
    try:
        text = form.cleaned_data["qr"] or (read_photo(form.cleaned_data["photo"].read())
                                           if form.cleaned_data["photo"] else "")
        if not text:
            form.add_error("qr", _("Paste the QR code's text, or choose a photo of it."))
            return _form(request, form, 400)
        code = decode_left(text)
    except ValidationError as refused:
        for field, messages in refused.message_dict.items():
            for message in messages:
                form.add_error(field if field in form.fields else "qr", message)
        return _form(request, form, 400)
    data.update({"qr": text, "number": code.number, "date": code.date.isoformat(), "seller_tax_id": code.seller_tax_id,
                 "subtotal": f"{code.subtotal:.0f}", "tax": f"{code.tax:.0f}", "total": f"{code.total:.0f}"})
    return _form(request, InvoiceForm(data, po=po), filled=True)


def _form(request, form, status=200, filled=False):
    template = f"{FORM}#invoice-form" if request.htmx else FORM
    if form.is_bound and not filled:
        form.is_valid()  # show the errors the page was answered with
    return render(request, template, {"form": form, "po": form.po, "now": request_now(form.po.task),
                                      "filled": filled}, status=status)


@login_required
def purchase_order_pdf(request, task_id):
    """The 採購單 as a PDF in the reader's language: for whoever may see the request, and accounts payable."""
    try:
        task = po_to_invoice(request.user, task_id).task if is_accounts_payable(request.user) else task_for(
            request.user, task_id)
    except NotFound:
        raise Http404
    except Conflict as refused:
        return _refused(request, refusal(refused), refused.http_status)
    po = purchase_order_of(task)
    if po is None:
        return _refused(request, _("This request has no purchase order yet."), 409)
    response = HttpResponse(po_pdf(po, getattr(task, "purchase_request", None)), content_type="application/pdf")
    response["Content-Disposition"] = f'inline; filename="{po.number}.pdf"'
    return response

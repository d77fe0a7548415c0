"""Supplier invoices (進項發票) entered against a purchase order (DESIGN §16)."""
import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from procurement.models.numbers import validate_invoice_number
from procurement.models.taxid import validate_tax_id


def _money(**kwargs):
    return models.DecimalField(max_digits=14, decimal_places=2, **kwargs)


class SupplierInvoice(models.Model):
    class Status(models.TextChoices):
        WAITING_RECEIPT = "waiting_receipt", pgettext_lazy("invoice status", "waiting for the goods")
        MATCHED = "matched", pgettext_lazy("invoice status", "matched")
        EXCEPTION = "exception", pgettext_lazy("invoice status", "exception")
        POSTED = "posted", pgettext_lazy("invoice status", "posted")
        REJECTED = "rejected", pgettext_lazy("invoice status", "rejected")

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False, verbose_name=_("ID"))
    task = models.ForeignKey("agentstate.Task", on_delete=models.PROTECT, related_name="supplier_invoices",
                             verbose_name=_("task"))
    supplier = models.ForeignKey("procurement.Supplier", on_delete=models.PROTECT, related_name="invoices",
                                 verbose_name=_("supplier"))
    number = models.CharField(max_length=10, validators=[validate_invoice_number], verbose_name=_("invoice number"))
    date = models.DateField(verbose_name=_("invoice date"))
    seller_tax_id = models.CharField(max_length=8, validators=[validate_tax_id],
                                     verbose_name=_("seller tax ID (統一編號)"))
    buyer_tax_id = models.CharField(max_length=8, blank=True, verbose_name=_("buyer tax ID (統一編號)"))
    subtotal = _money(verbose_name=_("untaxed amount (未稅)"))
    tax = _money(verbose_name=_("business tax (營業稅)"))
    total = _money(verbose_name=_("total (含稅)"))
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.WAITING_RECEIPT,
                              verbose_name=_("status"))
    exceptions = models.JSONField(default=list, blank=True, verbose_name=_("exceptions"))
    qr_text = models.TextField(blank=True, help_text=_("The e-invoice's left QR code, when she entered it from that."),
                               verbose_name=_("QR text"))
    entered_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                                   related_name="entered_invoices", verbose_name=_("entered by"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("entered at"))

    class Meta:
        verbose_name = _("supplier invoice")
        verbose_name_plural = _("supplier invoices")
        ordering = ["-created_at"]
        constraints = [
            # The same 統一發票 from the same seller is one invoice, whatever PO it is entered against.
            models.UniqueConstraint(fields=["seller_tax_id", "number"], name="invoice_unique_seller_number"),
            models.CheckConstraint(condition=Q(subtotal__gte=0) & Q(tax__gte=0) & Q(total__gte=0),
                                   name="invoice_amounts_not_negative"),
        ]

    def __str__(self):
        return f"{self.number} ({self.seller_tax_id})"


class SupplierInvoiceLine(models.Model):
    invoice = models.ForeignKey(SupplierInvoice, on_delete=models.CASCADE, related_name="lines",
                                verbose_name=_("invoice"))
    line = models.PositiveIntegerField(help_text=_("The PO line it bills, from 0."), verbose_name=_("PO line"))
    quantity = models.PositiveIntegerField(verbose_name=_("quantity"))
    unit_price = _money(verbose_name=_("unit price"))
    amount = _money(verbose_name=_("amount"))

    class Meta:
        verbose_name = _("invoice line")
        verbose_name_plural = _("invoice lines")
        ordering = ["invoice", "line"]
        constraints = [models.UniqueConstraint(fields=["invoice", "line"], name="invoice_line_once")]

    def __str__(self):
        return f"{self.invoice} line {self.line}"

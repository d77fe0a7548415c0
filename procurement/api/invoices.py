"""`/api/v1/invoices/` (DESIGN §16): supplier invoices (進項發票) entered by accounts payable.

The shapes are parsed here; what the fields mean (format, checksum, date, amounts, the PO's
supplier and lines) is checked by procurement.invoicing, for the API and the page alike."""
from django.urls import path
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response

from procurement.invoicing import selectors as invoicing
from procurement.models.invoicing import SupplierInvoice, SupplierInvoiceLine
from procurement.invoicing.exceptions import invoice_approval
from procurement.invoicing.services import invoice_enter, posting_receipt
from procurement.api.serializers import StrictIntegerField, money
from procurement.api.views import ApiView

TEXT = {"required": False, "allow_blank": True}


class InvoiceLineInputSerializer(serializers.Serializer):
    line = StrictIntegerField(min_value=0, help_text="The PO line it bills, from 0.")
    quantity = StrictIntegerField(min_value=1, max_value=10_000)
    unit_price = serializers.CharField(max_length=20, help_text='Untaxed, a decimal string, e.g. "6400.00".')


class InvoiceCreateSerializer(serializers.Serializer):
    task = serializers.UUIDField(help_text="The purchase task whose PO the invoice bills.")
    number = serializers.CharField(max_length=20, help_text="Two capital letters and eight digits.", **TEXT)
    date = serializers.CharField(max_length=20, help_text="YYYY-MM-DD.", **TEXT)
    seller_tax_id = serializers.CharField(max_length=20, help_text="The seller's 統一編號.", **TEXT)
    subtotal = serializers.CharField(max_length=20, help_text="未稅.", **TEXT)
    tax = serializers.CharField(max_length=20, help_text="營業稅.", **TEXT)
    total = serializers.CharField(max_length=20, help_text="含稅.", **TEXT)
    qr = serializers.CharField(max_length=2000, help_text="The text of the e-invoice's left QR code: fills in the "
                                                          "number, date, 統一編號 and amounts.", **TEXT)
    lines = InvoiceLineInputSerializer(many=True, allow_empty=False, max_length=100)


class InvoiceLineSerializer(serializers.ModelSerializer):
    unit_price = serializers.SerializerMethodField()
    amount = serializers.SerializerMethodField()

    class Meta:
        model = SupplierInvoiceLine
        fields = ["line", "quantity", "unit_price", "amount"]

    def get_unit_price(self, line) -> str:
        return money(line.unit_price)

    def get_amount(self, line) -> str:
        return money(line.amount)


class InvoiceSerializer(serializers.ModelSerializer):
    supplier = serializers.CharField(source="supplier.name")
    entered_by = serializers.CharField(source="entered_by.username")
    lines = InvoiceLineSerializer(many=True)
    status = serializers.CharField(help_text="waiting_receipt, matched, exception, posted or rejected.")
    subtotal = serializers.SerializerMethodField()
    tax = serializers.SerializerMethodField()
    total = serializers.SerializerMethodField()
    approval = serializers.SerializerMethodField(help_text="The invoice_exception approval, when one is open.")
    erp_status = serializers.SerializerMethodField(help_text="none, planned, sent, confirmed, failed or unknown.")

    class Meta:
        model = SupplierInvoice
        fields = ["id", "task", "number", "date", "supplier", "seller_tax_id", "buyer_tax_id", "lines", "subtotal",
                  "tax", "total", "status", "exceptions", "approval", "erp_status", "entered_by", "created_at"]

    def get_subtotal(self, invoice) -> str:
        return money(invoice.subtotal)

    def get_tax(self, invoice) -> str:
        return money(invoice.tax)

    def get_total(self, invoice) -> str:
        return money(invoice.total)

    def get_approval(self, invoice) -> str | None:
        approval = invoice_approval(invoice) if invoice.exceptions else None
        return str(approval.pk) if approval else None

    def get_erp_status(self, invoice) -> str:
        receipt = posting_receipt(invoice)
        return receipt.status if receipt else "none"


class InvoiceListView(ApiView):
    serializer_class = InvoiceSerializer

    def get_queryset(self):
        return invoicing.invoices_visible_to(self.request.user)

    @extend_schema(responses=InvoiceSerializer(many=True))
    def get(self, request):
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(InvoiceSerializer(page, many=True).data)

    @extend_schema(request=InvoiceCreateSerializer, responses={201: InvoiceSerializer})
    def post(self, request):
        fields = self.parsed(InvoiceCreateSerializer, request.data)
        fields["lines"] = [dict(line) for line in fields["lines"]]
        invoice = invoice_enter(user=request.user, task_id=str(fields.pop("task")), fields=fields)
        return Response(InvoiceSerializer(invoicing.invoice_for(request.user, invoice.pk)).data,
                        status=status.HTTP_201_CREATED)


class InvoiceDetailView(ApiView):
    serializer_class = InvoiceSerializer

    @extend_schema(responses=InvoiceSerializer)
    def get(self, request, pk):
        return Response(InvoiceSerializer(invoicing.invoice_for(request.user, pk)).data)


urlpatterns = [
    path("invoices/", InvoiceListView.as_view(), name="invoice-list"),
    path("invoices/<str:pk>/", InvoiceDetailView.as_view(), name="invoice-detail"),
]

"""The invoice form on the page: text as she typed it, per PO line a quantity and a unit price.
What the fields mean is checked by `entry.invoice_entry`, for the page and the API alike."""
from django import forms
from django.utils.translation import gettext_lazy as _

from procurement.invoicing.po import PurchaseOrder

HEADER = ("number", "date", "seller_tax_id", "subtotal", "tax", "total")
MAX_PHOTO_BYTES = 8 * 1024 * 1024


def _text(label, **attrs):
    return forms.CharField(label=label, required=False, max_length=20, widget=forms.TextInput(attrs=attrs))


class InvoiceForm(forms.Form):
    qr = forms.CharField(label=_("Text of the e-invoice's left QR code"), required=False, max_length=2000,
                         widget=forms.Textarea(attrs={"rows": 3, "autocomplete": "off", "spellcheck": "false"}),
                         help_text=_("Paste it and choose “Fill in from the QR code”: the number, date, 統一編號 and "
                                     "amounts fill in."))
    photo = forms.FileField(label=_("Or a photo of the QR code"), required=False,
                            widget=forms.ClearableFileInput(attrs={"accept": "image/*", "capture": "environment"}))
    number = _text(_("Invoice number"), placeholder="AB12345678", autocapitalize="characters")
    date = forms.CharField(label=_("Invoice date"), required=False, max_length=20,
                           widget=forms.DateInput(attrs={"type": "date"}))
    seller_tax_id = _text(_("Seller's tax ID (統一編號)"), inputmode="numeric")
    subtotal = _text(_("Untaxed (未稅), NT$"), inputmode="decimal")
    tax = _text(_("Business tax (營業稅), NT$"), inputmode="decimal")
    total = _text(_("Total incl. tax, NT$"), inputmode="decimal")

    def __init__(self, *args, po: PurchaseOrder, quantities: list[int] | None = None, **kwargs):
        """`quantities`: what each line's quantity starts at (default: as ordered)."""
        super().__init__(*args, **kwargs)
        self.po = po
        for n, line in enumerate(po.lines):
            self.fields[f"line_{n}_quantity"] = forms.IntegerField(
                label=_("Quantity"), required=False, min_value=0, max_value=10_000,
                initial=line.quantity if quantities is None else quantities[n])
            self.fields[f"line_{n}_unit_price"] = _text(_("Unit price (未稅), NT$"), inputmode="decimal")
            self.fields[f"line_{n}_unit_price"].initial = f"{line.unit_price:.0f}" if line.unit_price == int(
                line.unit_price) else str(line.unit_price)

    def clean_photo(self):
        photo = self.cleaned_data.get("photo")
        if photo and photo.size > MAX_PHOTO_BYTES:
            raise forms.ValidationError(_("The photo is larger than 8 MB; a closer, smaller one reads better."))
        return photo

    def line_rows(self):
        """(PO line, its quantity field, its unit-price field) for the template."""
        return [(line, self[f"line_{n}_quantity"], self[f"line_{n}_unit_price"])
                for n, line in enumerate(self.po.lines)]

    def fields_for_entry(self) -> dict:
        """The service's input: header text, the QR text, and the lines she gave a quantity."""
        data = self.cleaned_data
        lines = [{"line": n, "quantity": data.get(f"line_{n}_quantity"),
                  "unit_price": data.get(f"line_{n}_unit_price")}
                 for n in range(len(self.po.lines)) if data.get(f"line_{n}_quantity")]
        return {**{name: data.get(name) or "" for name in HEADER}, "qr": data.get("qr") or "", "lines": lines}

    def add_entry_errors(self, errors: dict):
        """The service's field errors on the fields she sees ("lines.0.quantity" is line 1's quantity)."""
        for field, messages in errors.items():
            name = field
            if field.startswith("lines."):
                parts = field.split(".")
                row = self.fields_for_entry()["lines"][int(parts[1])] if parts[1].isdigit() else None
                attribute = "quantity" if parts[-1] in ("line", "quantity") else parts[-1]
                name = f"line_{row['line']}_{attribute}" if row else None
            elif field == "buyer_tax_id":
                name = "qr"
            for message in messages:
                self.add_error(name if name in self.fields else None, message)

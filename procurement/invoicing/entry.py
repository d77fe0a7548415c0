"""An invoice as accounts payable typed it (or pasted its QR text), checked field by field
against the PO. Every problem is a field error in the reader's language; nothing is written here.

What is refused outright (DESIGN §16): the number's format, a 統一編號 failing today's checksum
or not the PO supplier's, an impossible date, lines the PO does not have, amounts that do not
add up (未稅 + 營業稅 ≠ 含稅), and an e-invoice whose buyer is not COMPANY_TAX_ID. What is a
matter for the three-way match, not a refusal: the quantities against what arrived, the prices
against the PO, the tax against 5%, the header against its lines."""
import datetime
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.translation import gettext as _

from procurement.words.money import ntd
from procurement.invoicing.einvoice_qr import decode_left
from procurement.models.numbers import validate_invoice_number
from procurement.invoicing.match import BilledLine
from procurement.invoicing.po import PurchaseOrder
from procurement.purchase.tax import cents
from procurement.models.taxid import validate_tax_id

MAX_AMOUNT = Decimal("999999999999.99")
MAX_QUANTITY = 10_000


@dataclass(frozen=True)
class Entry:
    number: str
    date: datetime.date
    seller_tax_id: str
    buyer_tax_id: str
    lines: tuple[BilledLine, ...]
    subtotal: Decimal
    tax: Decimal
    total: Decimal
    qr_text: str


def _messages(error: ValidationError) -> list[str]:
    return [str(message) for message in error.messages]


def _amount(value, errors: dict, field: str) -> Decimal | None:
    try:
        amount = Decimal(str(value).replace(",", "").strip())
    except (InvalidOperation, ValueError):
        amount = None
    if amount is None or not amount.is_finite() or amount < 0 or amount > MAX_AMOUNT or amount != cents(amount):
        errors[field] = [_("Enter an amount in NT$ of at least 0, to the cent at most, such as 19200.")]
        return None
    return amount


def _date(value, errors: dict) -> datetime.date | None:
    if isinstance(value, datetime.date):
        when = value
    else:
        try:
            when = datetime.date.fromisoformat(str(value).strip())
        except ValueError:
            errors["date"] = [_("Enter a real date, such as 2026-03-15.")]
            return None
    if when > timezone.localdate():
        errors["date"] = [_("An invoice date cannot be after today.")]
        return None
    return when


def _lines(po: PurchaseOrder, raw, errors: dict) -> list[BilledLine]:
    if not isinstance(raw, list) or not raw:
        errors["lines"] = [_("Enter at least one line of the purchase order this invoice bills.")]
        return []
    lines, seen = [], set()
    for n, row in enumerate(raw):
        row = row if isinstance(row, dict) else {}
        index = row.get("line")
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(po.lines):
            errors[f"lines.{n}.line"] = [_("The purchase order has no such line.")]
            continue
        if index in seen:
            errors[f"lines.{n}.line"] = [_("This purchase-order line is entered twice.")]
            continue
        seen.add(index)
        quantity = row.get("quantity")
        if not isinstance(quantity, int) or isinstance(quantity, bool) or not 1 <= quantity <= MAX_QUANTITY:
            errors[f"lines.{n}.quantity"] = [_("Enter a whole number from 1 to %(max)s.") % {"max": MAX_QUANTITY}]
            continue
        price = _amount(row.get("unit_price"), errors, f"lines.{n}.unit_price")
        if price is not None:
            lines.append(BilledLine(index, quantity, price))
    return lines


def _from_qr(text: str, fields: dict, errors: dict) -> dict:
    """The header fields the QR text gives, over those typed; its errors as field errors."""
    try:
        code = decode_left(text)
    except ValidationError as refused:
        errors.update({field: _messages(ValidationError(messages)) for field, messages in refused.error_dict.items()})
        return fields
    return {**fields, "number": code.number, "date": code.date, "seller_tax_id": code.seller_tax_id,
            "buyer_tax_id": code.buyer_tax_id, "subtotal": code.subtotal, "tax": code.tax, "total": code.total}


def invoice_entry(po: PurchaseOrder, fields: dict) -> Entry:
    """The checked entry, or ValidationError({field: [messages]}) naming every problem at once."""
    errors: dict[str, list[str]] = {}
    qr_text = str(fields.get("qr") or "").strip()
    if qr_text:
        fields = _from_qr(qr_text, fields, errors)
    number = str(fields.get("number") or "").strip()
    try:
        validate_invoice_number(number)
    except ValidationError as refused:
        errors.setdefault("number", _messages(refused))
    seller = str(fields.get("seller_tax_id") or "").strip()
    try:
        validate_tax_id(seller)
        if seller != po.supplier.tax_id:
            errors["seller_tax_id"] = [_("%(value)s is not the tax ID (統一編號) of this purchase order's supplier, "
                                         "%(supplier)s (%(tax_id)s).") % {"value": seller, "supplier": po.supplier.name,
                                                                          "tax_id": po.supplier.tax_id}]
    except ValidationError as refused:
        errors.setdefault("seller_tax_id", _messages(refused))
    when = _date(fields.get("date"), errors) if "date" not in errors else None
    lines = _lines(po, fields.get("lines"), errors)
    amounts = {name: _amount(fields.get(name, ""), errors, name) for name in ("subtotal", "tax", "total")
               if name not in errors}
    subtotal, tax, total = (amounts.get(name) for name in ("subtotal", "tax", "total"))
    if None not in (subtotal, tax, total) and subtotal + tax != total:
        errors["total"] = [_("未稅 %(subtotal)s plus 營業稅 %(tax)s is %(sum)s, not the 含稅 %(total)s entered.") % {
            "subtotal": ntd(subtotal), "tax": ntd(tax), "sum": ntd(subtotal + tax), "total": ntd(total)}]
    buyer = str(fields.get("buyer_tax_id") or "")
    if buyer and buyer != settings.COMPANY_TAX_ID:
        errors.setdefault("qr", []).append(
            _("This e-invoice was issued to the tax ID (統一編號) %(value)s, not to ours, %(ours)s.")
            % {"value": buyer, "ours": settings.COMPANY_TAX_ID})
    if errors:
        raise ValidationError(errors)
    return Entry(number=number, date=when, seller_tax_id=seller, buyer_tax_id=buyer,
                 lines=tuple(lines), subtotal=subtotal, tax=tax, total=total, qr_text=qr_text)

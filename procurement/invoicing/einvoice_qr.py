"""The left QR code of a 電子發票證明聯, read from its text or from a photo of it.

Layout of the first 77 characters, per 財政部財政資訊中心「電子發票證明聯一維及二維條碼規格說明」
(version 1.8, 2018), 貳、二維條碼規格, left code:

| chars | field |
|---|---|
| 1-10  | invoice number (字軌 two letters + eight digits) |
| 11-17 | date, ROC calendar: 3-digit year, month, day (1150315 = 2026-03-15) |
| 18-21 | random code (隨機碼), 4 digits |
| 22-29 | sales amount (銷售額, 未稅), hexadecimal, zero-padded to 8 |
| 30-37 | total amount (總計額, 含稅), hexadecimal, zero-padded to 8 |
| 38-45 | buyer 統一編號 (00000000 when the buyer gave none) |
| 46-53 | seller 統一編號 |
| 54-77 | encrypted check code (加密驗證資訊), 24 characters, Base64 |

Then, after a colon, the issuer's own area and the item lines (`:**********:n:m:encoding:...`),
which the invoice form does not need. The check code cannot be verified without the seller's AES
key, so it is kept, not checked."""
import datetime
import io
from dataclasses import dataclass
from decimal import Decimal

import zxingcpp
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _
from PIL import Image, UnidentifiedImageError

from procurement.models.numbers import INVOICE_NUMBER
from procurement.models.taxid import is_valid_tax_id

LEFT_LENGTH = 77
HEX = frozenset("0123456789abcdefABCDEF")
NO_BUYER = "00000000"
MAX_PHOTO_PIXELS = 40_000_000  # a phone photo is ~12 MP; far beyond that is not a photo of a receipt


@dataclass(frozen=True)
class LeftCode:
    number: str
    date: datetime.date
    random_code: str
    subtotal: Decimal  # 未稅
    total: Decimal  # 含稅
    buyer_tax_id: str  # "" when the buyer gave none
    seller_tax_id: str
    check_code: str

    @property
    def tax(self) -> Decimal:
        return self.total - self.subtotal


def roc_date(text: str) -> datetime.date | None:
    """1150315 -> 2026-03-15; None when it is not a calendar date."""
    if not (len(text) == 7 and text.isascii() and text.isdigit()):
        return None
    try:
        return datetime.date(int(text[:3]) + 1911, int(text[3:5]), int(text[5:7]))
    except ValueError:
        return None


def _hex_amount(text: str) -> Decimal | None:
    return Decimal(int(text, 16)) if len(text) == 8 and set(text) <= HEX else None


def decode_left(text: str) -> LeftCode:
    """The fields of the left code; ValidationError keyed by field when a part is not what the layout says."""
    text = (text or "").strip()
    if len(text) < LEFT_LENGTH or not text[:LEFT_LENGTH].isascii():
        raise ValidationError({"qr": ValidationError(
            _("This is not the text of an e-invoice's left QR code: it starts with 77 characters (number, date, "
              "random code, amounts, tax IDs, check code)."), code="qr_layout")})
    number, date_text, random_code = text[0:10], text[10:17], text[17:21]
    subtotal, total = _hex_amount(text[21:29]), _hex_amount(text[29:37])
    buyer, seller, check_code = text[37:45], text[45:53], text[53:77]
    errors = {}
    if not INVOICE_NUMBER.fullmatch(number):
        errors["number"] = ValidationError(_("The QR code's invoice number %(value)s is not two capital letters and "
                                             "eight digits."), code="invoice_number", params={"value": number})
    date = roc_date(date_text)
    if date is None:
        errors["date"] = ValidationError(_("The QR code's date %(value)s is not a date (ROC year, month, day)."),
                                         code="date", params={"value": date_text})
    if not random_code.isdigit():
        errors["qr"] = ValidationError(_("The QR code's random code is not four digits."), code="qr_layout")
    if subtotal is None or total is None:
        errors["total"] = ValidationError(_("The QR code's amounts are not eight hexadecimal digits each."),
                                          code="qr_amount")
    if buyer != NO_BUYER and not is_valid_tax_id(buyer):
        errors["buyer_tax_id"] = ValidationError(_("The QR code's buyer tax ID (統一編號) %(value)s is not valid."),
                                                 code="checksum", params={"value": buyer})
    if not is_valid_tax_id(seller):
        errors["seller_tax_id"] = ValidationError(_("The QR code's seller tax ID (統一編號) %(value)s is not valid."),
                                                  code="checksum", params={"value": seller})
    if errors:
        raise ValidationError(errors)
    return LeftCode(number=number, date=date, random_code=random_code, subtotal=subtotal, total=total,
                    buyer_tax_id="" if buyer == NO_BUYER else buyer, seller_tax_id=seller, check_code=check_code)


def read_photo(data: bytes) -> str:
    """The text of the left QR code in a photo (JPEG, PNG...), read with zxing-cpp.

    A receipt has two codes side by side; the right one starts with "**" and is skipped."""
    unreadable = ValidationError({"photo": ValidationError(
        _("No e-invoice QR code could be read in this photo. Try a sharper, closer photo, or paste the text."),
        code="qr_unreadable")})
    try:
        image = Image.open(io.BytesIO(data))
        if image.width * image.height > MAX_PHOTO_PIXELS:
            raise unreadable
        image = image.convert("L")
    except (UnidentifiedImageError, OSError, Image.DecompressionBombError):
        raise unreadable
    for found in zxingcpp.read_barcodes(image, formats=zxingcpp.BarcodeFormat.QRCode):
        if found.text and not found.text.startswith("**") and len(found.text) >= LEFT_LENGTH:
            return found.text
    raise unreadable

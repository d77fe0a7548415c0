"""The e-invoice's left QR code, built to the Ministry of Finance layout and read back: from its
text, and from a photo of it (zxing-cpp)."""
import datetime
import io
from decimal import Decimal

import pytest
import segno
from django.core.exceptions import ValidationError
from PIL import Image

from procurement.invoicing.einvoice_qr import decode_left, read_photo

CHECK_CODE = "ydXZt4LAN1UHN/j1juVcRA=="  # 24 characters, as the seller's AES step leaves them


def left_text(number="AB12345678", roc_date="1150315", random_code="4821", subtotal=19200, total=20160,
              buyer="24549210", seller="62140097", tail=":**********:1:1:1:螢幕:3:6400"):
    return f"{number}{roc_date}{random_code}{subtotal:08x}{total:08x}{buyer}{seller}{CHECK_CODE}{tail}"


def test_a_sample_built_to_the_layout_decodes_field_by_field():
    text = left_text()
    assert len(text.split(":")[0]) == 77

    code = decode_left(text)

    assert code.number == "AB12345678"
    assert code.date == datetime.date(2026, 3, 15)  # ROC 115 is 2026
    assert code.random_code == "4821"
    assert (code.subtotal, code.tax, code.total) == (Decimal(19200), Decimal(960), Decimal(20160))
    assert code.buyer_tax_id == "24549210"
    assert code.seller_tax_id == "62140097"  # valid only under the 2023 rule
    assert code.check_code == CHECK_CODE


def test_amounts_are_hexadecimal_and_upper_case_hex_reads_too():
    text = left_text(subtotal=0x1F4A0, total=0x20D00).replace("0001f4a0", "0001F4A0")
    code = decode_left(text)
    assert (code.subtotal, code.total) == (Decimal(128160), Decimal(134400))


def test_a_buyer_of_zeros_means_none_given():
    assert decode_left(left_text(buyer="00000000")).buyer_tax_id == ""


@pytest.mark.parametrize("changes, field", [
    ({"number": "ab12345678"}, "number"),
    ({"roc_date": "1150230"}, "date"),  # 30 February
    ({"seller": "62140098"}, "seller_tax_id"),
    ({"buyer": "12345678"}, "buyer_tax_id"),
])
def test_a_part_that_breaks_the_layout_is_a_field_error(changes, field):
    with pytest.raises(ValidationError) as refused:
        decode_left(left_text(**changes))
    assert list(refused.value.message_dict) == [field]


def test_a_short_or_foreign_text_is_refused_as_not_a_left_code():
    for text in ("AB12345678", "**螢幕:3:6400", ""):
        with pytest.raises(ValidationError) as refused:
            decode_left(text)
        assert list(refused.value.message_dict) == ["qr"]


def photo_of(*texts) -> bytes:
    """A PNG with the codes side by side, as printed on a receipt."""
    images = []
    for text in texts:
        buffer = io.BytesIO()
        segno.make_qr(text, error="m").save(buffer, kind="png", scale=6, border=4)
        images.append(Image.open(io.BytesIO(buffer.getvalue())).convert("L"))
    sheet = Image.new("L", (sum(i.width for i in images) + 40, max(i.height for i in images)), 255)
    x = 0
    for image in images:
        sheet.paste(image, (x, 0))
        x += image.width + 40
    out = io.BytesIO()
    sheet.save(out, format="PNG")
    return out.getvalue()


def test_a_photo_of_both_codes_gives_the_left_ones_text():
    text = left_text()
    assert read_photo(photo_of(text, "**螢幕:3:6400")) == text
    assert decode_left(read_photo(photo_of("**螢幕:3:6400", text))).number == "AB12345678"


def test_a_photo_without_a_code_or_not_an_image_is_a_photo_error():
    blank = io.BytesIO()
    Image.new("L", (200, 200), 255).save(blank, format="PNG")
    for data in (blank.getvalue(), b"not an image"):
        with pytest.raises(ValidationError) as refused:
            read_photo(data)
        assert list(refused.value.message_dict) == ["photo"]

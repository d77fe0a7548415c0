"""The one 統一編號 (Taiwan business tax ID) check: suppliers, invoices and the e-invoice QR decoder.

The rule is the Ministry of Finance's, in force since 1 April 2023 (民國 112 年 4 月 1 日), as
published in 財政部「營利事業統一編號檢查碼邏輯修正說明」 (mof.gov.tw, 資訊園地) and repeated
by the 北區國稅局 press release of 2024-03-16:
1. multiply the eight digits by the weights 1, 2, 1, 2, 1, 2, 4, 1;
2. add the digits of each product (so 9 x 4 = 36 counts 3 + 6 = 9);
3. the number is valid when that sum is divisible by 5. Before April 2023 it had to be divisible
   by 10; the change is 「檢查邏輯由可被『10』整除改為可被『5』整除」, so every old number still
   passes and numbers such as 62140097 (sum 35) are valid only under today's rule;
4. when the seventh digit is 7, its product 28 gives 2 + 8 = 10, which counts as either 1 or 0:
   the number is valid when either of the two sums is divisible by 5.

python-stdnum 2.2 (`stdnum.tw.ubn`) still applies the "divisible by 10" rule, so it is not used."""
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

WEIGHTS = (1, 2, 1, 2, 1, 2, 4, 1)


def _digit_sum(number: int) -> int:
    return number // 10 + number % 10


def checksum_sums(value: str) -> tuple[int, ...]:
    """The weighted digit sums of an 8-digit string: two when the seventh digit is 7, else one."""
    products = [_digit_sum(int(digit) * weight) for digit, weight in zip(value, WEIGHTS)]
    total = sum(products)
    if value[6] == "7":  # 28 -> 10 -> either 1 or 0
        total = total - products[6] + 1
        return (total, total - 1)
    return (total,)


def is_valid_tax_id(value: str) -> bool:
    """True for eight ASCII digits whose checksum passes today's rule."""
    if not (isinstance(value, str) and len(value) == 8 and value.isascii() and value.isdigit()):
        return False
    return any(total % 5 == 0 for total in checksum_sums(value))


def validate_tax_id(value: str) -> None:
    """Django field validator: a format error or a checksum error, each in the reader's language."""
    if not (isinstance(value, str) and len(value) == 8 and value.isascii() and value.isdigit()):
        raise ValidationError(_("A tax ID (統一編號) is exactly 8 digits."), code="format")
    if not is_valid_tax_id(value):
        raise ValidationError(_("%(value)s is not a valid tax ID (統一編號): its check digit does not match."),
                              code="checksum", params={"value": value})

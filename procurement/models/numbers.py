"""The 統一發票 number: two capital letters (字軌) and eight digits, e.g. AB12345678."""
import re

from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

INVOICE_NUMBER = re.compile(r"[A-Z]{2}[0-9]{8}")


def validate_invoice_number(value: str) -> None:
    if not (isinstance(value, str) and value.isascii() and INVOICE_NUMBER.fullmatch(value)):
        raise ValidationError(_("An invoice number is two capital letters and eight digits, such as AB12345678."),
                              code="invoice_number")

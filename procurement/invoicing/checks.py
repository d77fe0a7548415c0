"""A system check: the company's own 統一編號 (COMPANY_TAX_ID, the buyer on every PO and invoice)
passes today's checksum, so a typo stops the start-up instead of printing on every document."""
from django.conf import settings
from django.core.checks import Error, register

from procurement.models.taxid import is_valid_tax_id


@register()
def company_tax_id_is_valid(app_configs, **kwargs):
    value = getattr(settings, "COMPANY_TAX_ID", "")
    if is_valid_tax_id(value):
        return []
    return [Error(f"COMPANY_TAX_ID {value!r} is not a valid 統一編號 (8 digits whose weighted sum is divisible by 5).",
                  hint="Set COMPANY_TAX_ID to the company's own 統一編號, e.g. 24549210 in the demo.",
                  id="procurement.E101")]

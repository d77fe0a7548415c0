"""Field validators for the procurement tables, with messages in the user's language."""
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _
from stdnum.exceptions import InvalidChecksum
from stdnum.exceptions import ValidationError as StdnumError
from stdnum.tw import ubn


def validate_tax_id(value: str) -> None:
    """A 統一編號 is 8 digits whose weighted digit sum passes the Ministry of Finance checksum."""
    try:
        if ubn.compact(value) != value:
            raise ValueError
        ubn.validate(value)
    except InvalidChecksum:
        raise ValidationError(_("%(value)s is not a valid tax ID (統一編號): its check digit does not match."),
                              code="checksum", params={"value": value})
    except (StdnumError, ValueError):
        raise ValidationError(_("A tax ID (統一編號) is exactly 8 digits."), code="format")

"""Domain errors to JSON: `{"detail": ...}` plus `"errors"` for invalid input (DESIGN §10).

`errors` maps a field to its messages; a nested field is named by its path, so one bad
quantity in the second line is `{"lines.1.quantity": ["..."]}`."""
from django.utils.translation import gettext as _
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import exception_handler as drf_exception_handler

from agentstate.errors import DomainError

from procurement.words import refusal, refusal_errors


def exception_handler(exc, context):
    if isinstance(exc, DomainError):
        body = {"detail": _detail(exc), **exc.extra}
        if "errors" in body:
            body["errors"] = refusal_errors(exc)
        return Response(body, status=exc.http_status)
    if isinstance(exc, exceptions.ValidationError):
        return Response({"detail": _("Invalid input."), "errors": field_errors(exc.detail)},
                        status=status.HTTP_400_BAD_REQUEST)
    return drf_exception_handler(exc, context)


def _detail(exc: DomainError) -> str:
    """The refusal in the caller's language, as every page words it (procurement.words.refusal)."""
    return refusal(exc)


def field_errors(detail, path: str = "") -> dict[str, list[str]]:
    """Flatten DRF's nested error detail into `{"a.0.b": ["message", ...]}`."""
    if isinstance(detail, dict):
        nested = detail.items()
    elif isinstance(detail, list) and any(isinstance(item, (dict, list)) for item in detail):
        nested = ((index, item) for index, item in enumerate(detail) if item)
    else:
        messages = detail if isinstance(detail, list) else [detail]
        return {path or "non_field_errors": [str(message) for message in messages]}
    errors: dict[str, list[str]] = {}
    for key, value in nested:
        for field, messages in field_errors(value, _join(path, key)).items():
            errors.setdefault(field, []).extend(messages)
    return errors


def _join(path: str, key) -> str:
    # A whole-list or whole-object error belongs to the field: "lines", not "lines.non_field_errors".
    if not path:
        return str(key)
    return path if key == api_settings.NON_FIELD_ERRORS_KEY else f"{path}.{key}"

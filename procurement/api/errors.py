"""Domain errors to JSON: `{"detail": ...}` plus `"errors"` for invalid input (DESIGN §10)."""
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from agentstate.errors import DomainError


def exception_handler(exc, context):
    if isinstance(exc, DomainError):
        body = {"detail": str(exc), **exc.extra}
        return Response(body, status=exc.http_status)
    if isinstance(exc, exceptions.ValidationError):
        errors = exc.detail if isinstance(exc.detail, dict) else {"non_field_errors": exc.detail}
        return Response({"detail": "Invalid input.", "errors": errors}, status=status.HTTP_400_BAD_REQUEST)
    return drf_exception_handler(exc, context)

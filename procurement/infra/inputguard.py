"""The input layer (DESIGN §15): refuse what no view should ever see, with a 400/413 that says
what was wrong, in JSON or HTML as the caller expects.

- a body over `INPUT_MAX_BODY_BYTES` (413);
- JSON nested deeper than `MAX_JSON_DEPTH`, or not UTF-8;
- a NUL character or an unpaired UTF-16 surrogate in any text: body, form field, query
  parameter, JSON key or value;
- a JSON number written with more than `MAX_NUMBER_CHARS` characters, or a form field or
  query parameter of digits alone longer than `MAX_NUMERIC_TEXT_CHARS` (each field then
  applies its own, smaller limit through its form or serializer).

`InputGuardMiddleware` applies it to every request; `GuardedJSONParser` applies the same rules
to the REST API's JSON (DRF's parser settings), so a view reached without the middleware is
covered too. Django forms refuse NUL characters themselves and use `clean_text` for the rest."""
import json
import re

from django.http import HttpResponse, JsonResponse, RawPostDataException
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent
from django.http.multipartparser import MultiPartParserError
from django.template.loader import render_to_string
from django.utils.translation import gettext as _
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from procurement.infra.limits import (MAX_FILE_NAME_CHARS, MAX_JSON_DEPTH, MAX_NUMBER_CHARS, MAX_NUMERIC_TEXT_CHARS, MULTIPART_SLACK_BYTES, body_limit,
                     is_upload_path, upload_limit)

JSON_TYPES = ("application/json",)
FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")
SURROGATE = re.compile("[\ud800-\udfff]")
NUMBER = re.compile(r"[+-]?[0-9][0-9.,_eE+-]*")


class InputRefused(Exception):
    """Input no view should see: `status` is 400 or 413, `field` names where, if known."""

    def __init__(self, message: str, *, status: int = 400, field: str = ""):
        super().__init__(message)
        self.status, self.field = status, field


# -- the rules -------------------------------------------------------------------------------

def check_text(value: str, field: str = "", *, numeric_limit: int | None = None) -> None:
    """NUL characters and lone surrogates are refused in any text; with `numeric_limit`, a
    value made only of a number longer than that too (form fields and query parameters)."""
    name = field or _("the request")
    if "\x00" in value:
        raise InputRefused(_("%(field)s contains a NUL character, which is not allowed in text.") % {"field": name},
                           field=field)
    if SURROGATE.search(value):
        raise InputRefused(_("%(field)s contains an unpaired UTF-16 surrogate, which is not valid text.")
                           % {"field": name}, field=field)
    if numeric_limit is not None and len(value) > numeric_limit and NUMBER.fullmatch(value.strip()):
        check_number(value.strip(), field, limit=numeric_limit)


def check_number(token: str, field: str = "", *, limit: int = MAX_NUMBER_CHARS) -> None:
    if len(token) > limit:
        raise InputRefused(_("%(field)s is a number %(n)d characters long; no field accepts more than %(max)d.")
                           % {"field": field or _("A number"), "n": len(token), "max": limit},
                           field=field)


def parse_json(raw: bytes):
    """The JSON body, checked; `InputRefused` if it breaks a rule. Malformed JSON raises ValueError."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputRefused(_("The request body is not valid UTF-8.")) from None
    try:
        data = json.loads(text, parse_int=_int, parse_float=_float, parse_constant=_no_constant)
    except RecursionError:
        raise InputRefused(_too_deep()) from None
    check_json(data)
    return data


def check_json(data) -> None:
    """Depth, keys and every string of a parsed JSON value; iterative, so depth cannot hurt it."""
    stack = [(data, 1, "")]
    while stack:
        value, depth, path = stack.pop()
        if isinstance(value, (dict, list)):
            if depth > MAX_JSON_DEPTH:
                raise InputRefused(_too_deep())
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in items:
                if isinstance(key, str):
                    check_text(key, _join(path, "(key)"))
                stack.append((item, depth + 1, _join(path, key)))
        elif isinstance(value, str):
            check_text(value, path)


def _join(path: str, key) -> str:
    return f"{path}.{key}" if path else str(key)


def _int(token: str) -> int:
    check_number(token)
    return int(token)


def _float(token: str):
    check_number(token)
    return float(token)


def _no_constant(token: str):
    raise ValueError(f"{token} is not JSON")


def _too_deep() -> str:
    return _("The JSON is nested more than %(n)d levels deep.") % {"n": MAX_JSON_DEPTH}


# -- the request -----------------------------------------------------------------------------

def check_request(request) -> None:
    """Every rule, on the query string and the body; raises `InputRefused`."""
    limit = body_limit()
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        raise InputRefused(_("The Content-Length header is not a number.")) from None
    if is_upload_path(request.path) and request.method == "POST":
        # A file route: refused from the header alone, before a byte of a 50 MB body is read.
        if length > upload_limit() + MULTIPART_SLACK_BYTES:
            raise InputRefused(file_too_big(length), status=413, field="file")
        limit = upload_limit() + MULTIPART_SLACK_BYTES
    elif length > limit:
        raise InputRefused(_too_big(length, limit), status=413)
    _check_fields(request.GET)
    content_type = request.content_type or ""
    if content_type in JSON_TYPES or content_type.endswith("+json"):
        _check_json_body(request, limit)
    elif content_type in FORM_TYPES and request.method not in ("GET", "HEAD"):
        _check_form_body(request, limit)


def _check_json_body(request, limit: int) -> None:
    try:
        raw = request.body
    except RequestDataTooBig:
        raise InputRefused(_too_big(None, limit), status=413) from None
    if len(raw) > limit:
        raise InputRefused(_too_big(len(raw), limit), status=413)
    if raw.strip():
        try:
            parse_json(raw)
        except ValueError:
            pass  # malformed JSON: the view's parser says so, as it always has


def _check_form_body(request, limit: int) -> None:
    try:
        form = request.POST
    except RequestDataTooBig:
        raise InputRefused(_too_big(None, limit), status=413) from None
    except TooManyFieldsSent:
        raise InputRefused(_("The form has too many fields.")) from None
    except MultiPartParserError:
        # Django reads at most 1 KB of one part's headers: in practice a file name far too long.
        if is_upload_path(request.path):
            raise InputRefused(file_name_too_long(), field="file") from None
        raise InputRefused(_("The form could not be read: it is not well-formed multipart data.")) from None
    except RawPostDataException:
        return
    _check_fields(form)


def _check_fields(fields) -> None:
    for key, values in fields.lists():
        check_text(key, key)
        for value in values:
            check_text(value, key, numeric_limit=MAX_NUMERIC_TEXT_CHARS)


def file_name_too_long() -> str:
    return _("The file name is longer than %(limit)d characters. Rename the file and attach it again.") % {
        "limit": MAX_FILE_NAME_CHARS}


def file_too_big(size: int) -> str:
    mb = upload_limit() / (1024 * 1024)
    return _("The file is %(size)s MB; files up to %(limit)s MB are accepted.") % {
        "size": f"{size / (1024 * 1024):.1f}", "limit": f"{mb:g}"}


def _too_big(size, limit: int) -> str:
    if size is None:
        return _("The request body is larger than the limit of %(limit)s bytes.") % {"limit": f"{limit:,}"}
    return _("The request body has %(size)s bytes; the limit is %(limit)s.") % {"size": f"{size:,}",
                                                                            "limit": f"{limit:,}"}


# -- the answers -----------------------------------------------------------------------------

def wants_json(request) -> bool:
    accept = request.headers.get("Accept", "")
    if request.path.startswith("/api/") or (request.content_type or "").endswith("json"):
        return "text/html" not in accept or "application/json" in accept
    return "application/json" in accept and "text/html" not in accept


def refusal(request, exc: InputRefused) -> HttpResponse:
    message = str(exc)
    if wants_json(request):
        body = {"detail": message}
        if exc.field:
            body["errors"] = {exc.field: [message]}
        return JsonResponse(body, status=exc.status)
    template = "input_refused.html#message" if request.headers.get("HX-Request") else "input_refused.html"
    return HttpResponse(render_to_string(template, {"message": message, "status": exc.status}, request=None),
                        status=exc.status)


class InputGuardMiddleware:
    """Refuses bad input before any view, CSRF check or form sees it."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        try:
            check_request(request)
        except InputRefused as exc:
            return refusal(request, exc)
        return self.get_response(request)


class GuardedJSONParser(JSONParser):
    """DRF's JSON parser with the input layer's rules (depth, NUL, surrogates, long numbers)."""

    def parse(self, stream, media_type=None, parser_context=None):
        raw = stream.read() if stream is not None else b""
        if not raw.strip():
            raise ParseError(_("The request body is empty; send a JSON object."))
        try:
            return parse_json(raw)
        except InputRefused as exc:
            raise ParseError(str(exc)) from None
        except ValueError as exc:
            raise ParseError(_("JSON parse error: %(error)s") % {"error": exc}) from None

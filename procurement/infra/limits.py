"""Input limits shared by the input layer, forms, the API and the chat (DESIGN §15).

One number per rule, so the chat, the API and the HTML forms refuse the same things."""
import re

from django.conf import settings

# Bodies: the request size is a setting (INPUT_MAX_BODY_BYTES), read through body_limit().
DEFAULT_MAX_BODY_BYTES = 1024 * 1024
# JSON nested deeper than this is refused before any view sees it (the API's deepest shape is 3).
MAX_JSON_DEPTH = 32
# A JSON number written with more characters than this is refused wherever it appears; each
# field then applies its own, smaller limit (MONEY_MAX_DIGITS, MAX_QUANTITY).
MAX_NUMBER_CHARS = 40
# A form field or query parameter made only of digits is refused past this length (a hash of
# digits alone still fits); fields that want a number say how long in their form.
MAX_NUMERIC_TEXT_CHARS = 200

# Requests: lines and quantities, the same in chat, API and forms.
MAX_LINES = 50
MAX_QUANTITY = 10_000
# Money: NT$ with two decimal places, at most 999,999,999,999.99.
MONEY_MAX_DIGITS = 14
MONEY_DECIMAL_PLACES = 2

# Text typed by a person.
MAX_CHAT_CHARS = 2000
MAX_REASON_CHARS = 500
MAX_COMMENT_CHARS = 2000
MAX_JUSTIFICATION_CHARS = 2000
MAX_DESCRIPTION_CHARS = 200
# A line's spec (「27 吋 4K」): what the chat keeps of one, and what the new-request form takes.
MAX_SPEC_CHARS = 100
# An uploaded file's name (what the artifact keeps); longer is refused on every upload route,
# also when the name is so long that the multipart part's headers pass Django's 1 KB.
MAX_FILE_NAME_CHARS = 200


# Routes that take a file (a quote sheet): their body may be as large as QUOTE_SHEET_MAX_BYTES
# plus the multipart envelope and the form's small fields.
UPLOAD_PATHS = re.compile(r"^/(?:api/v1/sessions/[^/]+/attachments|chat/[^/]+/attachments|tasks/[^/]+/quote-sheet)/$")
MULTIPART_SLACK_BYTES = 64 * 1024


def body_limit() -> int:
    return getattr(settings, "INPUT_MAX_BODY_BYTES", DEFAULT_MAX_BODY_BYTES)


def upload_limit() -> int:
    """The largest file the upload routes accept (QUOTE_SHEET_MAX_BYTES)."""
    return getattr(settings, "QUOTE_SHEET_MAX_BYTES", 10 * 1024 * 1024)


def is_upload_path(path: str) -> bool:
    return bool(UPLOAD_PATHS.match(path))

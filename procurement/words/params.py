"""A Said's parameters in words: each kind of value has one way to be shown (money, person, state, ...).

A catalogue entry names the kind of each parameter it takes (procurement.words.catalogue); a
parameter it does not name is shown as given (ids, counts, names of suppliers)."""
from decimal import Decimal, InvalidOperation

from django.utils.translation import pgettext, pgettext_lazy

from procurement.words import labels
from procurement.models import PurchaseRequest
from procurement.words.money import ntd
from procurement.words.people import person_label
from procurement.words.sentences import error_words

LIST_SEPARATOR = pgettext_lazy("list separator", ", ")
QUOTED_TEXT = pgettext_lazy("quoted text", "“%(text)s”")
VERIFIED = {True: pgettext_lazy("agent sentence", "verified in the ERP"),
            False: pgettext_lazy("agent sentence", "not verified: the ERP did not answer")}


def money(value) -> str:
    try:
        return ntd(Decimal(str(value).replace(",", "")))
    except (InvalidOperation, ValueError):
        return str(value)


def person(value) -> str:
    return labels.actor_label(str(value or ""))


def people(value) -> str:
    names = value if isinstance(value, (list, tuple)) else str(value or "").split(", ")
    return str(LIST_SEPARATOR).join(person_label(name) for name in names if name)


def request(value) -> str:
    """A request by its number (REQ-2026-00012), a draft as a draft: never by its task id."""
    number = PurchaseRequest.objects.filter(task_id=value).values_list("number", flat=True).first() if value else None
    return number or pgettext("a request without a number yet", "a draft")


def quoted(value) -> str:
    """A person's own words, or text nobody could code: shown whole, as a quotation."""
    text = " ".join(str(value or "").split())
    return str(QUOTED_TEXT) % {"text": text} if text else ""


def note(value) -> str:
    """A person's note at the end of a sentence: their words as written, or nothing."""
    return " ".join(str(value or "").split())


def verified(value) -> str:
    return str(VERIFIED[bool(value)])


RAW_IN_LOGS = {"person", "people"}  # logs name people by username (procurement.words.log_line)

KINDS = {
    "money": money,
    "person": person,
    "people": people,
    "request": request,
    "quoted": quoted,
    "note": note,
    "verified": verified,
    "state": lambda value: labels.state_label(str(value)),
    "step": lambda value: labels.label(labels.STEP_LABELS, value),
    "rule": lambda value: labels.label(labels.RULE_LABELS, value),
    "operation": lambda value: labels.label(labels.OPERATION_LABELS, value),
    "receipt": lambda value: labels.label(labels.RECEIPT_LABELS, value),
    "department": lambda value: labels.department_code_label(str(value or "")),
    "erp_error": lambda value: error_words(value) or "",
    "erp_errors": lambda value: " ".join(error_words(e) or str(e) for e in (value or ())).rstrip("。."),
}


def shown(kinds: dict, params, *, plain: bool = False) -> dict:
    """The parameters as the words show them (`plain`: a list as its items, for a log line)."""
    return {name: KINDS[kinds[name]](value) if name in kinds else _plain(value) if plain else value
            for name, value in dict(params).items()}


def _plain(value):
    return ", ".join(map(str, value)) if isinstance(value, (list, tuple)) else value

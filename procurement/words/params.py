"""A Said's parameters in words: each kind of value has one way to be shown (money, person, state, ...).

A catalogue entry names the kind of each parameter it takes (procurement.words.catalogue); a
parameter it does not name is shown as given (ids, counts, names of suppliers)."""
from decimal import Decimal, InvalidOperation

from django.utils.translation import pgettext, pgettext_lazy

from procurement.words import labels
from procurement.models import PurchaseRequest
from procurement.models.receiving import RejectReason
from procurement.words.money import ntd
from procurement.words.people import person_label
from procurement.words.erp import error_words
from procurement.words.policy import role_label

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


DECISION_VERBS = {"return": pgettext_lazy("refusal", "return it"), "reject": pgettext_lazy("refusal", "reject it")}
DRAFT_FIELDS = {  # procurement.chat.drafts.missing
    "item": pgettext_lazy("draft field", "what to buy"), "quantity": pgettext_lazy("draft field", "how many"),
    "department": pgettext_lazy("draft field", "department"), "justification": pgettext_lazy("draft field", "purpose"),
}
QUOTED_WORD = pgettext_lazy("agent sentence", "'%(word)s'")
QUOTES = pgettext_lazy("agent sentence", "%(supplier)s quotes %(items)s")
GROUP_SEPARATOR = pgettext_lazy("list separator", "; ")


def _listed(value) -> list:
    return list(value) if isinstance(value, (list, tuple)) else [v for v in str(value or "").split(", ") if v]


def items(value) -> str:
    """Catalogue items by their names in the reader's language, listed."""
    return str(LIST_SEPARATOR).join(labels.item_label(item) for item in _listed(value))


def quoted_words(value) -> str:
    """A requester's own words for what she wants, each quoted, listed."""
    return str(LIST_SEPARATOR).join(str(QUOTED_WORD) % {"word": word} for word in _listed(value))


def supplier_quotes(value) -> str:
    """[[supplier, [item, ...]], ...]: who quotes what."""
    return str(GROUP_SEPARATOR).join(str(QUOTES) % {"supplier": supplier, "items": items(quoted)}
                                     for supplier, quoted in (value or ()))


RECEIVED_LINE = pgettext_lazy("agent sentence", "%(item)s: %(accepted)s accepted")
RETURNED_LINE = pgettext_lazy("agent sentence", "%(item)s: %(returned)s returned")
REJECTED_PART = pgettext_lazy("agent sentence", ", %(rejected)s rejected")
WHY_PART = pgettext_lazy("agent sentence", " (%(reason)s)")


def received_lines(value) -> str:
    """A goods receipt's lines, each [item, accepted, rejected, reason]: 「螢幕：允收 2、拒收 1（損壞）」,
    a return 「螢幕：退貨 1（損壞）」."""
    parts = []
    for item, accepted, rejected, reason in value or ():
        name = labels.item_label(str(item))
        text = (str(RETURNED_LINE) % {"item": name, "returned": -accepted} if accepted < 0
                else str(RECEIVED_LINE) % {"item": name, "accepted": accepted})
        if rejected:
            text += str(REJECTED_PART) % {"rejected": rejected}
        if reason and (rejected or accepted < 0):
            text += str(WHY_PART) % {"reason": RejectReason(reason).label if reason in RejectReason.values
                                     else reason}
        parts.append(text)
    return str(GROUP_SEPARATOR).join(parts)


def verified(value) -> str:
    return str(VERIFIED[bool(value)])


NO_HEADERS = pgettext_lazy("quote sheet column", "none")
EMPTY_CELL = pgettext_lazy("quote sheet cell", "(empty)")


def sheet_columns(value) -> str:
    """A quote sheet's columns by their names: 「品項、供應商」."""
    return str(LIST_SEPARATOR).join(labels.label(labels.SHEET_COLUMN_LABELS, column)
                                            for column in _listed(value))


def sheet_headers(value) -> str:
    """The column titles a sheet has, as written in it; 「無」 for none."""
    return str(LIST_SEPARATOR).join(str(title) for title in _listed(value)) or str(NO_HEADERS)


def sheet_cell(value) -> str:
    """A cell's text as the sheet has it; an empty cell said so."""
    return str(value or "") or str(EMPTY_CELL)


RAW_IN_LOGS = {"person", "people"}  # logs name people by username (procurement.words.log_line)

KINDS = {
    "money": money,
    "person": person,
    "people": people,
    "request": request,
    "quoted": quoted,
    "note": note,
    "verified": verified,
    "received_lines": received_lines,
    "state": lambda value: labels.state_label(str(value)),
    "step": lambda value: labels.label(labels.STEP_LABELS, value),
    "rule": lambda value: labels.label(labels.RULE_LABELS, value),
    "operation": lambda value: labels.label(labels.OPERATION_LABELS, value),
    "receipt": lambda value: labels.label(labels.RECEIPT_LABELS, value),
    "department": lambda value: labels.department_code_label(str(value or "")),
    "approval_status": lambda value: labels.label(labels.APPROVAL_LABELS, str(value)).lower(),
    "decision": lambda value: str(DECISION_VERBS.get(value, value)),
    "draft_fields": lambda value: str(LIST_SEPARATOR).join(str(DRAFT_FIELDS.get(f, f)) for f in _listed(value)),
    "role": lambda value: role_label(str(value)),
    "item": lambda value: labels.item_label(str(value)),
    "items": items,
    "quoted_words": quoted_words,
    "supplier_quotes": supplier_quotes,
    "thing": lambda value: labels.label(labels.THING_LABELS, value),
    "sheet_columns": sheet_columns,
    "sheet_headers": sheet_headers,
    "sheet_cell": sheet_cell,
    "sheet_question": lambda value: labels.label(labels.SHEET_QUESTION_LABELS, value),
    "erp_error": lambda value: error_words(value) or "",
    "erp_errors": lambda value: " ".join(error_words(e) or str(e) for e in (value or ())).rstrip("。."),
}


def shown(kinds: dict, params, *, plain: bool = False) -> dict:
    """The parameters as the words show them (`plain`: a list as its items, for a log line)."""
    return {name: KINDS[kinds[name]](value) if name in kinds else _plain(value) if plain else value
            for name, value in dict(params).items()}


def _plain(value):
    return ", ".join(map(str, value)) if isinstance(value, (list, tuple)) else value

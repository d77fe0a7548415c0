"""The words of the app: what the agent, the engine and a refusal say, in the reader's language.

What is said travels and is stored as a code and its parameters (agentstate.said.Said); this
package turns it into words for pages, the API, mail, notices and the chat, in zh-Hant or
English (the gettext catalogue). The codes and their words are in `catalogue`; the kinds of
parameter (money, person, state, request, ...) in `params`. Text nobody could code is shown
whole as a quotation. It sits below the domain: it reads models and the engine, nothing else."""
from django.utils import translation

from django.utils.translation import get_language

from agentstate.errors import DomainError, IllegalTransition, LeaseLost, StaleVersion
from agentstate.said import QUOTED, Said, of_event, quote, say, use_renderer  # noqa: F401

from procurement.words import catalogue, labels, params
from procurement.words.agent import AGENT
from procurement.words.erp import error_words  # noqa: F401
from procurement.words.money import squeeze
from procurement.words.refusals import GENERIC, REFUSALS

CODES = {**catalogue.codes(), **AGENT, **REFUSALS}
# The engine's sentences name versions, leases and states by their codes ("Expected version 7, found
# 8 (state 'awaiting_approval')"): a reader reads them as their kind, in English too.
ENGINE_SENTENCES = (StaleVersion, LeaseLost, IllegalTransition)


def render(said: Said, language: str | None = None) -> str:
    """`said` in words, in `language` (None: the active one). An unknown code reads as its code."""
    if language is not None:
        with translation.override(language):
            return render(said)
    if said.is_quoted:
        return params.quoted(said.params.get("text"))
    words = CODES.get(said.code)
    if words is None:
        return said.code
    shown = params.shown(words.kinds, said.params)
    return squeeze(str(words.template) % shown)


def log_line(said: Said) -> str:
    """`said` for logs and the event's reason column: English, people by username, and the
    parameters its words leave out (the ERP's raw error, what a rewind showed) after it."""
    words = CODES.get(said.code)
    if said.is_quoted or words is None:
        return render(said, "en")
    raw = {name: kind for name, kind in words.kinds.items() if kind not in params.RAW_IN_LOGS}
    with translation.override("en"):
        template = str(words.template)
        text = squeeze(template % params.shown(raw, said.params, plain=True))
    left_out = [f"{name}: {value}" for name, value in said.params.items()
                if f"%({name})" not in template and value not in (None, "", ())]
    return "; ".join([text, *left_out])


def event_reason(event) -> str:
    """Why an event happened, for the timeline: its stored code in the reader's language. A reason
    without a code is a person's own words (a comment), shown as written; the agent's uncoded text
    reads to English readers only (admins open the raw reason under "details")."""
    said = of_event(event)
    if said is None:
        reason = getattr(event, "reason", "") or ""
        if reason and (not labels.is_agent(getattr(event, "actor", "")) or _english()):
            return reason
        return ""
    if said.code == "created" and getattr(event, "event", "") == "create":
        return ""  # the event's label already says it: 「建立」, not 「建立 已建立」
    return render(said)


def recorded_reason(event) -> str:
    """An event's reason for the admins' details, in the reader's language: its code's words; a
    reason stored without a code (a comment, a row older than codes) as a quotation, never dropped."""
    said = of_event(event)
    return render(said) if said is not None else params.quoted(getattr(event, "reason", ""))


def erp_error(text) -> str:
    """A receipt's ERP error for the admins' details: in a few words when it has a known shape,
    else quoted as the ERP client recorded it."""
    return error_words(text) or params.quoted(text)


def said_or_text(value) -> str:
    """What is stored as a Said (its JSON), in words; a plain string (a person's words) as written."""
    said = Said.of(value)
    return render(said) if said is not None else squeeze(value or "")


def coded_refusal(exc: DomainError) -> str | None:
    """The refusal in the reader's language if it was raised with a code, else None."""
    said = exc.said
    return render(said) if said.code in CODES else None


def refusal_errors(exc: DomainError) -> dict[str, list[str]]:
    """The refusal's field errors in the reader's language: a field's code (a Said) in its words; a
    field that repeats the refusal's own English as the refusal's code's words; a message worded at
    the raise (gettext) as it is."""
    coded, own = coded_refusal(exc), str(exc)

    def worded(message) -> str:
        if isinstance(message, Said):
            return render(message)
        return coded if coded is not None and str(message) == own else str(message)

    return {field: [worded(message) for message in messages]
            for field, messages in (exc.extra.get("errors") or {}).items()}


def refusal(exc: DomainError) -> str:
    """A refusal as the person who met it reads it: its code's words in their language. One raised
    without a code reads to an English reader as it was raised (its English is all it says), unless
    it is the engine's own sentence about versions and states; to anyone else, and for those, as
    what kind of refusal it is, never an event or state code. Pages, the API and
    the chat all read refusals here, so none chooses between `str(exc)` and anything else."""
    if exc.translated:
        return str(exc)
    coded = coded_refusal(exc)
    if coded is not None:
        return coded
    if _english() and not isinstance(exc, ENGINE_SENTENCES):
        return str(exc)
    for kind, words in GENERIC.items():
        if isinstance(exc, kind):
            state = labels.state_label(exc.extra.get("state") or "")
            return str(words) % {"state": state, "detail": str(exc)}
    return str(exc)


def _english() -> bool:
    return (get_language() or "en").startswith("en")


use_renderer(render, log=log_line)

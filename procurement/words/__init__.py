"""The words of the app: what the agent, the engine and a refusal say, in the reader's language.

What is said travels and is stored as a code and its parameters (agentstate.said.Said); this
package turns it into words for pages, the API, mail, notices and the chat, in zh-Hant or
English (the gettext catalogue). The codes and their words are in `catalogue`; the kinds of
parameter (money, person, state, request, ...) in `params`. Text nobody could code is shown
whole as a quotation. It sits below the domain: it reads models and the engine, nothing else."""
from django.utils import translation

from agentstate.errors import DomainError
from agentstate.said import QUOTED, Said, of_event, quote, say, use_renderer  # noqa: F401

from procurement.words import catalogue, params
from procurement.words.sentences import coded_refusal, error_words, readable, refusal_errors, translate  # noqa: F401
from procurement.words.sentences import event_reason as _legacy_event_reason
from procurement.words.sentences import refusal as _legacy_refusal

CODES = catalogue.codes()


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
    return " ".join((str(words.template) % shown).split())


def log_line(said: Said) -> str:
    """`said` for logs and the event's reason column: English, people by username, and the
    parameters its words leave out (the ERP's raw error, what a rewind showed) after it."""
    words = CODES.get(said.code)
    if said.is_quoted or words is None:
        return render(said, "en")
    raw = {name: kind for name, kind in words.kinds.items() if kind not in params.RAW_IN_LOGS}
    with translation.override("en"):
        template = str(words.template)
        text = " ".join((template % params.shown(raw, said.params, plain=True)).split())
    left_out = [f"{name}: {value}" for name, value in said.params.items()
                if f"%({name})" not in template and value not in (None, "", ())]
    return "; ".join([text, *left_out])


def event_reason(event) -> str:
    """Why an event happened, for the timeline: its stored code in the reader's language; an event
    written before reasons were codes by its English sentence (procurement.words.sentences)."""
    said = of_event(event)
    if said is None:
        return _legacy_event_reason(event)
    if said.code == "created" and getattr(event, "event", "") == "create":
        return ""  # the event's label already says it: 「建立」, not 「建立 已建立」
    if said.is_quoted:  # words nobody coded: a sentence still listed there, else the text as a quotation
        return translate(said.params.get("text", "")) or render(said)
    return render(said)


def refusal(exc: DomainError) -> str:
    """A refusal as the person who met it reads it, in their language."""
    said = exc.said
    if said.code in CODES:
        return render(said)
    return _legacy_refusal(exc)


use_renderer(render, log=log_line)

"""The quote sheet in the conversation: attaching one (a turn of its own), and reading the
answers to its open questions, asked one at a time in the requester's language.

Answers are read by these rules whichever brain is configured: they are about exact rows,
numbers and tax IDs, and a confirmation is bound to the question's number and the task's version."""
from django.db import transaction

from agentstate.errors import Conflict
from agentstate.models import Session, Task, Turn
from agentstate.turns import turn_append

from procurement import workflow
from procurement.chat import lexicon
from procurement.chat.brain import AnswerQuote, Context, NoAction, Proposal
from procurement.chat.context import departments_of, summarize
from procurement.chat.extract import extract
from procurement.chat.rules import CHANGE_VERB
from procurement.words.phrases import join, language
from procurement.chat.questions import question_of
from procurement.chat.status import state_words
from procurement.words import quotesheet as words
from procurement.quotesheet.answers import parse_answer
from procurement.quotesheet.services import next_question, open_questions, quote_sheet_attach, sheet_summary


class SheetConflict(Conflict):
    """A sheet attached where none can be; the message is already in the requester's language."""
    translated = True


def pending_text(task: Task, lang: str, catalogue=()) -> str:
    """The sheet's next open question in `lang`, or "" when none is open."""
    sheet = task.data.get("quote_sheet") if task is not None else None
    question = next_question(sheet)
    if question is None:
        return ""
    return words.question_text(question, total=len(sheet["questions"]), lang=lang, items=catalogue)


def sheet_proposal(ctx: Context) -> Proposal | None:
    """While a draft's sheet has an open question, the message is read as its answer first."""
    if ctx.task is None or ctx.task.state != workflow.DRAFT or lexicon.injections(ctx.message):
        return None
    task = Task.objects.filter(pk=ctx.task.id).first()
    sheet = task.data.get("quote_sheet") if task else None
    question = next_question(sheet)
    if question is None:
        return None
    found = extract(ctx.message, ctx.catalogue)
    if CHANGE_VERB.search(ctx.message) and found.any():
        return None  # 「改成 3 台筆電」 changes the draft; the runtime then asks the open question again
    answer = parse_answer(question, ctx.message, ctx.catalogue)
    if answer is not None:
        return Proposal("", AnswerQuote(n=question["n"], answer=answer["action"], value=answer.get("value", "")))
    if (question_of(ctx.message, ctx.catalogue) is not None or lexicon.is_cancel(ctx.message)
            or lexicon.is_standing(ctx.message) or found.any()):
        # A question about her requests, a cancel or a change to the draft is handled as ever;
        # the runtime then asks the sheet's open question again.
        return None
    again = join(words.say("again", ctx.lang), pending_text(task, ctx.lang, ctx.catalogue))
    return Proposal(again, NoAction(), expects="quote_question")


def answered_reply(question: dict, answer: str, value: str, lang: str) -> str:
    from procurement.words.money import ntd

    row = question["row"]
    if answer == "drop":
        return words.say("dropped", lang, row=row)
    if answer == "confirm":
        return words.say("confirmed", lang, row=row)
    if answer == "price":
        with language(lang):
            return words.say("price_set", lang, row=row, price=ntd(value))
    if answer == "tax_id":
        return words.say("tax_set", lang, row=row, tax_id=value)
    return words.say("item_set", lang, row=row, item=words.item_label(value, lang))


def resolved_reply(sheet: dict, lang: str) -> str:
    summary = sheet_summary(sheet)
    return words.say("all_resolved", lang, filename=sheet["file"]["filename"], used=summary["used"],
                     dropped=summary["dropped"])


def chat_attach(*, session: Session, user, content: bytes, filename: str, content_type: str = "", text: str = "",
                lang: str = ""):
    """A turn that attaches a quote sheet (with her words, if any) and answers with what was read
    and the first question. A refused file leaves the conversation and the request untouched."""
    from procurement.chat.dispose import draft_prompt
    from procurement.chat.runtime import TurnResult, _check_may_post, conversation_language, message_checked

    _check_may_post(session, user)
    lang = lexicon.language(text or "", conversation_language(session) or lang or "en")
    if text.strip():
        text = message_checked(text, lang=lang)
    task = session.task if session.task_id and session.task.state not in workflow.AGENT_DONE else None
    if task is not None and task.state != workflow.DRAFT:
        raise SheetConflict(words.say("draft_only", lang, state=state_words(task.state, lang)), state=task.state)
    catalogue = sorted(_catalogue())
    with language(lang), transaction.atomic():
        attached = quote_sheet_attach(user=user, content=content, filename=filename, content_type=content_type,
                                      task=task, session=session, fields=_department(user, task))
        ref = attached.sheet["file"]
        user_turn = turn_append(session_id=session.pk, role=Turn.Role.USER, text=text.strip() or f"📎 {filename}",
                                data={"attachment": ref})
        reply, expects, confirming = _reply(attached, lang, catalogue, draft_prompt, user)
        agent_turn = turn_append(session_id=session.pk, role=Turn.Role.AGENT, text=reply, data={
            "action": "attach_quote_sheet", "args": {}, "did": "attach_quote_sheet", "outcome": "done",
            "reason": "", "memory_used": [], "task": str(attached.task.pk), "state": attached.task.state,
            "version": attached.task.version, "brain": "rules", "fallback": "", "expects": expects,
            "confirming": confirming, "choices": [], "lang": lang, "about": "", "attachment": ref})
        locked = Session.objects.select_for_update(no_key=True).get(pk=session.pk)
        locked.summary = summarize(locked.summary, attached.task, seq=agent_turn.seq, action="attach_quote_sheet",
                                   outcome="done")
        locked.save(update_fields=["summary", "updated_at"])
    del user_turn
    session.refresh_from_db()
    return TurnResult(reply=reply, task=Task.objects.get(pk=attached.task.pk), action="attach_quote_sheet",
                      turn=agent_turn)


def _reply(attached, lang: str, catalogue, draft_prompt, user) -> tuple[str, str, dict | None]:
    sheet, task = attached.sheet, attached.task
    file = sheet["file"]
    summary = sheet_summary(sheet)
    if attached.same_file:
        head = words.say("same_file", lang, filename=file["filename"], version=file["version"])
    elif summary["questions"]:
        head = words.say("read", lang, filename=file["filename"], version=file["version"], rows=summary["rows"],
                         ok=summary["rows"] - len({q["row"] for q in sheet["questions"]}), open=summary["open"])
    else:
        head = words.say("read_clean", lang, filename=file["filename"], version=file["version"],
                         rows=summary["rows"])
    if open_questions(sheet):
        return join(head, pending_text(task, lang, catalogue)), "quote_question", None
    text, expects, confirming = draft_prompt(task, lang, departments_of(user))
    return join(head, text), expects, confirming


def _catalogue():
    from procurement.chat.context import catalogue

    return catalogue()


def _department(user, task) -> dict:
    """A new draft gets her one department, as intake does."""
    departments = departments_of(user)
    drafted = (task.data.get("draft") or {}) if task is not None else {}
    return {"department": departments[0]} if len(departments) == 1 and not drafted.get("department") else {}


class SheetBrain:
    """A brain like the others (chat.brain.Brain): while a draft's sheet has an open question, the
    sheet's answers; anything else, the brain it wraps (the rules, or the model with the rules)."""

    def __init__(self, inner):
        self.inner, self.name = inner, inner.name

    def propose(self, ctx: Context) -> Proposal:
        return sheet_proposal(ctx) or self.inner.propose(ctx)

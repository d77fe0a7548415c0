"""The quote sheet in the conversation: attaching one (a turn of its own), and reading the
answers to its open questions, asked one at a time in the requester's language.

Answers are read by these rules whichever brain is configured: they are about exact rows,
numbers and tax IDs, and a confirmation is bound to the question's number and the task's version."""

from agentstate.errors import Conflict
from agentstate.models import Task

from procurement import workflow
from procurement.chat import lexicon
from procurement.chat.brain import AnswerQuote, Context, NoAction, Proposal
from procurement.chat.context import departments_of
from procurement.chat.extract import extract
from procurement.chat.rules import CHANGE_VERB
from procurement.words.phrases import join, language
from procurement.chat.questions import question_of
from procurement.words import quotesheet as words
from procurement.chat.sheet_answers import parse_answer
from procurement.quotesheet.services import next_question, sheet_summary
from procurement.words.money import ntd
from procurement.chat.context import catalogue


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


def sheet_proposal(ctx: Context, task: Task | None = None) -> Proposal | None:
    """While a draft's sheet has an open question, the message is read as its answer first.
    `task`: the draft as this turn read it, if it did (else it is read)."""
    if ctx.task is None or ctx.task.state != workflow.DRAFT or lexicon.injections(ctx.message):
        return None
    if task is None or str(task.pk) != ctx.task.id:
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


def _catalogue():
    return catalogue()


def _department(user, task) -> dict:
    """A new draft gets her one department, as intake does."""
    departments = departments_of(user)
    drafted = (task.data.get("draft") or {}) if task is not None else {}
    return {"department": departments[0]} if len(departments) == 1 and not drafted.get("department") else {}


class SheetBrain:
    """A brain like the others (chat.brain.Brain): while a draft's sheet has an open question, the
    sheet's answers; anything else, the brain it wraps (the rules, or the model with the rules)."""

    def __init__(self, inner, task: Task | None = None):
        self.inner, self.name, self.task = inner, inner.name, task  # task: the draft as the turn read it

    def propose(self, ctx: Context) -> Proposal:
        return sheet_proposal(ctx, self.task) or self.inner.propose(ctx)

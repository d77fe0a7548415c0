"""A turn that attaches a quote sheet to the conversation: the file is read, its rows checked and
stored on her draft, and the agent answers with what was read and its first question."""
from django.db import transaction

from agentstate.models import Session, Task, Turn
from agentstate.turns import turn_append

from procurement import workflow
from procurement.chat import lexicon
from procurement.chat.dispose import draft_prompt
from procurement.chat.runtime import TurnResult, _check_may_post, conversation_language, message_checked
from procurement.chat.context import departments_of, summarize
from procurement.chat.sheet import SheetConflict, _catalogue, _department, pending_text
from procurement.words.phrases import join, language
from procurement.chat.status import state_words
from procurement.words import quotesheet as words
from procurement.quotesheet.services import open_questions, quote_sheet_attach, sheet_summary


def chat_attach(*, session: Session, user, content: bytes, filename: str, content_type: str = "", text: str = "",
                lang: str = ""):
    """A turn that attaches a quote sheet (with her words, if any) and answers with what was read
    and the first question. A refused file leaves the conversation and the request untouched."""
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

"""退回 closes the loop, chat side: the manager's comment becomes the agent's open question in
the requester's latest conversation for that request (one is opened if she has none, e.g. for
a request made through the API).

The agent turn is recorded like any other (chat.runtime.turn_record's keys), with
`action`/`did` "return", `expects` "revision" and the comment verbatim under `question`, so
the chat runtime reads her next message as the answer to it.
"""
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import override

from agentstate import trace
from agentstate.models import Session, Task, Turn
from agentstate.turns import turn_append

from procurement.people.language import CHAT_LANGUAGES
from procurement.chat.runtime import conversation_language

EXPECTS = "revision"


def returned_question_post(*, task: Task, comment: str, approver: str, number: str, language: str) -> Session:
    session = (Session.objects.filter(task=task, owner_id=task.initiator_id, locked=False)
               .order_by("-updated_at", "-created_at").first())
    # Asked in the language of the conversation it goes into; a new one, in hers.
    spoken = CHAT_LANGUAGES.get(conversation_language(session), language) if session else language
    with override(spoken):
        if session is None:
            session = Session.objects.create(owner_id=task.initiator_id, task=task,
                                             title=_("%(number)s returned for revision") % {"number": number})
        text = _("%(approver)s returned %(number)s for revision and asks:\n\n%(comment)s\n\n"
                 "Reply here with what to change, and I will revise the request and send it back for approval."
                 ) % {"approver": approver or _("The approver"), "number": number, "comment": comment}
    with trace.using(task.trace_id):
        turn_append(session_id=session.pk, role=Turn.Role.AGENT, text=text,
                    data=_record(task, comment, approver) | {"lang": _chat_code(spoken)})
    Session.objects.filter(pk=session.pk).update(updated_at=timezone.now())
    return session


def _record(task: Task, comment: str, approver: str) -> dict:
    return {
        "action": "return", "args": {}, "did": "return", "outcome": "done", "reason": comment, "memory_used": [],
        "task": str(task.pk), "state": task.state, "version": task.version, "brain": "runtime", "fallback": False,
        "expects": EXPECTS, "question": comment, "returned_by": approver, "confirming": None, "choices": [],
    }


def _chat_code(site_language: str) -> str:
    return next((code for code, site in CHAT_LANGUAGES.items() if site == site_language), "")


def notice_post(*, task: Task, kind: str, texts: dict, language: str) -> Session | None:
    """A decision or an outcome (approved, rejected, ordered, expired) told in the conversation she
    made the request in, as the return is: she reads it where she asked, in the language of that
    conversation (`texts`: the notice in each site language; `language`: hers, before the
    conversation has one). A request made without the chat has no conversation, and none is
    opened for it (her notices and mail tell her)."""
    session = (Session.objects.filter(task=task, owner_id=task.initiator_id, locked=False)
               .order_by("-updated_at", "-created_at").first())
    if session is None:
        return None
    spoken = CHAT_LANGUAGES.get(conversation_language(session), language)
    text = texts.get(spoken) or texts[language]
    lang = _chat_code(spoken)
    record = {"action": "notice", "args": {}, "did": kind, "outcome": "done", "reason": "", "memory_used": [],
              "task": str(task.pk), "state": task.state, "version": task.version, "brain": "runtime",
              "fallback": False, "expects": "", "confirming": None, "choices": [], "lang": lang, "about": str(task.pk)}
    with trace.using(task.trace_id):
        turn_append(session_id=session.pk, role=Turn.Role.AGENT, text=text, data=record)
    Session.objects.filter(pk=session.pk).update(updated_at=timezone.now())
    return session

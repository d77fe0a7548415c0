"""`chat_turn`: one chat turn, from the requester's words to the agent's reply.

1. Check the caller may post here and the text is acceptable; store it as a user turn.
2. Build the bounded context and ask the brain for a proposal (no lock held meanwhile:
   the brain may be a remote model).
3. Under the session's row lock: dispose of the proposal (validate, then act through the
   services), append the agent turn with what it did and which memory it used, and update
   the running summary. Work the services queue starts only after this commits.
"""
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction

from agentstate import trace
from agentstate.errors import Conflict, DomainError, NotFound
from agentstate.models import Session, Task, Turn
from agentstate.said import say as said_code
from agentstate.turns import turn_append

from procurement import workflow
from procurement.infra.limits import MAX_CHAT_CHARS
from procurement.people.language import CHAT_LANGUAGES, user_language_remember
from procurement.chat.sheet import SheetBrain
from procurement.selectors.sessions import may_post
from procurement.chat.brain import Brain, Context, Proposal
from procurement.chat.context import RECENT_TURNS, TurnReads, build_context, recent_turns, summarize, turn_reads
from procurement.chat.dispose import Job, Outcome, dispose
from procurement.chat.lexicon import language
from procurement.words.phrases import join, say
from procurement.chat.normalise import normalise
from procurement.chat.rules import RuleBrain
from procurement.chat.llm import LlmBrain, WithFallback

CHAT_MAX_CHARS = MAX_CHAT_CHARS


@dataclass
class TurnResult:
    reply: str
    task: Task | None
    action: str          # what the turn did: an action name, or "none"
    turn: Turn           # the agent's turn


def chat_turn(*, session: Session, user, text, brain: Brain | None = None) -> TurnResult:
    _check_may_post(session, user)
    # The conversation's request and her others, read once for the turn (its trace and the context).
    reads = turn_reads(session, user)
    task = reads.task
    # The turn is part of its request's trace; before there is a request, of the web request's
    # (a draft started now is born in it).
    ongoing = task is not None and task.state not in workflow.AGENT_DONE
    with trace.using(task.trace_id if ongoing else ""):
        return _turn(session, user, text, brain, reads)


def _turn(session: Session, user, text, brain: Brain | None, reads: TurnReads) -> TurnResult:
    # The last turns, read once: the language the agent last answered in, and the context's turns.
    recent = recent_turns(session)
    spoken = conversation_language(session, recent)
    text = message_checked(text, lang=spoken)
    user_turn = turn_append(session_id=session.pk, role=Turn.Role.USER, text=text)
    # The hearing reads the message made plain once (chat/normalise.py); the turn keeps her words.
    ctx = build_context(session=session, user=user, message=normalise(text), user_turn=user_turn,
                        recent=recent, reads=reads)
    if not spoken:  # a conversation's first turn: someone who never chose a language gets the one
        # they write in, for their notices and mail (one look-up per conversation, none per turn)
        user_language_remember(user=user, language=CHAT_LANGUAGES.get(ctx.lang, ""))
    # An open question about an attached quote sheet reads the message as its answer first.
    proposal = SheetBrain(brain or default_brain(), reads.task).propose(ctx)
    with transaction.atomic():
        locked = Session.objects.select_for_update(no_key=True).get(pk=session.pk)
        out = dispose(Job(proposal=proposal, ctx=ctx, session=locked, user=user, user_turn=user_turn))
        if proposal.fallback:
            out.reply = join(say("fallback", ctx.lang), out.reply)
        agent_turn = turn_append(session_id=locked.pk, role=Turn.Role.AGENT, text=out.reply,
                                 data=turn_record(proposal, out, ctx), locked=locked)
        locked.summary = summarize(locked.summary, out.task, seq=agent_turn.seq, action=proposal.action.name,
                                   outcome=out.outcome, catalogue=ctx.catalogue, lines=out.lines)
        locked.save(update_fields=["summary", "updated_at"])
    # What the turn left on the session, from the row it locked and saved (not read again).
    if session.task_id != locked.task_id and Session.task.is_cached(session):
        Session.task.field.delete_cached_value(session)
    session.task_id, session.summary, session.updated_at = locked.task_id, locked.summary, locked.updated_at
    # Read again: once committed, the agent's first steps may already have moved the task (a draft
    # has no steps: it is as the turn left it).
    task = out.task
    if task is not None and task.state != workflow.DRAFT:
        task = Task.objects.filter(pk=task.pk).first()
    return TurnResult(reply=out.reply, task=task, action=out.did, turn=agent_turn)


def default_brain() -> Brain:
    """The LLM brain when a model is configured (falling back to the rules), else the rules."""
    if settings.LLM_BASE_URL and settings.LLM_MODEL:
        return WithFallback(LlmBrain.from_settings(), RuleBrain())
    return RuleBrain()


def message_checked(text, *, lang: str = "") -> str:
    """The text, or a 400 in the writer's language saying what is wrong with it."""
    if not isinstance(text, str) or not text.strip():
        message = say("empty", lang or "en")
        raise DomainError(message, errors={"text": [message]})
    if len(text) > CHAT_MAX_CHARS:
        message = say("too_long", language(text[:2000], lang), n=len(text), limit=CHAT_MAX_CHARS)
        raise DomainError(message, errors={"text": [message]})
    return text  # stored exactly as written; it is text, never markup


def conversation_language(session: Session, recent: list[Turn] | None = None) -> str:
    """The language the agent last answered in ("zh", "en"), or "" before its first reply; from
    `recent` (the session's last turns, oldest first) when they hold an agent turn or all there is."""
    said = [t for t in recent or () if t.role == Turn.Role.AGENT]
    if said:
        return (said[-1].data or {}).get("lang", "")
    if recent is not None and len(recent) < RECENT_TURNS:
        return ""  # every turn was read: the agent has not answered yet
    last = session.turns.filter(role=Turn.Role.AGENT).order_by("-seq").values_list("data", flat=True).first()
    return (last or {}).get("lang", "")


def _check_may_post(session: Session, user):
    if not may_post(user, session):
        raise NotFound("No such session.")
    if session.status == Session.Status.EXPIRED:
        raise Conflict(said=said_code("conversation_expired"))


def turn_record(proposal: Proposal, out: Outcome, ctx: Context) -> dict:
    """What the agent turn keeps: the proposal, what the runtime did with it, and which
    memory entries (id and version, never their text) the answer relied on."""
    cited = {str(m) for m in proposal.memory_used}
    # Only entries that were in scope this turn can be cited; ids stay ints or become strings (UUIDs).
    used = [{"id": m.id if isinstance(m.id, int) else str(m.id), "version": m.version}
            for m in ctx.memory if str(m.id) in cited]
    task = out.task
    return {
        "action": proposal.action.name, "args": proposal.action.record(), "did": out.did, "outcome": out.outcome,
        "reason": out.reason, "memory_used": used, "task": str(task.pk) if task else None,
        "state": task.state if task else None, "version": task.version if task else None,
        "brain": proposal.brain or "rules", "fallback": proposal.fallback, "expects": out.expects,
        "confirming": out.confirming, "choices": list(out.choices), "lang": ctx.lang, "about": out.about,
    }

"""The model proposes, the runtime disposes: each proposed action is checked against the
transition table, the caller's rights and what the requester confirmed, then carried out
through `procurement.purchase.services` (which check again). Anything else is refused, plainly."""
from dataclasses import dataclass, field, replace
from datetime import date
from decimal import Decimal

from django.db import transaction

from agentstate.errors import Conflict, DomainError, IllegalTransition, NotFound, NotPermitted, StaleVersion
from agentstate.kinds import get_kind
from agentstate.machine import with_checkpoint
from agentstate.models import Session, Task, Turn
from agentstate.said import say as said_code

from procurement import selectors, workflow
from procurement.purchase import services
from procurement.chat import sheet as sheet_words
from procurement.words import quotesheet as words
from procurement.words import refusal
from procurement.chat.sheet import pending_text
from procurement.quotesheet.services import SheetAnswerRefused, open_questions, quote_question_answer
from procurement.models import Department
from procurement.chat.vocabulary import match_item
from procurement.chat import draft as drafts
from procurement.chat import dates, facts, lexicon, memory_seam
from procurement.chat import receive as receiving
from procurement.receiving.services import goods_receipt_record
from procurement.chat.brain import Context, InvalidAction, Proposal, TaskView, parse_action
from procurement.chat.context import task_view
from procurement.words.phrases import entry_words, join, language, listed, say
from procurement.chat.status import (change_reply, list_reply, money_reply, name_of, nudge_reply, po_reply, state_words,
                     status_reply, stock_reply, supplier_reply, unknowable_reply, why_reply)


@dataclass
class Outcome:
    reply: str
    did: str                       # the action carried out; "none" when refused or only replied
    outcome: str = "done"          # done | confirm (asked the requester first) | refused | unavailable
    reason: str = ""
    task: Task | None = None
    expects: str = ""
    confirming: dict | None = None
    choices: tuple = ()
    about: str = ""                # the request this answer was about (task id), for a follow-up
    lines: list | None = None      # the request's lines as the handler wrote them (read back by nobody)


@dataclass
class Job:
    proposal: Proposal
    ctx: Context
    session: Session               # locked for this turn
    user: object
    user_turn: Turn
    lang: str = field(init=False)
    model_unconfirmed: bool = False  # a model proposed one of her events without her own yes

    def __post_init__(self):
        self.lang = self.ctx.lang

    @property
    def action(self):
        return self.proposal.action

    def task(self) -> Task | None:
        if self.session.task_id and not Session.task.is_cached(self.session):
            # Read as the engine reads a task for a move, so a move this turn makes reads it no more.
            task = with_checkpoint(Task.objects).get(pk=self.session.task_id)
            Session.task.field.set_cached_value(self.session, task)
        return self.session.task

    def same_as_seen(self, task: Task):
        """The task must still be the version the brain was shown; otherwise it proposed blind."""
        if self.ctx.task is None or self.ctx.task.id != str(task.pk) or self.ctx.task.version != task.version:
            raise StaleVersion(f"Proposed for version {self.ctx.task and self.ctx.task.version}, "
                               f"found {task.version}.")


# The requester's own events among the chat's actions. A brain other than the rules (a model) may
# propose them, but they fire only on the requester's own yes, heard by the server in her message;
# a model that says she agreed, or that submits after "not yet", only makes the server ask her.
PERSON_EVENTS = frozenset({"submit", "cancel", "receive"})


def persons_own_yes(ctx: Context) -> bool:
    """Her message itself is a yes (and not a no): the server's hearing, never a model's report."""
    return lexicon.is_yes(ctx.message) and not lexicon.is_no(ctx.message)


def _from_a_model(proposal: Proposal) -> bool:
    return (proposal.brain or "rules") != "rules"


def dispose(job: Job) -> Outcome:
    if _from_a_model(job.proposal) and job.action.name in PERSON_EVENTS and not persons_own_yes(job.ctx):
        # What the last agent turn asked is not answered yes: the handler asks her again, and fires nothing.
        job.ctx = replace(job.ctx, confirming=None)
        job.model_unconfirmed = True
    handler = HANDLERS.get(job.action.name)
    if handler is None:
        return _refused(job, f"there is no action {job.action.name!r}. " + join(
            say("injection_approve", "en"), say("injection_limit", "en")))
    try:
        # Whichever brain proposed it, the action must fit its schema.
        job.proposal.action = parse_action(job.action.name, job.action.args())
    except InvalidAction as exc:
        return _refused(job, f"the proposed {job.action.name} does not fit its schema: {exc}",
                        reply=say("refused_unfit", job.lang))  # the schema's words stay in the record
    try:
        with transaction.atomic():
            out = handler(job)
    except DomainError as exc:
        # The handler's writes were rolled back; the session object may still point at them.
        job.session.refresh_from_db(fields=["task"])
        return _refusal(job, exc)
    return _with_draft_prompt(job, out)


def _refusal(job: Job, exc: DomainError) -> Outcome:
    if isinstance(exc, StaleVersion):
        task = job.session.task
        reply = say("stale", job.lang, state=task.state, version=task.version) if task else ""
        return _refused(job, str(exc), reply=reply)
    if isinstance(exc, (IllegalTransition, NotPermitted)):
        # The engine's own words ("Event 'cancel' is not allowed in state ...") stay in the turn's
        # record; she reads what they mean for her request (「請購目前為「已下單」，無法這樣做。」).
        with language(job.lang):
            reply = join(refusal(exc), say("nothing_changed", job.lang))
        return _refused(job, str(exc), reply=reply)
    # Any other refusal reads in her language (its code's words), as pages and the API read it; the
    # raise site's own sentence stays in the turn's record.
    with language(job.lang):
        worded = refusal(exc)
    return _refused(job, str(exc), reply=say("refused", job.lang, reason=_sentence(worded)))


def _sentence(text: str) -> str:
    return text if text.endswith((".", "?", "!", "。", "？")) else text + "."


def _refused(job: Job, reason: str, reply: str = "") -> Outcome:
    reason = _sentence(reason)
    return Outcome(reply=reply or say("refused", job.lang, reason=reason), did="none",
                   outcome="refused", reason=reason, task=job.session.task)


def _with_draft_prompt(job: Job, out: Outcome) -> Outcome:
    """After a draft changes (or is picked up), the runtime asks the next missing field, or
    shows the stored draft and asks to confirm: a confirmation binds to that draft version."""
    task = out.task
    wants = out.did in ("update_draft", "attach", "answer_quote") or job.proposal.expects == "draft"
    if task is None or task.state != workflow.DRAFT or out.outcome != "done" or not wants:
        return out
    if job.proposal.expects == "item_unknown":
        out.expects = "item"
        return out
    if job.proposal.expects == "needed_by":  # the question about a day gone by is the one asked
        out.expects = "needed_by"
        return out
    text, out.expects, out.confirming = draft_prompt(task, job.lang, job.ctx.departments, job.ctx.catalogue)
    out.reply = join(out.reply, text)
    return out


def draft_prompt(task: Task, lang: str, departments=(), catalogue=()) -> tuple[str, str, dict | None]:
    """(what to ask next about the draft, what the answer will be, what a yes confirms): an open
    question about its quote sheet first, then the next missing field, the tax basis of a cap,
    or the whole draft to confirm."""
    sheet_question = pending_text(task, lang, catalogue)
    if sheet_question:
        return sheet_question, "quote_question", None
    draft = task.data.get("draft") or {}
    gaps = drafts.missing(draft)
    estimate = None if gaps else drafts.tax_matters(draft)
    if gaps:
        return drafts.question_for(gaps[0], draft, lang, departments, catalogue), gaps[0], None
    if estimate:
        # A cap met or missed depending on tax: ask once which it is, before anything is confirmed.
        return say("tax_question", lang, cap=drafts.money(draft["budget"]), subtotal=drafts.money(estimate[0]),
                   total=drafts.money(estimate[1])), "budget_tax", None
    return drafts.confirm_prompt(draft, lang, catalogue), "confirm_submit", {"action": "submit", "task": str(task.pk),
                                                                  "version": task.version}


# -- handlers -------------------------------------------------------------------

def reply_only(job: Job) -> Outcome:
    offered = {t.id for t in job.ctx.candidates}
    question = getattr(job.action, "question", "")
    reply = job.proposal.reply if question in job.proposal.reply else join(job.proposal.reply, question)
    held = job.ctx.confirming if job.proposal.keep_confirming else None
    return Outcome(reply=reply, did=job.action.name, task=job.task(), expects=job.proposal.expects,
                   confirming=held, choices=tuple(c for c in job.proposal.choices if c in offered))


ANSWERS = {"status": status_reply, "po": po_reply, "change": change_reply, "supplier": supplier_reply,
           "money": money_reply, "nudge": nudge_reply, "arrival": receiving.arrival_reply,
           "invoice": receiving.invoice_reply}


def status(job: Job) -> Outcome:
    """A question about her requests, answered from State only; it creates and changes nothing.
    Asked while a draft waited for her 好, whichever brain took the question, the draft still
    waits, and the reply says so."""
    out = _status(job)
    out.expects, out.confirming = job.ctx.expects, job.ctx.confirming  # an aside: what was asked stays asked
    task = job.task()
    if out.expects == "confirm_submit" and out.confirming and task is not None and task.state == workflow.DRAFT \
            and out.about != str(task.pk):
        draft = task.data.get("draft") or {}
        out.reply = join(out.reply, say("draft_still_waiting", job.lang,
                                        what=drafts.describe_lines(draft.get("lines") or [], job.lang)))
    return out


def _status(job: Job) -> Outcome:
    action, lang = job.action, job.lang
    if action.topic == "list":
        # Her drafts are hers too (not the discarded ones): listed after the requests she sent.
        tasks = facts.my_requests(job.user, open_only=action.open_only, drafts=True)
        more = facts.my_requests_count(job.user, open_only=action.open_only, drafts=True) - len(tasks) \
            if len(tasks) == facts.RECENT_REQUESTS else 0
        tasks = sorted(tasks, key=lambda t: t.state == workflow.DRAFT)  # newest first within each
        # What a request waiting for her answer asks is said with the list, so she can answer it next.
        asking = [t for t in tasks if t.state == workflow.AWAITING_INPUT]
        return Outcome(reply=join(list_reply(tasks, lang, open_only=action.open_only, more=more),
                                  *(change_reply(t, lang) for t in asking)),
                       did="status", task=job.task(), about=asking[0].id if len(asking) == 1 else "")
    if action.topic == "stock":  # about what can be bought, not about one of her requests
        return Outcome(reply=stock_reply(action.item, job.ctx.catalogue, lang), did="status", task=job.task())
    target, not_found = _target(job, action, prefer_submitted=action.topic in ("po", "why", "change", "supplier", "nudge"))
    if not_found:
        return Outcome(reply=not_found, did="status", task=job.task())
    if target is None:
        reply = {"unknown": lambda: unknowable_reply(None, lang), "unclear": lambda: say("unclear_none", lang)}.get(
            action.topic, lambda: list_reply([], lang, open_only=True))()
        return Outcome(reply=reply, did="status", task=job.task())
    if action.topic == "why":
        reply = why_reply(target, lang)
    elif action.topic == "unknown":
        reply = unknowable_reply(target, lang)
    elif action.topic == "unclear":
        reply = join(say("unclear", lang), status_reply(target, lang))
    else:
        reply = ANSWERS[action.topic](target, lang)
    return Outcome(reply=reply, did="status", task=job.task(), about=target.id)


def _target(job: Job, action, *, prefer_submitted: bool = False, open_first: bool = False
            ) -> tuple[TaskView | None, str]:
    """(the request the question points at, "" ) or (None, a not-found answer that reveals nothing)."""
    lang = job.lang
    if action.task_id or action.ref:
        task_id = action.task_id or _by_number(job.user, action.ref)
        seen = _read_this_turn(job, task_id)
        if seen is not None:
            return seen, ""
        owned = bool(task_id) and selectors.own_tasks(job.user).filter(pk=task_id).exists()
        if not owned:
            return None, say("not_found_ref", lang, ref=action.ref or action.task_id[:8])
        return facts.view_of(task_id), ""
    if action.item:
        item = match_item(action.item, job.ctx.catalogue)
        mine = [job.ctx.task] if job.ctx.task and job.ctx.task.state != workflow.DRAFT else []
        views = [*mine, *job.ctx.requests]
        if open_first:
            views.sort(key=lambda v: v.state in workflow.AGENT_DONE)
        found = _naming(views, item, job.ctx.catalogue) or _naming(_her_drafts(job), item, job.ctx.catalogue)
        if found is not None:
            return found, ""
        return None, say("not_found_item", lang, item=drafts.item_name(item or action.item, lang))
    current = job.task()
    wanted = {"why": lambda v: v.decision.get("status") in ("rejected", "returned") or v.state == workflow.NEEDS_REVIEW,
              "change": lambda v: v.state == workflow.AWAITING_INPUT}.get(action.topic)
    if job.ctx.about and (current is None or job.ctx.about != str(current.pk)):
        # 「REQ-2026-00004 到哪了」 then 「採購單號是多少？」: the request the last answer was about,
        # unless the question looks for another kind (「另一張為什麼被退回？」 after the ordered one).
        about = _read_this_turn(job, job.ctx.about)
        if about is None and selectors.own_tasks(job.user).filter(pk=job.ctx.about).exists():
            about = facts.view_of(job.ctx.about)
        if about is not None and (wanted is None or wanted(about)):
            return about, ""
    if current is not None and not (prefer_submitted and current.state == workflow.DRAFT and job.ctx.requests):
        return task_view(current), ""
    # "Why was it returned?" with no name: the newest request that was returned or rejected.
    fitting = [v for v in job.ctx.requests if wanted and wanted(v)] or list(job.ctx.requests)
    return (fitting[0], "") if fitting else (None, "")  # read this turn, with the context


def _read_this_turn(job: Job, task_id) -> TaskView | None:
    """Her request `task_id` as the context read it this turn, if it did: her recent and open
    requests are read through the one read layer (selectors.own_tasks), so they are hers to see."""
    wanted = str(task_id or "")
    return next((view for view in (*job.ctx.requests, *job.ctx.candidates) if view.id == wanted), None) \
        if wanted else None


def _naming(views, item: str, catalogue) -> TaskView | None:
    """The first request among `views` with a line for `item`."""
    return next((view for view in views
                 if any(match_item(line["description"], catalogue) == item for line in view.lines)), None)


def _her_drafts(job: Job):
    """Her drafts are her requests too (「我的筆電那張呢」 with only a laptop draft): this conversation's
    first, then the open ones the context read, then the rest of her drafts (read only if need be)."""
    if job.ctx.task and job.ctx.task.state == workflow.DRAFT:
        yield job.ctx.task
    yield from (v for v in job.ctx.candidates if v.state == workflow.DRAFT)
    yield from (v for v in facts.my_requests(job.user, open_only=True, drafts=True) if v.state == workflow.DRAFT)


def _by_number(user, ref: str) -> str:
    """The task behind a request number (REQ-2026-00042) or an ERP requisition or PO number,
    among the caller's own requests only."""
    return selectors.own_task_by_ref(user, ref)


def update_draft(job: Job) -> Outcome:
    fields = _checked_fields(job, job.action.fields)
    task = job.task()
    drafted = (task.data.get("draft") or {}) if task is not None and task.state == workflow.DRAFT else {}
    if not drafted.get("department") and "department" not in fields and len(job.ctx.departments) == 1:
        fields["department"] = job.ctx.departments[0]  # her one department, from Membership, whichever brain
    if task is None or task.state in workflow.AGENT_DONE:
        task = services.request_draft_save(requester=job.user, fields=fields, session=job.session)
    elif task.state == workflow.DRAFT:
        _own(job, task)
        job.same_as_seen(task)
        task = services.request_draft_save(requester=job.user, fields=fields, draft=task)
    else:
        raise Conflict(say("in_progress", job.lang, state=state_words(task.state, job.lang)))
    return Outcome(reply=job.proposal.reply, did="update_draft", task=task, expects=job.proposal.expects)


def submit(job: Job) -> Outcome:
    task = _current(job)
    get_kind(task.kind).transition(task.state, "submit")  # the table: only a draft is submitted
    _own(job, task)
    job.same_as_seen(task)
    draft = task.data.get("draft") or {}
    gaps = drafts.missing(draft)
    if gaps:
        raise DomainError(said=said_code("draft_incomplete", fields=list(gaps)))
    sheet_question = pending_text(task, job.lang, job.ctx.catalogue)
    if sheet_question:  # the quote sheet's questions come first; nothing is submitted
        return Outcome(reply=join(words.say("still_open", job.lang, filename=task.data["quote_sheet"]["file"]["filename"]),
                                  sheet_question), did="none", outcome="confirm", task=task, expects="quote_question")
    confirmed = {"action": "submit", "task": str(task.pk), "version": task.version}
    if job.ctx.confirming != confirmed:
        # Nobody has said yes to this exact draft: show it and ask, do not submit.
        return Outcome(reply=drafts.confirm_prompt(draft, job.lang, job.ctx.catalogue), did="none", outcome="confirm", task=task,
                       expects="confirm_submit", confirming=confirmed)
    lines = _checked_lines(job, draft["lines"], complete=True)
    task = services.request_submit(
        requester=job.user, department=draft["department"], lines=lines,
        justification=drafts.justification_submitted(draft, job.lang), budget=drafts.cap_incl_tax(draft),
        session=job.session, draft=task)
    return Outcome(reply=join(job.proposal.reply, say("submitted", job.lang)), did="submit", task=task, lines=lines)


def attach(job: Job) -> Outcome:
    task = selectors.task_for(job.user, job.action.task_id)
    _own(job, task)  # a manager may see it, but only its requester continues it
    if task.state in workflow.AGENT_DONE:
        raise Conflict(said=said_code("request_closed", state=task.state))
    current = job.task()
    if current is not None and current.pk != task.pk and current.state not in workflow.AGENT_DONE:
        raise Conflict(said=said_code("conversation_follows_another"))
    job.session.task = task
    job.session.save(update_fields=["task", "updated_at"])
    reply = job.proposal.reply or say("attached", job.lang)
    if task.state != workflow.DRAFT:
        reply = join(reply, status_reply(task_view(task), job.lang))
    return Outcome(reply=reply, did="attach", task=task)


def amend(job: Job) -> Outcome:
    task = _amend_target(job)
    if task.state == workflow.DRAFT:  # a draft's edits are its own event in the table
        return update_draft(job)
    get_kind(task.kind).transition(task.state, "amend")
    _own(job, task)
    if task.pk == job.session.task_id:
        job.same_as_seen(task)
    else:
        _same_as_listed(job, task)
    fields = job.action.fields
    lines = _checked_lines(job, fields["lines"], complete=True) if "lines" in fields else None
    answering = task.state == workflow.AWAITING_INPUT and lines is None
    added = _added_lines(job, task, lines) if task.state == workflow.AWAITING_APPROVAL else []
    confirmed = {"action": "amend", "task": str(task.pk), "fields": fields}
    if added and job.ctx.confirming != confirmed:
        # 「另外我還要一張辦公椅」 while the manager looks at it: one more item takes the request back
        # from him, and may be meant as a purchase of its own. She says which first.
        view = task_view(task)
        reply = say("confirm_add", job.lang, added=drafts.describe_lines(added, job.lang),
                    number=name_of(view, job.lang), what=drafts.describe_lines(view.lines, job.lang))
        return Outcome(reply=reply, did="none", outcome="confirm", task=job.task() or task, expects="confirm_amend",
                       confirming=confirmed, about=str(task.pk))
    task = services.request_amend(
        task_id=task.pk, user=job.user, expected_version=task.version, lines=lines,
        justification=fields.get("justification"), answer=fields.get("answer"),
        budget=Decimal(fields["budget"]) if fields.get("budget") else None)
    what = drafts.describe_lines(facts.view_of(task.pk).lines, job.lang)
    said = [say("answered", job.lang)] if answering or fields.get("answer") else []
    if not answering:  # her answer changed the items too: both are said
        said.append(say("amended", job.lang, what=what, revision=task.data.get("revision")))
    return Outcome(reply=join(job.proposal.reply, *said), did="amend", task=task, about=str(task.pk))


def _added_lines(job: Job, task: Task, lines: list[dict] | None) -> list[dict]:
    """The lines of items the request does not have yet."""
    if not lines:
        return []
    catalogue = job.ctx.catalogue
    has = {match_item(line["description"], catalogue) for line in task_view(task).lines}
    return [line for line in lines if match_item(line["description"], catalogue) not in has]


def _amend_target(job: Job) -> Task:
    """This conversation's open request; failing that, the one the last answer was about
    (「為什麼被退回？」 then 「好，改回兩台」 in a new conversation)."""
    task = job.task()
    if task is not None and task.state not in workflow.AGENT_DONE:
        return task
    if job.ctx.about:
        about = selectors.own_tasks(job.user).filter(pk=job.ctx.about).first()
        if about is not None:
            return about
    return _current(job)


def _same_as_listed(job: Job, task: Task):
    seen = next((t for t in job.ctx.requests if t.id == str(task.pk)), None)
    if seen is None or seen.version != task.version:
        raise StaleVersion(f"Proposed for version {seen and seen.version}, found {task.version}.")


def cancel(job: Job) -> Outcome:
    action = job.action
    if action.task_id or action.ref or action.item:
        view, not_found = _target(job, action, open_first=True)
        if not_found or view is None:
            return Outcome(reply=not_found or say("no_open_task", job.lang), did="none", outcome="refused",
                           task=job.task())
        task = Task.objects.get(pk=view.id)
    elif job.ctx.expects == "confirm_cancel" and job.ctx.confirming and job.ctx.confirming.get("action") == "cancel":
        task = selectors.own_tasks(job.user).filter(pk=job.ctx.confirming["task"]).first() or _current(job)
    else:
        task = _current(job)
    get_kind(task.kind).transition(task.state, "cancel")
    _own(job, task)
    confirmed = {"action": "cancel", "task": str(task.pk)}
    if (task.state != workflow.DRAFT or job.model_unconfirmed) and job.ctx.confirming != confirmed:
        # Cancelling undoes work outside (the ERP requisition): the requester says yes first (and to a
        # model's proposal, even for a draft).
        view = task_view(task)
        reply = say("confirm_cancel", job.lang, number=name_of(view, job.lang),
                    what=drafts.describe_lines(view.lines, job.lang), state=state_words(task.state, job.lang))
        return Outcome(reply=reply, did="none", outcome="confirm", task=job.task() or task, expects="confirm_cancel",
                       confirming=confirmed, about=str(task.pk))
    discarded = task.state == workflow.DRAFT  # never submitted: the draft is thrown away, not a request cancelled
    task = services.request_cancel(task_id=task.pk, user=job.user, reason=said_code("cancelled_in_chat"))
    return Outcome(reply=join(job.proposal.reply, say("draft_discarded" if discarded else "cancelled", job.lang)),
                   did="cancel", task=task, about=str(task.pk))


def propose_memory(job: Job) -> Outcome:
    entry_id = memory_seam.propose(job.user, content=job.action.content, kind=job.action.kind,
                                   session=job.session, turn=job.user_turn)
    if entry_id is None:
        return Outcome(reply=say("memory_unavailable", job.lang), did="none", outcome="unavailable",
                       task=job.task())
    task = job.task()  # "this request is not changed" only where there is one
    return Outcome(reply=say("memory_proposed" if task else "memory_proposed_alone", job.lang,
                   text=entry_words(job.action.content)),
                   did="propose_memory", task=task)


def answer_quote(job: Job) -> Outcome:
    """Her answer to the quote sheet's open question: the row left out, confirmed or corrected."""
    task = _current(job)
    _own(job, task)
    job.same_as_seen(task)
    if task.state != workflow.DRAFT:
        raise Conflict(said=said_code("request_closed", state=task.state))
    action = job.action
    question = next((q for q in open_questions(task.data.get("quote_sheet")) if q["n"] == action.n), None)
    if question is None:
        raise Conflict("That question about the quote sheet is already answered.")
    try:
        sheet = quote_question_answer(task=task, user=job.user, n=action.n, action=action.answer, value=action.value,
                                      expected_version=task.version)
    except SheetAnswerRefused as exc:
        refused = words.say("bad_tax_id", job.lang, tax_id=action.value) if exc.extra.get("tax_id") else \
            words.say("again", job.lang)
        return Outcome(reply=join(refused, pending_text(task, job.lang, job.ctx.catalogue)), did="none",
                       outcome="refused", reason=str(exc), task=task, expects="quote_question")
    task = Task.objects.get(pk=task.pk)
    reply = sheet_words.answered_reply(question, action.answer, action.value, job.lang)
    if not open_questions(sheet):
        reply = join(reply, sheet_words.resolved_reply(sheet, job.lang))
    return Outcome(reply=reply, did="answer_quote", task=task)


def receive(job: Job) -> Outcome:
    """What arrived on one of her ordered requests: shown first, recorded through the receiving
    service only when her own yes answers that very preview (the task's version and lines)."""
    action = job.action
    # Hers (the one read layer), with what came and was billed; the request as the context read it
    # this turn, unless it moved since.
    seen = _read_this_turn(job, action.task_id)
    task = facts.own_task(job.user, action.task_id, progress_only=seen is not None)
    if task is None:
        raise NotFound("No such task.")
    view = facts.task_view(task) if seen is None else seen if seen.version == task.version else facts.view_of(task.pk)
    if task.state != workflow.CONFIRMED:
        return Outcome(reply=receiving.arrival_reply(view, job.lang), did="none", outcome="refused",
                       reason="not receivable", task=job.task(), about=view.id)
    planned = receiving.plan(task, action, view, job.lang, job.ctx.catalogue)
    if planned.refusal:
        return Outcome(reply=planned.refusal, did="none", outcome="refused", reason=planned.refusal,
                       task=job.task(), about=view.id)
    confirmed = {"action": "receive", "task": view.id, "version": task.version, "lines": planned.lines}
    if job.ctx.confirming != confirmed:
        return Outcome(reply=receiving.preview(task, view, planned.lines, job.lang), did="none", outcome="confirm",
                       task=job.task(), expects="confirm_receipt", confirming=confirmed, about=view.id)
    goods_receipt_record(task_id=task.pk, user=job.user, lines=planned.lines)
    return Outcome(reply=receiving.recorded(task.pk, view, planned.lines, job.lang), did="receive",
                   task=job.task(), about=view.id)


HANDLERS = {"receive": receive, "none": reply_only, "ask": reply_only, "status": status, "update_draft": update_draft,
            "submit": submit, "attach": attach, "amend": amend, "cancel": cancel, "propose_memory": propose_memory,
            "answer_quote": answer_quote}


# -- checks -----------------------------------------------------------------------

def _current(job: Job) -> Task:
    task = job.task()
    if task is None:
        raise Conflict(said=said_code("conversation_without_request"))
    return task


def _own(job: Job, task: Task):
    if not selectors.is_requester(job.user, task):
        raise NotFound("No such task.")


def _checked_fields(job: Job, fields: dict) -> dict:
    fields = dict(fields)
    if "lines" in fields:
        fields["lines"] = _checked_lines(job, fields["lines"], complete=False)
    if fields.get("budget") is not None and Decimal(fields["budget"]) <= 0:
        raise DomainError(said=said_code("cap_not_positive"))
    if fields.get("needed_by"):
        _checked_day(job, fields["needed_by"])
    code = fields.get("department")
    if code:
        member = code in job.ctx.departments or (job.user.is_superuser and Department.objects.filter(code=code)
                                                 .exists())
        if not member:
            raise DomainError(say("not_member", job.lang, name=drafts.department_name(code, job.lang)).rstrip("."))
    return fields


def _checked_day(job: Job, text: str):
    """A need-by day is a real day, today or later (whichever brain proposed it)."""
    try:
        day = date.fromisoformat(text)
    except ValueError:
        raise DomainError(f"{text} is not a day") from None
    if day < dates.today():
        raise DomainError(say("date_past", job.lang, said=text, today=dates.day_words(dates.today(), job.lang)))


def _checked_lines(job: Job, lines: list[dict], *, complete: bool) -> list[dict]:
    """Lines name items somebody quotes, by their catalogue name; nothing is priced here."""
    unknown = drafts.unknown_items(lines, job.ctx.catalogue)
    if unknown:
        raise DomainError(say("unknown_item", job.lang, what=listed(unknown, job.lang),
                                      items=drafts.catalogue_words(job.ctx.catalogue, job.lang)))
    checked = [{"description": match_item(line["description"], job.ctx.catalogue),
                "quantity": line.get("quantity")} for line in lines]
    if complete and any(not line["quantity"] for line in checked):
        raise DomainError(said=said_code("quantity_needed"))
    return checked

"""The model proposes, the runtime disposes: each proposed action is checked against the
transition table, the caller's rights and what the requester confirmed, then carried out
through `procurement.services` (which check again). Anything else is refused, plainly."""
from dataclasses import dataclass, field
from decimal import Decimal

from django.db import transaction

from agentstate.errors import Conflict, DomainError, NotFound, StaleVersion
from agentstate.kinds import get_kind
from agentstate.models import Session, Task, Turn

from .. import services, workflow
from ..models import Department
from ..pricing import match_item
from . import draft as drafts
from . import memory_seam
from .brain import Context, InvalidAction, Proposal, parse_action
from .context import open_tasks, task_view
from .phrases import join, say
from .status import open_tasks_reply, state_words, status_reply


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


@dataclass
class Job:
    proposal: Proposal
    ctx: Context
    session: Session               # locked for this turn
    user: object
    user_turn: Turn
    lang: str = field(init=False)

    def __post_init__(self):
        self.lang = self.ctx.lang

    @property
    def action(self):
        return self.proposal.action

    def task(self) -> Task | None:
        return self.session.task

    def same_as_seen(self, task: Task):
        """The task must still be the version the brain was shown; otherwise it proposed blind."""
        if self.ctx.task is None or self.ctx.task.id != str(task.pk) or self.ctx.task.version != task.version:
            raise StaleVersion(f"Proposed for version {self.ctx.task and self.ctx.task.version}, "
                               f"found {task.version}.")


def dispose(job: Job) -> Outcome:
    handler = HANDLERS.get(job.action.name)
    if handler is None:
        return _refused(job, f"there is no action {job.action.name!r}. " + join(
            say("injection_approve", "en"), say("injection_limit", "en")))
    try:
        # Whichever brain proposed it, the action must fit its schema.
        job.proposal.action = parse_action(job.action.name, job.action.args())
    except InvalidAction as exc:
        return _refused(job, f"the proposed {job.action.name} does not fit its schema: {exc}")
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
    return _refused(job, str(exc))


def _refused(job: Job, reason: str, reply: str = "") -> Outcome:
    reason = reason if reason.endswith((".", "?", "!", "。", "？")) else reason + "."
    return Outcome(reply=reply or say("refused", job.lang, reason=reason), did="none",
                   outcome="refused", reason=reason, task=job.session.task)


def _with_draft_prompt(job: Job, out: Outcome) -> Outcome:
    """After a draft changes (or is picked up), the runtime asks the next missing field, or
    shows the stored draft and asks to confirm: a confirmation binds to that draft version."""
    task = out.task
    wants = out.did in ("update_draft", "attach") or job.proposal.expects == "draft"
    if task is None or task.state != workflow.DRAFT or out.outcome != "done" or not wants:
        return out
    if job.proposal.expects == "item_unknown":
        out.expects = "item"
        return out
    draft = task.data.get("draft") or {}
    gaps = drafts.missing(draft)
    if gaps:
        out.reply = join(out.reply, drafts.question_for(gaps[0], draft, job.lang, job.ctx.departments))
        out.expects = gaps[0]
    else:
        out.reply = join(out.reply, drafts.confirm_prompt(draft, job.lang))
        out.expects, out.confirming = "confirm_submit", {"action": "submit", "task": str(task.pk),
                                                         "version": task.version}
    return out


# -- handlers -------------------------------------------------------------------

def reply_only(job: Job) -> Outcome:
    offered = {t.id for t in job.ctx.candidates}
    question = getattr(job.action, "question", "")
    reply = job.proposal.reply if question in job.proposal.reply else join(job.proposal.reply, question)
    return Outcome(reply=reply, did=job.action.name,
                   task=job.task(), expects=job.proposal.expects,
                   choices=tuple(c for c in job.proposal.choices if c in offered))


def status(job: Job) -> Outcome:
    # From State only: whatever the brain wrote is not used.
    task = job.task()
    reply = status_reply(task_view(task), job.lang) if task else open_tasks_reply(open_tasks(job.user), job.lang)
    return Outcome(reply=reply, did="status", task=task)


def update_draft(job: Job) -> Outcome:
    fields = _checked_fields(job, job.action.fields)
    task = job.task()
    if task is None or task.state in workflow.TERMINAL:
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
        raise DomainError(f"The draft is not complete yet (missing: {', '.join(gaps)})")
    confirmed = {"action": "submit", "task": str(task.pk), "version": task.version}
    if job.ctx.confirming != confirmed:
        # Nobody has said yes to this exact draft: show it and ask, do not submit.
        return Outcome(reply=drafts.confirm_prompt(draft, job.lang), did="none", outcome="confirm", task=task,
                       expects="confirm_submit", confirming=confirmed)
    lines = _checked_lines(job, draft["lines"], complete=True)
    task = services.request_submit(
        requester=job.user, department=draft["department"], lines=lines, justification=draft["justification"],
        budget=Decimal(draft["budget"]) if draft.get("budget") else None, session=job.session, draft=task)
    return Outcome(reply=join(job.proposal.reply, say("submitted", job.lang)), did="submit", task=task)


def attach(job: Job) -> Outcome:
    task = services.task_for(job.user, job.action.task_id)
    _own(job, task)  # a manager may see it, but only its requester continues it
    if task.state in workflow.TERMINAL:
        raise Conflict(f"That request is already {task.state}; it cannot be continued")
    current = job.task()
    if current is not None and current.pk != task.pk and current.state not in workflow.TERMINAL:
        raise Conflict("This conversation already follows another open request; open a new conversation")
    job.session.task = task
    job.session.save(update_fields=["task", "updated_at"])
    reply = job.proposal.reply or say("attached", job.lang)
    if task.state != workflow.DRAFT:
        reply = join(reply, status_reply(task_view(task), job.lang))
    return Outcome(reply=reply, did="attach", task=task)


def amend(job: Job) -> Outcome:
    task = _current(job)
    if task.state == workflow.DRAFT:  # a draft's edits are its own event in the table
        return update_draft(job)
    get_kind(task.kind).transition(task.state, "amend")
    _own(job, task)
    job.same_as_seen(task)
    fields = job.action.fields
    lines = _checked_lines(job, fields["lines"], complete=True) if "lines" in fields else None
    answering = task.state == workflow.AWAITING_INPUT and lines is None
    task = services.request_amend(
        task_id=task.pk, user=job.user, expected_version=task.version, lines=lines,
        justification=fields.get("justification"),
        budget=Decimal(fields["budget"]) if fields.get("budget") else None)
    reply = say("answered", job.lang) if answering else say("amended", job.lang, revision=task.data.get("revision"))
    return Outcome(reply=join(job.proposal.reply, reply), did="amend", task=task)


def cancel(job: Job) -> Outcome:
    task = _current(job)
    get_kind(task.kind).transition(task.state, "cancel")
    _own(job, task)
    confirmed = {"action": "cancel", "task": str(task.pk)}
    if task.state != workflow.DRAFT and job.ctx.confirming != confirmed:
        # Cancelling undoes work outside (the ERP requisition): the requester says yes first.
        what = drafts.describe_lines(task_view(task).lines, job.lang)
        reply = say("confirm_cancel", job.lang, what=what, state=state_words(task.state, job.lang))
        return Outcome(reply=reply, did="none", outcome="confirm", task=task, expects="confirm_cancel",
                       confirming=confirmed)
    task = services.request_cancel(task_id=task.pk, user=job.user, reason="cancelled in chat")
    return Outcome(reply=join(job.proposal.reply, say("cancelled", job.lang)), did="cancel", task=task)


def propose_memory(job: Job) -> Outcome:
    entry_id = memory_seam.propose(job.user, content=job.action.content, kind=job.action.kind,
                                   session=job.session, turn=job.user_turn)
    if entry_id is None:
        return Outcome(reply=say("memory_unavailable", job.lang), did="none", outcome="unavailable",
                       task=job.task())
    return Outcome(reply=say("memory_proposed", job.lang, id=entry_id), did="propose_memory", task=job.task())


HANDLERS = {"none": reply_only, "ask": reply_only, "status": status, "update_draft": update_draft,
            "submit": submit, "attach": attach, "amend": amend, "cancel": cancel, "propose_memory": propose_memory}


# -- checks -----------------------------------------------------------------------

def _current(job: Job) -> Task:
    task = job.task()
    if task is None:
        raise Conflict("This conversation has no request yet")
    return task


def _own(job: Job, task: Task):
    if task.initiator_id != job.user.pk:
        raise NotFound("No such task.")


def _checked_fields(job: Job, fields: dict) -> dict:
    fields = dict(fields)
    if "lines" in fields:
        fields["lines"] = _checked_lines(job, fields["lines"], complete=False)
    if fields.get("budget") is not None and Decimal(fields["budget"]) <= 0:
        raise DomainError("A budget cap must be above zero")
    code = fields.get("department")
    if code:
        member = code in job.ctx.departments or (job.user.is_superuser and Department.objects.filter(code=code)
                                                 .exists())
        if not member:
            raise DomainError(say("not_member", job.lang, code=code).rstrip("."))
    return fields


def _checked_lines(job: Job, lines: list[dict], *, complete: bool) -> list[dict]:
    """Lines name items somebody quotes, by their catalogue name; nothing is priced here."""
    unknown = drafts.unknown_items(lines, job.ctx.catalogue)
    if unknown:
        raise DomainError(say("unknown_item", job.lang, what=", ".join(unknown), items=", ".join(job.ctx.catalogue)))
    checked = [{"description": match_item(line["description"], job.ctx.catalogue),
                "quantity": line.get("quantity")} for line in lines]
    if complete and any(not line["quantity"] for line in checked):
        raise DomainError("Every line needs a quantity")
    return checked

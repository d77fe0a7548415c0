"""Purchase-request services: what the API, the pages, the chat and admin all call."""
from decimal import Decimal

from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils.translation import gettext as _

from agentstate.actors import Actor
from agentstate.approvals import approval_decide as engine_decide
from agentstate.errors import DomainError, StaleVersion
from agentstate.kinds import APPROVER
from agentstate.machine import fire, task_create, task_retag
from agentstate.models import Approval, Task
from agentstate.said import Said, say

from procurement.purchase import budget
from procurement import workflow
from procurement.models import Department, Membership, PurchaseRequest, RequestLine
from procurement.purchase.numbering import request_number_next
from procurement.purchase.pricing import asking
from procurement.infra.queueing import enqueue_advance, enqueue_exception_decided, notify_on_commit
from procurement.words.changes import what_changed
from procurement.selectors import forks
from procurement.selectors.grants import grant_requester
from procurement.selectors.tasks import task_for, task_to_change  # noqa: F401 (task_for: older imports)
from procurement.purchase.settling import cancel_settled


def request_draft_save(*, requester, fields: dict, draft: Task | None = None, session=None) -> Task:
    """Intake's working copy, before anything happens outside: a task in `draft`.

    `fields` (department, lines, justification, budget, notes) are merged into the draft."""
    if draft is None:
        with transaction.atomic():
            draft = task_create(kind=workflow.KIND, initiator=requester, tenant=fields.get("department") or "",
                                data={"revision": 1, "draft": fields}, reason=say("draft_started"))
            if session is not None:
                session.task = draft
                session.save(update_fields=["task", "updated_at"])
        return draft
    merged = {**draft.data.get("draft", {}), **fields}
    return fire(draft.pk, "update_draft", actor=requester, expected_version=draft.version, data={"draft": merged})


def request_submit(*, requester, department: str, lines: list[dict], justification: str,
                   budget: Decimal | None = None, session=None, draft: Task | None = None,
                   needed_by: str = "", notes: list[str] | None = None) -> Task:
    """A confirmed purchase request: the task moves to `received`, queued for the agent.

    From chat, `draft` is the task intake has been filling in; otherwise a task is created.
    `needed_by` (ISO day) and `notes` (specs) from the new-request page are kept where the chat
    keeps them, in the task's draft, which the PO, its PDF and the arrival check read."""
    # The department and whether she files for it, in one read.
    dept = Department.objects.filter(code=department).annotate(
        member=Exists(Membership.objects.filter(user=requester, department=OuterRef("pk")))).first()
    if dept is None:
        refused = say("unknown_department", department=department)
        raise DomainError(said=refused, errors={"department": [str(refused)]})
    if not requester.is_superuser and not dept.member:
        refused = say("not_a_member", department=dept.code)
        raise DomainError(said=refused, errors={"department": [str(refused)]})
    with transaction.atomic():
        if draft is None:
            said = {key: value for key, value in (("needed_by", needed_by), ("notes", list(notes or []))) if value}
            task = task_create(kind=workflow.KIND, initiator=requester, tenant=dept.code,
                               data={"revision": 1, "justification": justification} | ({"draft": said} if said else {}))
        else:
            # The draft goes to the department it is made for: who may see it follows (a new version;
            # the event's label says it, and its data holds both departments).
            task = draft if draft.tenant == dept.code else task_retag(
                draft.pk, dept.code, actor=requester, expected_version=draft.version)
        request = PurchaseRequest.objects.create(task=task, number=request_number_next(), department=dept,
                                                 requester=requester, justification=justification, budget=budget)
        _write_lines(request, lines)
        grant_requester(task, requester)
        # The task in hand, if read through with_checkpoint (the chat's draft), is not read again.
        task = fire(task.pk, "submit", actor=requester, expected_version=task.version, reason=say("request_confirmed"),
                    seen=task)
        if session is not None:
            held = session.task_id == task.pk  # a draft from chat: the conversation holds it already
            session.task = task
            if not held:
                session.save(update_fields=["task", "updated_at"])
        enqueue_advance(task.pk)
    return task


NO_QUESTION = say("no_open_question")


def request_amend(*, task_id, user, expected_version: int | None = None, lines: list[dict] | None = None,
                  justification: str | None = None, budget: Decimal | None = None, answer: str | None = None) -> Task:
    """New version: pending approvals become stale, the old requisition will be cancelled.

    `answer`: her words in reply to the open question (an approver's return, or the agent's),
    kept on the move's event with the question, so the next approver reads both."""
    task = task_to_change(user, task_id)
    answering = task.state == workflow.AWAITING_INPUT
    if answer and not answering:
        raise DomainError(said=NO_QUESTION, errors={"answer": [str(NO_QUESTION)]})
    with transaction.atomic():
        request = PurchaseRequest.objects.select_for_update(no_key=True).get(task=task)
        revision = task.data.get("revision", 1) + 1
        # The old award and requisition priced the old version: nobody may read them as current
        # (the API, the pages, a status answer) until the agent has re-awarded.
        data = {"revision": revision, "award": None, "requisition": None}
        said = {}
        if answering and answer:
            said = {"question": task.data.get("question") or "", "asked": task.data.get("asked"), "answer": answer}
        if justification is not None and justification != request.justification:
            said["purpose"] = {"before": request.justification, "after": justification}
        if justification is not None:
            request.justification = data["justification"] = justification
        if budget is not None:
            request.budget = budget
        event = "answer" if answering and lines is None else "amend"
        task = fire(task.pk, event, actor=user, expected_version=expected_version, data=data,
                    reason=say("amended", revision=revision), event_data=said)
        request.save(update_fields=["justification", "budget"])
        if lines is not None:
            request.lines.all().delete()
            _write_lines(request, lines)
        enqueue_advance(task.pk)
    return task


def request_cancel(*, task_id, user, reason: Said | str = "", expected_version: int | None = None) -> Task:
    """Cancel while cancellable. In review, what is in doubt is settled first, and a task whose
    order the ERP holds ends `externally_confirmed`, never `cancelled` (settling.cancel_settled).
    `expected_version`: the version the person saw; a task that moved since is refused (409)."""
    task = task_to_change(user, task_id, cancel=True)
    if expected_version is not None and task.version != expected_version:
        raise StaleVersion(what_changed(task, expected_version), current_version=task.version)
    if task.state == workflow.NEEDS_REVIEW:
        return cancel_settled(task=task, actor=user, reason=reason or say("cancelled_by_requester"),
                              note=reason if isinstance(reason, str) else "",
                              expected_version=expected_version)[0]
    with transaction.atomic():
        task = fire(task.pk, "cancel", actor=user, reason=reason or say("cancelled_by_requester"),
                    expected_version=expected_version)
        enqueue_advance(task.pk)
        notify_on_commit(task.pk)
    return task


class BudgetRefused(DomainError):
    """An approval the department can no longer afford: nothing approved, the requester asked."""
    http_status = 409
    code = "budget_short"


def approval_decide(*, approval_id, user, decision: str, state_version: int, scope_hash: str | None = None,
                    comment: str = "", other_request: str = "") -> Approval:
    """Decide; with BUDGET_HOLD=soft an approval also makes the hard reservation, under the
    department row lock, in the same transaction: two approvals can never overspend.

    While a fork of the same request is alive (procurement.selectors.forks), approving asks
    `other_request`: "cancel" cancels the others in the same transaction, after the decision;
    "keep" keeps them, knowingly. Without an answer nothing is decided (400)."""
    relatives = _relatives_answered(approval_id, decision, other_request)
    try:
        with transaction.atomic():
            # A return's comment is the agent's open question to the requester, verbatim.
            data = {"question": comment, "asked": None} if decision == "return" else None
            approval = engine_decide(approval_id=approval_id, user=user, decision=decision,
                                     state_version=state_version, scope_hash=scope_hash, comment=comment, data=data)
            if approval.scope.get("kind") == workflow.INVOICE_EXCEPTION:
                # An invoice's exception: posted or refused by invoicing once this commits; no budget moves.
                enqueue_exception_decided(approval.pk)
                notify_on_commit(approval.task_id)
                return approval
            # The last step of a chain approves the request: only then is its budget reserved.
            if approval.status == Approval.Status.APPROVED and budget.hold_policy() == budget.SOFT:
                budget.budget_commit(task_id=approval.task_id, department_code=approval.task.tenant,
                                     amount=Decimal(approval.scope["total"]))
            enqueue_advance(approval.task_id)
            notify_on_commit(approval.task_id)
            if other_request == forks.CANCEL:
                _cancel_relatives(relatives, user, approval)
        return approval
    except budget.BudgetExhausted as short:
        _budget_short(approval_id=approval_id, user=user, state_version=state_version, short=short)


def _relatives_answered(approval_id, decision: str, other_request: str) -> list:
    """The live forks of the approval's request, once the approver has said what becomes of them."""
    if decision != "approve":
        return []
    task = Task.objects.filter(approvals__pk=approval_id).first()  # one read, through the approval
    if task is None:
        return []  # no such approval: the decision itself says so (404)
    relatives = forks.live_relatives(task)
    if not relatives:
        return []
    numbers = ", ".join(r.number for r in relatives)
    if other_request not in (forks.CANCEL, forks.KEEP):
        message = _("%(numbers)s tries to buy the same goods and is still open: say whether to cancel it "
                    "or keep both.") % {"numbers": numbers}
        raise DomainError(message, errors={"other_request": [message]})
    if other_request == forks.CANCEL and not all(r.cancellable for r in relatives):
        message = _("%(numbers)s cannot be cancelled from here (it is ordered, or in the work queue): keep both, "
                    "or cancel it there first.") % {"numbers": numbers}
        raise DomainError(message, errors={"other_request": [message]})
    return relatives


def _cancel_relatives(relatives: list, user, approval):
    """Cancel the other requests of the fork family, as the approver answered, after the decision."""
    number = getattr(approval.task, "purchase_request", None)
    number = number.number if number else ""
    for relative in relatives:
        fire(relative.task.pk, "cancel", actor=Actor(user=user, roles=frozenset({workflow.REVIEWER})),
             expected_version=relative.task.version,
             reason=say("cancelled_as_twin", who=user.get_username(), number=number))
        enqueue_advance(relative.task.pk)
        notify_on_commit(relative.task.pk)


def _budget_short(*, approval_id, user, state_version: int, short):
    """The approval was rolled back; the task goes where a budget refusal sends it (the
    requester is asked), and the approver is told why (409)."""
    task_id = Approval.objects.values_list("task_id", flat=True).get(pk=approval_id)
    with transaction.atomic():
        fire(task_id, "budget_short", actor=Actor(user=user, roles=frozenset({APPROVER})),
             expected_version=state_version, data=asking(short.said), reason=short.said)
        notify_on_commit(task_id)
    raise BudgetRefused(said=say("returned_budget_short", available=str(short.available), needed=str(short.needed)),
                        available=str(short.available), needed=str(short.needed))


def _write_lines(request: PurchaseRequest, lines: list[dict]):
    RequestLine.objects.bulk_create(
        RequestLine(request=request, position=n, description=line["description"], quantity=line["quantity"],
                    unit_price=line.get("unit_price")) for n, line in enumerate(lines, start=1))

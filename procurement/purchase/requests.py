"""The request as it stands now (DESIGN §3): one reading of a purchase task for the API, the
pages and the chat alike.

`request_now(task)` gives its number, lines, totals, supplier, purpose, state, what it waits
for and on whom, the purchase-order number and the open question. Lines are priced by the
current award; before there is one they are as requested, without prices; a draft's come from
its draft. `requests_of(user)` reads many of them in a constant number of queries.
"""
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal

from django.core.exceptions import ObjectDoesNotExist
from django.db.models import Prefetch, Q
from django.utils import dateformat, timezone
from django.utils.translation import gettext as _

from agentstate.models import Approval, Task

from procurement.models import RequestLine
from procurement.words import labels
from procurement import workflow
from procurement.purchase.progress import PROGRESS_READS, Progress, progress_of, standing_words
from procurement.words.people import approvers_words
from procurement.selectors.delegations import running_delegations

# What a task may be waiting for. The codes are public (API `waiting_on.kind`).
APPROVAL, ANSWER, CONFIRMATION, AGENT, ERP, REVIEW = "approval", "answer", "confirmation", "agent", "erp", "review"
OPEN, FINISHED, ALL = "open", "finished", "all"
# After the PO: how far the goods came shows on the request (progress).
AFTER_THE_ORDER = (workflow.CONFIRMED, workflow.CLOSED)


@dataclass(frozen=True)
class Line:
    description: str
    quantity: int | None
    unit_price: Decimal | None = None
    amount: Decimal | None = None


@dataclass(frozen=True)
class WaitingOn:
    """What the request waits for, on whom (usernames; empty for the agent or "a person"), since when."""
    kind: str
    people: tuple[str, ...]
    since: datetime
    # (person, their delegate) for each of `people` whose delegation runs today: the delegate may decide too.
    stand_ins: tuple[tuple[str, str], ...] = ()

    def text(self, viewer=None) -> str:
        """In the active language, e.g. "Waiting for bob's approval since 10:32"."""
        when = moment(self.since)
        yours = viewer is not None and self.people == (viewer.get_username(),)
        if self.kind == APPROVAL:
            return _("Waiting for approval by %(who)s since %(when)s") % {"who": self._who(), "when": when}
        if self.kind == ANSWER:
            if yours:
                return _("Waiting for your answer since %(when)s") % {"when": when}
            return _("Waiting for %(who)s to answer since %(when)s") % {"who": self._who(), "when": when}
        if self.kind == CONFIRMATION:
            if yours:
                return _("Waiting for you to confirm it in the chat, since %(when)s") % {"when": when}
            return _("Waiting for %(who)s to confirm it in the chat, since %(when)s") % {
                "who": self._who(), "when": when}
        if self.kind == ERP:
            return _("Waiting for the ERP to confirm the purchase order since %(when)s") % {"when": when}
        if self.kind == REVIEW:
            return _("Waiting for a person to review it since %(when)s") % {"when": when}
        return _("The agent is working on it since %(when)s") % {"when": when}

    def _who(self) -> str:
        """The people by name (procurement.words.people), only when the sentence names them."""
        return approvers_words(self.people, self.stand_ins)

    def as_json(self, viewer=None) -> dict:
        return {"kind": self.kind, "people": list(self.people), "since": timezone.localtime(self.since).isoformat(),
                "text": self.text(viewer)}


@dataclass(frozen=True)
class Question:
    """What the requester is asked: by the agent (`asked_by` empty) or by an approver who returned it."""
    text: str
    asked_by: str
    at: datetime
    asked: dict | None = None  # the agent's question as its code (agentstate.said), read in the reader's language


@dataclass(frozen=True)
class RequestNow:
    id: object
    number: str | None  # None only for a chat draft not yet confirmed
    version: int
    state: str
    department: str
    department_name: str  # in the reader's language when it is shown (labels.department_label)
    requester: str
    lines: tuple[Line, ...]
    supplier: str | None
    subtotal: Decimal | None
    tax: Decimal | None
    total: Decimal | None  # 含稅, once awarded
    budget: Decimal | None  # the requester's own cap
    justification: str
    waiting_on: WaitingOn | None
    po_number: str | None
    question: Question | None
    created_at: datetime
    updated_at: datetime
    # After the PO: per line ordered / received / invoiced (procurement.purchase.progress); else None.
    progress: Progress | None = None
    needed_by: date | None = None  # the day she needs it by, as the chat or the page heard it
    spec: tuple[str, ...] = ()  # what she said of the items beyond their names (「27吋」, "4K")

    @property
    def state_label(self) -> str:
        """The state in words; after the PO how far the goods came: 「部分到貨（2/3）」."""
        if self.state == workflow.CANCELLED and self.number is None:
            return labels.DISCARDED_DRAFT  # never submitted: thrown away, not a request cancelled
        return standing_words(self.state, self.progress) or labels.state_label(self.state)

    @property
    def summary(self) -> str:
        """"2 × Laptop, 1 × Monitor": the API's `summary`, in the stored (English) item names. People
        read `labels.items_summary(lines)`, in their language."""
        return ", ".join(f"{line.quantity or '?'} × {line.description}" for line in self.lines)

    @property
    def is_open(self) -> bool:
        return self.state not in workflow.TERMINAL


def named_in(rows) -> list[str]:
    """The usernames these requests' words name (whom they wait for, who stands in, who asked):
    for procurement.words.people.remember, so a list of them costs one query for the names."""
    names = []
    for row in rows:
        if row.waiting_on:
            names += [*row.waiting_on.people, *(delegate for _, delegate in row.waiting_on.stand_ins)]
        if row.question and row.question.asked_by:
            names.append(row.question.asked_by)
    return names


def active_stand_ins(usernames) -> tuple[tuple[str, str], ...]:
    """(delegator, delegate) for each running delegation of these people (one query per request, shared
    with the header's; none for nobody)."""
    if not usernames:
        return ()
    names = set(usernames)
    return tuple((row.delegator, row.delegate) for row in running_delegations() if row.delegator in names)


def deciding_now(approval) -> tuple[str, ...]:
    """Who decides the step the approval waits on now (its first step's people for an approval
    without a chain)."""
    if approval.chain:
        return tuple(approval.chain[approval.step].get("usernames") or ())
    return tuple((approval.rule or {}).get("usernames") or ())


def stand_ins_for(tasks) -> tuple[tuple[str, str], ...]:
    """The running delegations of everyone a page of tasks waits on for approval, in one query
    (pass to `request_now` so a list costs the same however long it is)."""
    people = [name for task in tasks if task.state in (workflow.AWAITING_APPROVAL, workflow.CONFIRMED)
              for a in task.approvals.all() if a.status == Approval.Status.PENDING
              for name in deciding_now(a)]
    return active_stand_ins(people)


def request_now(task: Task, stand_ins=None) -> RequestNow:
    """The request as it stands now. Reads `task.purchase_request` (with its lines) and
    `task.approvals`; prefetch them (see `REQUEST_READS`) when reading many, and pass
    `stand_ins_for(tasks)` then too."""
    named = request_named(task)
    request = _request_of(task)
    draft, award = task.data.get("draft") or {}, _award(task)
    approvals = sorted(task.approvals.all(), key=lambda a: a.created_at, reverse=True)
    return RequestNow(
        id=task.pk, number=named.number, version=task.version, state=task.state,
        department=request.department.code if request else (task.tenant or draft.get("department") or ""),
        department_name=named.department_name, requester=task.initiator.get_username(), lines=named.lines,
        supplier=named.supplier, subtotal=_money(award.get("subtotal")), tax=_money(award.get("tax")),
        total=named.total, budget=request.budget if request else _money(draft.get("budget")),
        justification=named.justification, waiting_on=_waiting_on(task, approvals, stand_ins),
        po_number=named.po_number, question=_question(task, approvals), created_at=task.created_at,
        updated_at=task.updated_at, progress=progress_of(task) if task.state in AFTER_THE_ORDER else None,
        needed_by=needed_by_of(task), spec=tuple(draft.get("notes") or ()))


def needed_by_of(task: Task) -> date | None:
    """The day the request's goods are needed by, as the chat or the request page took it."""
    value = (task.data.get("draft") or {}).get("needed_by")
    try:
        return date.fromisoformat(value) if value else None
    except (TypeError, ValueError):
        return None


def _award(task: Task) -> dict:
    """The task's award, once it names a supplier; {} before."""
    award = task.data.get("award") or {}
    return award if award.get("supplier") else {}


@dataclass(frozen=True)
class RequestNamed:
    """What a notice names of a request as it stands now: request_now's own values for these, without
    what it waits on, its question or how far its goods came (which cost reads a notice never shows)."""
    number: str | None
    lines: tuple[Line, ...]
    total: Decimal | None
    supplier: str | None
    po_number: str | None
    department_name: str
    justification: str


def request_named(task: Task) -> RequestNamed:
    request = _request_of(task)
    draft, award = task.data.get("draft") or {}, _award(task)
    return RequestNamed(
        number=request.number if request else None, lines=_lines(award, request, draft),
        total=_money(award.get("total")), supplier=award.get("supplier"),
        po_number=(task.data.get("purchase_order") or {}).get("id") or None,
        department_name=_department_name(request, task.tenant or draft.get("department") or ""),
        justification=request.justification if request else (draft.get("justification") or ""))


def lines_now(task: Task) -> tuple[Line, ...]:
    """request_now(task).lines, in one query at most: the award's lines, else the submitted
    request's, else the draft's."""
    award = task.data.get("award") or {}
    if award.get("supplier"):
        return _lines(award, None, {})
    submitted = list(RequestLine.objects.filter(request__task_id=task.pk).order_by("position"))
    if submitted:
        return tuple(Line(line.description, line.quantity) for line in submitted)
    return _lines({}, None, task.data.get("draft") or {})


# Everything request_now reads, for a queryset of tasks: seven queries however many rows (goods receipts,
# supplier invoices and their lines for the ordered ones).
def with_request_reads(tasks):
    live_approvals = (Approval.objects.filter(status__in=[Approval.Status.PENDING, Approval.Status.RETURNED])
                      .select_related("decided_by"))
    return (tasks.select_related("initiator", "purchase_request__department")
            .prefetch_related("purchase_request__lines", Prefetch("approvals", queryset=live_approvals),
                              *PROGRESS_READS))


# A draft cancelled (or left to expire) before it was ever submitted: no request, nothing to list.
NEVER_SUBMITTED = Q(state__in=workflow.TERMINAL, purchase_request__isnull=True)


def requests_of(user, which: str = ALL):
    """The purchase requests `user` started, by chat or API, newest first, ready for request_now."""
    tasks = Task.objects.filter(kind=workflow.KIND, initiator=user).exclude(NEVER_SUBMITTED)
    if which == OPEN:
        tasks = tasks.exclude(state__in=workflow.TERMINAL)
    elif which == FINISHED:
        tasks = tasks.filter(state__in=workflow.TERMINAL)
    return with_request_reads(tasks).order_by("-created_at", "-pk")


def moment(when: datetime) -> str:
    """10:32 today; 11-28 10:32 this year; 2025-11-28 10:32 before (local time)."""
    local, today = timezone.localtime(when), timezone.localdate()
    if local.date() == today:
        return dateformat.format(local, "H:i")
    return dateformat.format(local, "m-d H:i" if local.year == today.year else "Y-m-d H:i")


def _request_of(task):
    try:
        return task.purchase_request
    except ObjectDoesNotExist:
        return None


def _money(value) -> Decimal | None:
    return None if value in (None, "") else Decimal(str(value))


def _department_name(request, code: str):
    """In the reader's language when shown; "" for a draft without a department (pages show —)."""
    if request is not None:
        return labels.department_label_lazy(request.department)
    return labels.department_code_label_lazy(code) if code else ""


def _lines(award: dict, request, draft: dict) -> tuple[Line, ...]:
    if award:
        return tuple(Line(line["description"], line["quantity"], _money(line.get("unit_price")),
                          _money(line.get("amount"))) for line in award.get("lines") or [])
    if request is not None:
        return tuple(Line(line.description, line.quantity) for line in request.lines.all())
    return tuple(Line(line.get("description") or "", line.get("quantity")) for line in draft.get("lines") or [])


def _waiting_on(task: Task, approvals: list, stand_ins=None) -> WaitingOn | None:
    state, since = task.state, task.updated_at
    # After the PO a request waits on nobody, but for the approvers of an invoice exception.
    if state in workflow.TERMINAL or (state in workflow.AGENT_DONE and not _deciding(approvals)):
        return None
    if state in (workflow.AWAITING_APPROVAL, workflow.CONFIRMED):
        pending = next((a for a in approvals if a.status == Approval.Status.PENDING), None)
        if pending is not None:
            people = deciding_now(pending)
            stand_ins = active_stand_ins(people) if stand_ins is None else stand_ins
            # A requester standing in for her own approver still never decides her own request.
            requester = task.initiator.get_username()
            return WaitingOn(APPROVAL, people, pending.created_at,
                             tuple(pair for pair in stand_ins if pair[0] in people and pair[1] != requester))
    requester = (task.initiator.get_username(),)
    kinds = {workflow.AWAITING_INPUT: (ANSWER, requester), workflow.DRAFT: (CONFIRMATION, requester),
             workflow.SUBMITTED: (ERP, ()), workflow.NEEDS_REVIEW: (REVIEW, ())}
    kind, people = kinds.get(state, (AGENT, ()))
    return WaitingOn(kind, people, since)


def _deciding(approvals: list) -> bool:
    return any(a.status == Approval.Status.PENDING for a in approvals)


def _question(task: Task, approvals: list) -> Question | None:
    """The open question while the task waits for the requester: the agent's own, or else the
    comment of the approver who returned it (退回修改)."""
    if task.state != workflow.AWAITING_INPUT:
        return None
    asked = task.data.get("question") or ""
    returned = next((a for a in approvals if a.status == Approval.Status.RETURNED), None)
    # A return records its comment as the open question; it is the approver's, not the agent's.
    if returned is not None and returned.comment and asked in ("", returned.comment):
        return Question(returned.comment, returned.decided_by.get_username() if returned.decided_by else "",
                        returned.decided_at or task.updated_at)
    return Question(asked, "", task.updated_at, task.data.get("asked")) if asked else None

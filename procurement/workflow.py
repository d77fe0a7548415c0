"""The purchase task's transition table (DESIGN §4). The state names are public API."""
from agentstate.kinds import APPROVER, INITIATOR, RUNTIME, TaskKind, Transition

KIND = "purchase"
REVIEW = "agentstate.change_task"  # a person who may look at a task in review (admins)
# Admins and the department's managers acting from the work queue, checked by selectors.may_review.
REVIEWER = "reviewer"
REVIEW_BY = (REVIEW, REVIEWER)

DRAFT, RECEIVED, PROCESSING = "draft", "received", "processing"
AWAITING_INPUT, AWAITING_APPROVAL = "awaiting_input", "awaiting_approval"
SUBMITTED, CONFIRMED, NEEDS_REVIEW = "submitted", "externally_confirmed", "needs_review"
REJECTED, CANCELLED, EXPIRED = "rejected", "cancelled", "expired"
PAUSED = "paused"
# After the purchase order (DESIGN §16): `externally_confirmed` waits for the goods and the invoice;
# `closed` ends the task once all is received, invoiced and matched, or a person closed the rest short.
CLOSED = "closed"
# The kind of approval an invoice's match exception opens (an approval's scope names its kind; a
# purchase approval's scope names none).
INVOICE_EXCEPTION = "invoice_exception"

AMENDABLE = (RECEIVED, PROCESSING, AWAITING_INPUT, AWAITING_APPROVAL)
CANCELLABLE = (DRAFT, *AMENDABLE, NEEDS_REVIEW, PAUSED)
# Paused by a person while the agent works; nothing runs until resume (DESIGN §4, §13).
PAUSABLE = (RECEIVED, PROCESSING)
# A rewind (agentstate.timetravel) moves the task back to a checkpoint taken while the agent worked,
# from anywhere it is not sending an order and has not ended.
REWINDABLE = (PROCESSING, AWAITING_INPUT, AWAITING_APPROVAL, NEEDS_REVIEW, PAUSED)
ADMIN = (REVIEW,)
# The requester or a member of her department, recording what arrived (selectors.may_receive).
RECEIVER = "receiver"
# A manager of the department or accounts payable, closing the rest short (selectors.may_close_short).
CLOSER = "closer"
TERMINAL = frozenset({CLOSED, REJECTED, CANCELLED, EXPIRED})
# The agent's own work on the request is over: nothing more to amend, cancel or answer in chat. After
# the PO the people's part (goods, invoice) goes on until `closed`.
AGENT_DONE = TERMINAL | {CONFIRMED}
# States in which a worker runs steps; a step that keeps failing there gives up (tasks.advance).
RUNNABLE = (RECEIVED, PROCESSING, SUBMITTED, REJECTED, CANCELLED, EXPIRED)

# The way a request usually goes, as its page draws it: any other state is shown where the request
# left this path (「等待您的回覆」 after 處理中), and a state that ends it ends the drawing there.
PATH = (RECEIVED, PROCESSING, AWAITING_APPROVAL, SUBMITTED, CONFIRMED, CLOSED)


def path_steps(state: str, visited: list[str]) -> list[tuple[str, str]]:
    """(state, "done" | "current" | "todo") for the page's progress strip. `visited`: the states the
    task entered, oldest first (its events' `to_state`)."""
    if state in PATH:
        at = PATH.index(state)
        return [(s, "done" if n < at else "current" if n == at else "todo") for n, s in enumerate(PATH)]
    reached = [PATH.index(s) for s in visited if s in PATH]
    last = reached[-1] if reached else -1
    steps = [(s, "done") for s in PATH[:last + 1]] + [(state, "current")]
    return steps if state in TERMINAL else steps + [(s, "todo") for s in PATH[last + 1:]]


T = Transition
TRANSITIONS = [
    T(DRAFT, "update_draft", DRAFT, (INITIATOR,)),
    T(DRAFT, "submit", RECEIVED, (INITIATOR,), step="start"),
    T(RECEIVED, "start", PROCESSING, (RUNTIME,), step="award"),
    # A step's result recorded; the cursor moves on (quotes → route → budget → requisition).
    T(PROCESSING, "record", PROCESSING, (RUNTIME,)),
    T(PROCESSING, "ask", AWAITING_INPUT, (RUNTIME,), step=""),
    T(AWAITING_INPUT, "answer", PROCESSING, (INITIATOR,), step="revise"),
    T(PROCESSING, "request_approval", AWAITING_APPROVAL, (RUNTIME,), step=""),
    T(PROCESSING, "escalate", NEEDS_REVIEW, (RUNTIME,)),
    T(PROCESSING, "outcome_unknown", NEEDS_REVIEW, (RUNTIME,)),
    # One step of a longer approval chain approved, or a waiting step offered to a backup after
    # its escalation time: the task keeps waiting, at a new version the approval follows.
    T(AWAITING_APPROVAL, "approve_step", AWAITING_APPROVAL, (APPROVER,), supersedes_approvals=False),
    T(AWAITING_APPROVAL, "escalate_approval", AWAITING_APPROVAL, (RUNTIME,), supersedes_approvals=False),
    T(AWAITING_APPROVAL, "approve", SUBMITTED, (APPROVER,), step="issue_purchase_order"),
    T(AWAITING_APPROVAL, "reject", REJECTED, (APPROVER,), step="compensate"),
    T(AWAITING_APPROVAL, "return", AWAITING_INPUT, (APPROVER,), step=""),
    # An approval the department can no longer afford (BUDGET_HOLD=soft): nothing is approved and
    # the requester is asked, as when the budget step finds too little.
    T(AWAITING_APPROVAL, "budget_short", AWAITING_INPUT, (APPROVER,), step=""),
    T(AWAITING_APPROVAL, "expire", EXPIRED, (RUNTIME,), step="compensate"),
    T(SUBMITTED, "confirm", CONFIRMED, (RUNTIME,), step=""),
    T(SUBMITTED, "outcome_unknown", NEEDS_REVIEW, (RUNTIME,)),
    T(SUBMITTED, "fail", NEEDS_REVIEW, (RUNTIME,)),
    # A step failed AGENT_MAX_ATTEMPTS times in a row (a compensation too): a person must look.
    *[T(state, "give_up", NEEDS_REVIEW, (RUNTIME,)) for state in RUNNABLE],
    # Recovery refused the task's newest checkpoint (tampered, another tenant's, an unknown schema).
    *[T(state, "checkpoint_refused", NEEDS_REVIEW, (RUNTIME,)) for state in RUNNABLE],
    # A doubtful receipt settled by recovery: the task goes on from where the doubt arose.
    T(NEEDS_REVIEW, "resume", PROCESSING, (RUNTIME,)),
    # The work queue (DESIGN §14), each with who and why. The ERP verified what was in doubt
    # (checked again, or by the reference a person looked up): the agent goes on from its step.
    T(NEEDS_REVIEW, "reconcile", PROCESSING, REVIEW_BY),
    T(NEEDS_REVIEW, "record_outcome", PROCESSING, REVIEW_BY),
    # Run the failed step again; an order step runs again where orders are sent.
    T(NEEDS_REVIEW, "retry", PROCESSING, REVIEW_BY),
    T(NEEDS_REVIEW, "retry_order", SUBMITTED, REVIEW_BY, step="issue_purchase_order"),
    # The ERP holds the order: found by recovery, checked again or recorded by a person.
    T(NEEDS_REVIEW, "confirm", CONFIRMED, (RUNTIME, *REVIEW_BY), step=""),
    # A cancel that found the order in the ERP ends where the truth is, never `cancelled`.
    T(NEEDS_REVIEW, "cancel_too_late", CONFIRMED, (INITIATOR, *REVIEW_BY), step=""),
    *[T(state, "amend", PROCESSING, (INITIATOR,), step="revise") for state in AMENDABLE],
    *[T(state, "cancel", CANCELLED, (INITIATOR, *REVIEW_BY), step="compensate") for state in CANCELLABLE],
    # Pause and resume. Pausing a received task keeps its place: it resumes at the quotes. An open
    # approval is never pending in these states, so nothing is superseded by the pause itself.
    T(RECEIVED, "pause", PAUSED, (INITIATOR, *ADMIN), step="award", supersedes_approvals=False),
    T(PROCESSING, "pause", PAUSED, (INITIATOR, *ADMIN), supersedes_approvals=False),
    T(PAUSED, "resume", PROCESSING, (INITIATOR, *ADMIN)),
    # Back in time (DESIGN §13): the step is the checkpoint's cursor; a fork starts from a checkpoint.
    *[T(state, "rewind", PROCESSING, ADMIN) for state in REWINDABLE],
    T(DRAFT, "fork", PROCESSING, ADMIN),
    # After the PO (DESIGN §16). A goods receipt (or a return) is recorded at a new version; the
    # task waits on at `externally_confirmed` until nothing is left open.
    T(CONFIRMED, "receive_goods", CONFIRMED, (INITIATOR, RECEIVER)),
    # The supplier cannot deliver the rest: the ERP's PO is closed for it and unspent budget released.
    T(CONFIRMED, "close_short", CLOSED, (CLOSER,), step=""),
    # Every ordered quantity received, invoiced and matched.
    T(CONFIRMED, "complete", CLOSED, (RUNTIME,), step=""),
    # An invoice the three-way match found an exception in opens an approval (kind invoice_exception)
    # at a new version; it is decided, stepped, offered and expires like any, the task staying here.
    # A request closed short still takes the invoice for the goods that did arrive (DESIGN §16), so
    # its invoice exceptions are opened and decided there too, the task staying `closed`.
    *[t for state in (CONFIRMED, CLOSED) for t in (
        T(state, "invoice_exception", state, (RUNTIME,), supersedes_approvals=False),
        T(state, "approve", state, (APPROVER,)),
        T(state, "reject", state, (APPROVER,)),
        T(state, "approve_step", state, (APPROVER,), supersedes_approvals=False),
        T(state, "escalate_approval", state, (RUNTIME,), supersedes_approvals=False),
        T(state, "expire", state, (RUNTIME,)),
    )],
    # Compensation (cancel the requisition, release the budget) finishes inside a terminal state.
    *[T(state, "compensated", state, (RUNTIME,), step="") for state in (REJECTED, CANCELLED, EXPIRED)],
]


# The shape of a purchase task's `data` (DESIGN §4), and how each older shape is brought up to date.
#   1: the award's money as decimal strings, its currency implied (every reader assumed TWD).
#   2: the award names its `currency`, the currency of the quotes it was priced from, and the ERP
#      requisition and the approval scope carry that currency instead of assuming one.
SCHEMA_VERSION = 2
DEFAULT_CURRENCY = "TWD"  # the only currency schema 1 could have priced in (pricing skips other quotes)


def _award_names_its_currency(data: dict) -> dict:
    """Schema 1 → 2."""
    award = data.get("award")
    if isinstance(award, dict):
        award.setdefault("currency", DEFAULT_CURRENCY)
    return data


UPGRADES = {1: _award_names_its_currency}


def build_kind(**hooks) -> TaskKind:
    return TaskKind(
        name=KIND, initial=DRAFT, transitions=TRANSITIONS, terminal=TERMINAL,
        runnable=frozenset(RUNNABLE),
        unknown_outcome_event="outcome_unknown", approval_expired_event="expire",
        checkpoint_refused_event="checkpoint_refused", schema_version=SCHEMA_VERSION, upgrades=UPGRADES,
        approval_step_event="approve_step", approval_offer_event="escalate_approval", **hooks)

"""The purchase task's transition table (DESIGN §4). The state names are public API."""
from agentstate.kinds import APPROVER, INITIATOR, RUNTIME, TaskKind, Transition

KIND = "purchase"
REVIEW = "agentstate.change_task"  # a person who may look at a task in review (admins)

DRAFT, RECEIVED, PROCESSING = "draft", "received", "processing"
AWAITING_INPUT, AWAITING_APPROVAL = "awaiting_input", "awaiting_approval"
SUBMITTED, CONFIRMED, NEEDS_REVIEW = "submitted", "externally_confirmed", "needs_review"
REJECTED, CANCELLED, EXPIRED = "rejected", "cancelled", "expired"

AMENDABLE = (RECEIVED, PROCESSING, AWAITING_INPUT, AWAITING_APPROVAL)
CANCELLABLE = (DRAFT, *AMENDABLE, NEEDS_REVIEW)
TERMINAL = frozenset({CONFIRMED, REJECTED, CANCELLED, EXPIRED})

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
    T(AWAITING_APPROVAL, "approve", SUBMITTED, (APPROVER,), step="issue_purchase_order"),
    T(AWAITING_APPROVAL, "reject", REJECTED, (APPROVER,), step="compensate"),
    T(AWAITING_APPROVAL, "return", AWAITING_INPUT, (APPROVER,), step=""),
    T(AWAITING_APPROVAL, "expire", EXPIRED, (RUNTIME,), step="compensate"),
    T(SUBMITTED, "confirm", CONFIRMED, (RUNTIME,), step=""),
    T(SUBMITTED, "outcome_unknown", NEEDS_REVIEW, (RUNTIME,)),
    T(SUBMITTED, "fail", NEEDS_REVIEW, (RUNTIME,)),
    T(NEEDS_REVIEW, "retry", PROCESSING, (REVIEW,)),
    # A doubtful receipt settled by recovery: the task goes on from where the doubt arose.
    T(NEEDS_REVIEW, "resume", PROCESSING, (RUNTIME,)),
    T(NEEDS_REVIEW, "confirm", CONFIRMED, (RUNTIME,), step=""),
    *[T(state, "amend", PROCESSING, (INITIATOR,), step="revise") for state in AMENDABLE],
    *[T(state, "cancel", CANCELLED, (INITIATOR, REVIEW), step="compensate") for state in CANCELLABLE],
    # Compensation (cancel the requisition, release the budget) finishes inside a terminal state.
    *[T(state, "compensated", state, (RUNTIME,), step="") for state in (REJECTED, CANCELLED, EXPIRED)],
]


def build_kind(**hooks) -> TaskKind:
    return TaskKind(
        name=KIND, initial=DRAFT, transitions=TRANSITIONS, terminal=TERMINAL,
        runnable=frozenset({RECEIVED, PROCESSING, SUBMITTED, REJECTED, CANCELLED, EXPIRED}),
        unknown_outcome_event="outcome_unknown", approval_expired_event="expire", **hooks)

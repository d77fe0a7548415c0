"""The brain interface: what a brain sees (Context) and what it may answer (Proposal).

A brain only proposes. Its action is data, validated against the schemas below before the
runtime looks at it; there is no action that approves, changes a limit or marks a step done.
"""
import json
from dataclasses import asdict, dataclass, field
from decimal import Decimal, InvalidOperation
from typing import ClassVar, Protocol

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from procurement.infra.limits import MAX_DESCRIPTION_CHARS, MAX_QUANTITY

MEMORY_KINDS = ("fact", "preference", "procedure", "term", "event")

LINE = {"type": "object", "additionalProperties": False, "required": ["description"], "properties": {
    "description": {"type": "string", "minLength": 1, "maxLength": MAX_DESCRIPTION_CHARS},
    "quantity": {"type": ["integer", "null"], "minimum": 1, "maximum": MAX_QUANTITY}}}
LINES = {"type": "array", "items": LINE, "minItems": 1, "maxItems": 20}
MONEY = {"type": ["string", "number", "null"], "pattern": r"^\d{1,12}(\.\d{1,2})?$", "minimum": 1}
TEXT = {"type": "string", "maxLength": 500}
DRAFT_FIELDS = {"type": "object", "additionalProperties": False, "minProperties": 1, "properties": {
    "department": {"type": "string", "minLength": 1, "maxLength": 20}, "lines": LINES, "justification": TEXT,
    "budget": MONEY, "budget_tax": {"enum": ["included", "excluded", ""]},
    "needed_by": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$",
                  "description": "The day the requester needs it by (YYYY-MM-DD, Asia/Taipei), today or later."},
    "notes": {"type": "array", "items": {"type": "string", "maxLength": 300}, "maxItems": 10}}}
AMEND_FIELDS = {"type": "object", "additionalProperties": False, "minProperties": 1, "properties": {
    "lines": LINES, "justification": TEXT, "budget": MONEY, "answer": TEXT}}
NO_ARGS = {"type": "object", "additionalProperties": False, "properties": {}}


class InvalidAction(ValueError):
    """A proposal that does not fit the schema: refused before anything looks at it."""


@dataclass(frozen=True)
class Action:
    name: ClassVar[str] = ""
    schema: ClassVar[dict] = NO_ARGS
    description: ClassVar[str] = ""

    def args(self) -> dict:
        return asdict(self)

    def record(self) -> dict:
        """What the agent turn keeps of this action."""
        return self.args()


@dataclass(frozen=True)
class UpdateDraft(Action):
    fields: dict
    name = "update_draft"
    schema = DRAFT_FIELDS
    description = "Set fields of the request being drafted (only the fields the requester gave)."

    def args(self):
        return dict(self.fields)


@dataclass(frozen=True)
class Ask(Action):
    question: str
    name = "ask"
    schema = {"type": "object", "additionalProperties": False, "required": ["question"],
              "properties": {"question": {"type": "string", "minLength": 1, "maxLength": 500}}}
    description = "Ask the requester one question; nothing changes."


@dataclass(frozen=True)
class Submit(Action):
    name = "submit"
    description = "Submit the confirmed draft. Only after the requester said yes to the summary."


@dataclass(frozen=True)
class Attach(Action):
    task_id: str
    name = "attach"
    schema = {"type": "object", "additionalProperties": False, "required": ["task_id"],
              "properties": {"task_id": {"type": "string", "pattern": r"^[0-9a-fA-F-]{32,36}$"}}}
    description = "Continue one of the requester's open requests (by id) in this conversation."


@dataclass(frozen=True)
class Amend(Action):
    fields: dict
    name = "amend"
    schema = AMEND_FIELDS
    description = ("Change the submitted request's lines, justification or budget cap (a new version). While it "
                   "waits for her answer, `answer` carries her reply to the open question in her own words.")

    def args(self):
        return dict(self.fields)


@dataclass(frozen=True)
class Cancel(Action):
    task_id: str = ""
    ref: str = ""
    item: str = ""
    name = "cancel"
    schema = {"type": "object", "additionalProperties": False, "properties": {
        "task_id": {"type": "string", "pattern": r"^([0-9a-fA-F-]{32,36})?$"},
        "ref": {"type": "string", "maxLength": 40}, "item": {"type": "string", "maxLength": 100}}}
    description = ("Cancel a request: this conversation's, or one of hers named by task_id, number (ref) or item. "
                   "The requester is asked to confirm first.")


TOPICS = ("status", "po", "why", "change", "list", "unknown", "unclear", "supplier", "money", "nudge", "stock",
          "arrival", "invoice")


@dataclass(frozen=True)
class Status(Action):
    topic: str = "status"
    task_id: str = ""
    ref: str = ""
    item: str = ""
    open_only: bool = False
    name = "status"
    schema = {"type": "object", "additionalProperties": False, "properties": {
        "topic": {"enum": list(TOPICS)},
        "task_id": {"type": "string", "pattern": r"^([0-9a-fA-F-]{32,36})?$"},
        "ref": {"type": "string", "maxLength": 40}, "item": {"type": "string", "maxLength": 100},
        "open_only": {"type": "boolean"}}}
    description = ("Answer a question about the requester's own requests from the records (never from the "
                   "conversation): topic status (where it stands), po (the purchase order number and what was "
                   "ordered), why (why it was rejected, returned or put in review: the approver's comment), "
                   "change (what to change after a return), list (her requests; open_only for the open ones), "
                   "arrival (what was received on its purchase order), invoice (the supplier invoices entered on it), "
                   "unknown (anything the records cannot tell, such as delivery dates), unclear (a question about "
                   "her request you cannot place: say so and give where it stands). Pick the request by "
                   "task_id, by a number she gave (ref, e.g. REQ-000012 or PO-000003) or by item; none means "
                   "this conversation's request or her latest. Creates and changes nothing.")


RECEIPT_LINE = {"type": "object", "additionalProperties": False, "required": ["line", "accepted"], "properties": {
    "line": {"type": "integer", "minimum": 0, "maximum": 999},
    "accepted": {"type": "integer", "minimum": -MAX_QUANTITY, "maximum": MAX_QUANTITY},  # negative: a return
    "rejected": {"type": "integer", "minimum": 0, "maximum": MAX_QUANTITY},
    "reason": {"enum": ["", "damaged", "wrong_item", "other"]}}}


@dataclass(frozen=True)
class ReceiveGoods(Action):
    task_id: str = ""
    item: str = ""
    arrived: int | None = None
    rejected: int = 0
    reason: str = ""
    returned: int = 0
    lines: tuple = ()
    name = "receive"
    schema = {"type": "object", "additionalProperties": False, "required": ["task_id"], "properties": {
        "task_id": {"type": "string", "pattern": r"^[0-9a-fA-F-]{32,36}$"},
        "item": {"type": "string", "maxLength": 100},
        "arrived": {"type": ["integer", "null"], "minimum": 0, "maximum": MAX_QUANTITY},
        "rejected": {"type": "integer", "minimum": 0, "maximum": MAX_QUANTITY},
        "reason": {"enum": ["", "damaged", "wrong_item", "other"]},
        "returned": {"type": "integer", "minimum": 0, "maximum": MAX_QUANTITY},
        "lines": {"type": "array", "items": RECEIPT_LINE, "maxItems": 100}}}
    description = ("Record what arrived on one of her ordered requests: an item (none: every line still open), "
                   "how many arrived (none: all still open), how many of those are rejected and why; or a return "
                   "of goods already accepted: the item, how many are returned and why (returned, reason); or the "
                   "PO lines themselves (a negative accepted quantity is a return). The requester is shown what "
                   "will be recorded and says yes first.")

    def args(self):
        return {**asdict(self), "lines": [dict(line) for line in self.lines]}


@dataclass(frozen=True)
class ProposeMemory(Action):
    content: str
    kind: str
    name = "propose_memory"
    schema = {"type": "object", "additionalProperties": False, "required": ["content", "kind"], "properties": {
        "content": {"type": "string", "minLength": 1, "maxLength": 500}, "kind": {"enum": list(MEMORY_KINDS)}}}
    description = "Propose a standing preference ('from now on ...'); it needs the requester's confirmation."

    def record(self):
        # The words stay in the user's own turn; a copy here would outlive the entry's deletion.
        return {"kind": self.kind}


@dataclass(frozen=True)
class AnswerQuote(Action):
    n: int
    answer: str
    value: str = ""
    name = "answer_quote"
    schema = {"type": "object", "additionalProperties": False, "required": ["n", "answer"], "properties": {
        "n": {"type": "integer", "minimum": 1}, "answer": {"enum": ["drop", "confirm", "price", "tax_id", "item"]},
        "value": {"type": "string", "maxLength": 100}}}
    description = ("Answer open question n about the attached quote sheet: drop its row, confirm its price, or set "
                   "its price, tax ID or catalogue item (value).")


@dataclass(frozen=True)
class NoAction(Action):
    name = "none"
    description = "Just reply."


ACTIONS = {cls.name: cls for cls in (UpdateDraft, Ask, Submit, Attach, Amend, Cancel, Status, ProposeMemory,
                                     AnswerQuote, ReceiveGoods, NoAction)}


def parse_action(name: str, args: dict | None) -> Action:
    """The action named, with its arguments checked against its schema; InvalidAction otherwise."""
    cls = ACTIONS.get(name)
    if cls is None:
        raise InvalidAction(f"There is no action {name!r}.")
    args = {} if args is None else args
    check(args, cls.schema, "arguments")
    if cls in (UpdateDraft, Amend):
        return cls(fields=_normalised(args))
    return cls(**args)


def _normalised(fields: dict) -> dict:
    # Money travels as a decimal string, whatever form the brain gave it in.
    if fields.get("budget") is not None:
        fields = {**fields, "budget": str(Decimal(str(fields["budget"])).quantize(Decimal("0.01")))}
    return fields


def check(value, schema: dict, where: str):
    """`value` against the action's JSON schema (jsonschema); InvalidAction names the first fault."""
    error = best_match(Draft202012Validator(schema).iter_errors(value))
    if error is not None:
        path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
        raise InvalidAction(f"{where}{path}: {error.message[:200]}")


# -- what a brain sees ---------------------------------------------------------------

@dataclass(frozen=True)
class TaskView:
    """A task as State records it: the only source for status answers."""
    id: str
    state: str
    version: int
    draft: dict = field(default_factory=dict)      # intake's fields (draft data)
    lines: list = field(default_factory=list)      # the request's lines: submitted ones, else the draft's
    justification: str = ""
    budget: str | None = None
    question: str = ""                             # what the agent asked the requester (awaiting_input)
    asked: dict | None = None                      # the agent's question as its code, for the reader's words
    receipts: list = field(default_factory=list)   # each {operation, status, external_id}
    approvals: list = field(default_factory=list)  # each {status, state_version, approvers}
    number: str = ""                               # the ERP requisition number (REQ-…), once created
    po_number: str = ""                            # the purchase order number (PO-…), once issued
    supplier: str = ""
    subtotal: str | None = None                    # the award, untaxed and tax-inclusive
    total: str | None = None
    waiting_on: dict = field(default_factory=dict)  # {"who": usernames or "requester", "since": iso time}
    decision: dict = field(default_factory=dict)   # newest decided approval: status, by, at, comment
    created_at: str = ""
    progress: object = None                        # after the PO: purchase.progress.Progress (goods, invoices)


@dataclass(frozen=True)
class MemoryView:
    id: object
    version: int
    scope: str
    kind: str
    content: str


@dataclass(frozen=True)
class Context:
    message: str
    lang: str                                   # "en" or "zh": the message's, else the conversation's
    username: str
    departments: tuple = ()                     # the requester's departments, from Membership
    catalogue: tuple = ()                       # items somebody quotes
    turns: tuple = ()                           # recent (role, text), oldest first
    summary: str = ""
    task: TaskView | None = None
    expects: str = ""                           # what the last agent turn asked for
    confirming: dict | None = None              # what the last agent turn asked to confirm
    choices: tuple = ()                         # task ids the last agent turn offered
    candidates: tuple = ()                      # the requester's open tasks (TaskView), newest first
    memory: tuple = ()                          # MemoryView entries in scope
    requests: tuple = ()                        # the requester's recent requests (TaskView), newest first
    about: str = ""                             # the request the last answer was about (task id)

    def as_json(self) -> dict:
        return asdict(self)

    def size(self) -> int:
        return len(json.dumps(self.as_json(), ensure_ascii=False, default=str))


@dataclass
class Proposal:
    reply: str
    action: Action
    expects: str = ""            # e.g. "quantity", "justification", "confirm_cancel", "choose_task"
    choices: tuple = ()          # task ids offered when asking which one
    memory_used: tuple = ()      # ids of the memory entries (from the context) this answer relied on
    brain: str = ""              # which brain answered, for the turn's record
    fallback: str = ""           # why the preferred brain did not answer, if it did not
    keep_confirming: bool = False  # a hold: the draft shown stays the one a later yes confirms


class Brain(Protocol):
    name: str

    def propose(self, ctx: Context) -> Proposal: ...


class BrainUnavailable(Exception):
    """The brain could not answer (error, timeout, invalid output); the runtime falls back."""


def decimal_or_none(value) -> Decimal | None:
    try:
        return None if value in (None, "") else Decimal(str(value))
    except InvalidOperation:
        return None

"""The brain interface: what a brain sees (Context) and what it may answer (Proposal).

A brain only proposes. Its action is data, validated against the schemas below before the
runtime looks at it; there is no action that approves, changes a limit or marks a step done.
"""
import json
import re
from dataclasses import asdict, dataclass, field
from decimal import Decimal, InvalidOperation
from typing import ClassVar, Protocol

from ..limits import MAX_DESCRIPTION_CHARS, MAX_QUANTITY

MEMORY_KINDS = ("fact", "preference", "procedure", "term", "event")

LINE = {"type": "object", "additionalProperties": False, "required": ["description"], "properties": {
    "description": {"type": "string", "minLength": 1, "maxLength": MAX_DESCRIPTION_CHARS},
    "quantity": {"type": ["integer", "null"], "minimum": 1, "maximum": MAX_QUANTITY}}}
LINES = {"type": "array", "items": LINE, "minItems": 1, "maxItems": 20}
MONEY = {"type": ["string", "number", "null"], "pattern": r"^\d{1,12}(\.\d{1,2})?$", "minimum": 1}
TEXT = {"type": "string", "maxLength": 500}
DRAFT_FIELDS = {"type": "object", "additionalProperties": False, "minProperties": 1, "properties": {
    "department": {"type": "string", "minLength": 1, "maxLength": 20}, "lines": LINES, "justification": TEXT,
    "budget": MONEY, "notes": {"type": "array", "items": {"type": "string", "maxLength": 300}, "maxItems": 10}}}
AMEND_FIELDS = {"type": "object", "additionalProperties": False, "minProperties": 1, "properties": {
    "lines": LINES, "justification": TEXT, "budget": MONEY}}
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
    description = "Change the submitted request's lines, justification or budget cap (a new version)."

    def args(self):
        return dict(self.fields)


@dataclass(frozen=True)
class Cancel(Action):
    name = "cancel"
    description = "Cancel the request (the requester will be asked to confirm)."


@dataclass(frozen=True)
class Status(Action):
    name = "status"
    description = "Report where the request stands, from its recorded state."


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
class NoAction(Action):
    name = "none"
    description = "Just reply."


ACTIONS = {cls.name: cls for cls in (UpdateDraft, Ask, Submit, Attach, Amend, Cancel, Status, ProposeMemory,
                                     NoAction)}


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


_JSON_TYPES = {"string": str, "object": dict, "array": list, "null": type(None), "number": (int, float)}


def check(value, schema: dict, where: str):
    """A small JSON-schema subset: enough for the action schemas, no dependency."""
    types = schema.get("type")
    if types is not None:
        types = [types] if isinstance(types, str) else types
        if not any(_is(value, t) for t in types):
            raise InvalidAction(f"{where}: expected {' or '.join(types)}, got {type(value).__name__}.")
    if "enum" in schema and value not in schema["enum"]:
        raise InvalidAction(f"{where}: must be one of {', '.join(map(str, schema['enum']))}.")
    if value is None:
        return
    if isinstance(value, str):
        if not schema.get("minLength", 0) <= len(value) <= schema.get("maxLength", 10**6):
            raise InvalidAction(f"{where}: length {len(value)} is out of range.")
        if "pattern" in schema and not re.fullmatch(schema["pattern"], value):
            raise InvalidAction(f"{where}: {value[:40]!r} is not in the expected format.")
    if isinstance(value, (int, float, Decimal)) and not isinstance(value, bool):
        if value < schema.get("minimum", value) or value > schema.get("maximum", value):
            raise InvalidAction(f"{where}: {value} is out of range.")
    if isinstance(value, list):
        if not schema.get("minItems", 0) <= len(value) <= schema.get("maxItems", 10**6):
            raise InvalidAction(f"{where}: {len(value)} items is out of range.")
        for n, item in enumerate(value):
            check(item, schema.get("items", {}), f"{where}[{n}]")
    if isinstance(value, dict):
        _check_object(value, schema, where)


def _check_object(value: dict, schema: dict, where: str):
    properties = schema.get("properties", {})
    for name in schema.get("required", []):
        if name not in value:
            raise InvalidAction(f"{where}: {name} is required.")
    if schema.get("additionalProperties") is False and set(value) - set(properties):
        raise InvalidAction(f"{where}: unexpected {', '.join(sorted(set(value) - set(properties)))}.")
    if len(value) < schema.get("minProperties", 0):
        raise InvalidAction(f"{where}: nothing given.")
    for name, item in value.items():
        if name in properties:
            check(item, properties[name], f"{where}.{name}")


def _is(value, json_type: str) -> bool:
    if json_type == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if json_type == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, _JSON_TYPES[json_type])


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
    receipts: list = field(default_factory=list)   # each {operation, status, external_id}
    approvals: list = field(default_factory=list)  # each {status, state_version, approvers}


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
    lang: str                                   # "en" or "zh", from the message itself
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

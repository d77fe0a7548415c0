"""Words for the product's codes, in the reader's language: one home for each label.

State names, receipt and approval statuses, ERP operations and events are public codes
(DESIGN §4, §10); people read them through these labels on pages, in mail and in chat.
"""
import re

from django.conf import settings
from django.utils import translation
from django.utils.functional import lazy
from django.utils.translation import gettext, gettext_lazy, ngettext, pgettext, pgettext_lazy

from agentstate.memory.deletion import REMOVED, SOURCE_REMOVED
from agentstate.memory.derivers import MASK
from agentstate.memory.models import Kind, MemoryEntry, MemoryVersion, Scope, Sensitivity
from procurement.words.people import person_label
from procurement.models import DEPARTMENT_NAMES, Department, Membership, department_label, department_with_code  # noqa: F401

from procurement.infra import erp
from procurement import workflow

# The two numbers a request can carry, never under one label: ours (REQ-2026-00001) and the
# ERP's requisition (REQ-000001). Templates use the same msgctxt ("number label").
REQUEST_NO = pgettext_lazy("number label", "Request no.")
ERP_REQUISITION_NO = pgettext_lazy("number label", "ERP requisition no.")

# Short words for badges and lists.
STATE_LABELS = {
    workflow.DRAFT: pgettext_lazy("request state", "Draft"),
    workflow.RECEIVED: pgettext_lazy("request state", "Received"),
    workflow.PROCESSING: pgettext_lazy("request state", "Processing"),
    workflow.AWAITING_INPUT: pgettext_lazy("request state", "Waiting for the requester's answer"),
    workflow.AWAITING_APPROVAL: pgettext_lazy("request state", "Waiting for approval"),
    workflow.SUBMITTED: pgettext_lazy("request state", "Order sent, confirming"),
    workflow.CONFIRMED: pgettext_lazy("request state", "Ordered"),
    workflow.NEEDS_REVIEW: pgettext_lazy("request state", "Needs review"),
    workflow.REJECTED: pgettext_lazy("request state", "Rejected"),
    workflow.CANCELLED: pgettext_lazy("request state", "Cancelled"),
    workflow.EXPIRED: pgettext_lazy("request state", "Expired"),
    workflow.PAUSED: pgettext_lazy("request state", "Paused"),
    workflow.CLOSED: pgettext_lazy("request state", "Closed"),
}

# One sentence: what the state means for the person reading it.
STATE_MEANINGS = {
    workflow.DRAFT: pgettext_lazy("request state", "a draft: nothing has been sent yet"),
    workflow.RECEIVED: pgettext_lazy("request state", "received and queued for the agent"),
    workflow.PROCESSING: pgettext_lazy("request state", "being processed (quotes, policy and budget checks)"),
    workflow.AWAITING_INPUT: pgettext_lazy("request state", "waiting for the requester's answer"),
    workflow.AWAITING_APPROVAL: pgettext_lazy("request state", "waiting for approval"),
    workflow.SUBMITTED: pgettext_lazy(
        "request state", "approved; the purchase order was sent and its confirmation is pending verification"),
    workflow.CONFIRMED: pgettext_lazy(
        "request state", "ordered: the ERP confirmed the purchase order; the goods and the invoice are outstanding"),
    workflow.NEEDS_REVIEW: pgettext_lazy("request state", "with a person for review"),
    workflow.REJECTED: pgettext_lazy("request state", "rejected"),
    workflow.CANCELLED: pgettext_lazy("request state", "cancelled"),
    workflow.EXPIRED: pgettext_lazy("request state", "expired: the approval was not decided in time"),
    workflow.PAUSED: pgettext_lazy("request state", "paused by a person: nothing runs until it is resumed"),
    workflow.CLOSED: pgettext_lazy(
        "request state", "closed: everything was received and invoiced, or the rest was closed short"),
}

RECEIPT_LABELS = {
    "planned": pgettext_lazy("receipt status", "Not sent yet"),
    "sent": pgettext_lazy("receipt status", "Result pending verification"),
    "unknown": pgettext_lazy("receipt status", "Result pending verification"),
    "confirmed": pgettext_lazy("receipt status", "Confirmed"),
    "failed": pgettext_lazy("receipt status", "Refused by the ERP"),
}

APPROVAL_LABELS = {
    "pending": pgettext_lazy("approval status", "Pending"),
    "approved": pgettext_lazy("approval status", "Approved"),
    "rejected": pgettext_lazy("approval status", "Rejected"),
    "returned": pgettext_lazy("approval status", "Returned for revision"),
    "superseded": pgettext_lazy("approval status", "Superseded by a newer version"),
    "expired": pgettext_lazy("approval status", "Expired"),
}

OPERATION_LABELS = {
    erp.CREATE_REQUISITION: pgettext_lazy("ERP operation", "ERP requisition"),
    erp.CANCEL_REQUISITION: pgettext_lazy("ERP operation", "Requisition cancellation"),
    erp.ISSUE_PURCHASE_ORDER: pgettext_lazy("ERP operation", "Purchase order"),
    erp.POST_GOODS_RECEIPT: pgettext_lazy("ERP operation", "Goods receipt"),
    erp.CLOSE_PURCHASE_ORDER: pgettext_lazy("ERP operation", "Purchase order closed short"),
    erp.POST_SUPPLIER_INVOICE: pgettext_lazy("ERP operation", "Supplier invoice posting"),
}

# The agent's steps, for the work queue ("the step it stopped at").
STEP_LABELS = {
    "start": pgettext_lazy("agent step", "Starting"),
    "revise": pgettext_lazy("agent step", "Undoing the previous version"),
    "award": pgettext_lazy("agent step", "Comparing quotes"),
    "route": pgettext_lazy("agent step", "Finding the approver"),
    "reserve_budget": pgettext_lazy("agent step", "Reserving budget"),
    "create_requisition": pgettext_lazy("agent step", "Creating the ERP requisition"),
    "open_approval": pgettext_lazy("agent step", "Asking for approval"),
    "issue_purchase_order": pgettext_lazy("agent step", "Issuing the purchase order"),
    "compensate": pgettext_lazy("agent step", "Cancelling the requisition and releasing the budget"),
}


# What happened, for the timeline of a request: every event of the transition table, the
# engine's own ("create") and the recovery pass's notes.
EVENT_LABELS = {
    "create": pgettext_lazy("request event", "Started"),
    "update_draft": pgettext_lazy("request event", "Draft updated"),
    "submit": pgettext_lazy("request event", "Submitted"),
    "start": pgettext_lazy("request event", "Processing started"),
    "record": pgettext_lazy("request event", "Step done"),
    "ask": pgettext_lazy("request event", "Question for the requester"),
    "answer": pgettext_lazy("request event", "Answered"),
    "request_approval": pgettext_lazy("request event", "Sent for approval"),
    "escalate": pgettext_lazy("request event", "Handed to a person for review"),
    "outcome_unknown": pgettext_lazy("request event", "Result pending verification"),
    "approve_step": pgettext_lazy("request event", "Approval step done"),
    "escalate_approval": pgettext_lazy("request event", "Approval offered to a backup"),
    "approve": pgettext_lazy("request event", "Approved"),
    "reject": pgettext_lazy("request event", "Rejected"),
    "return": pgettext_lazy("request event", "Returned for revision"),
    "budget_short": pgettext_lazy("request event", "Not approved: not enough budget left"),
    "expire": pgettext_lazy("request event", "Approval expired"),
    "confirm": pgettext_lazy("request event", "Purchase order issued"),
    "fail": pgettext_lazy("request event", "Purchase order failed"),
    "retry": pgettext_lazy("request event", "Retried"),
    "resume": pgettext_lazy("request event", "Resumed"),
    "amend": pgettext_lazy("request event", "Amended"),
    "cancel": pgettext_lazy("request event", "Cancelled"),
    "compensated": pgettext_lazy("request event", "Wound up (ERP and budget)"),
    "recovery.lease_expired": pgettext_lazy("request event", "Picked up again after a worker stopped"),
    "recovery.resumed": pgettext_lazy("request event", "Picked up again after a pause"),
    "recovery.receipt": pgettext_lazy("request event", "ERP result verified"),
    "step_failed": pgettext_lazy("request event", "A step failed; tried again later"),
    "give_up": pgettext_lazy("request event", "Handed to a person after repeated failures"),
    "checkpoint_refused": pgettext_lazy("request event", "Stopped: its saved state failed verification"),
    "checkpoint.refused": pgettext_lazy("request event", "A saved state was refused: it failed verification"),
    "schema.upgraded": pgettext_lazy("request event", "Saved data brought up to date"),
    "recovery.schema_too_new": pgettext_lazy("request event", "Not picked up: saved by a newer version of the app"),
    "reconcile": pgettext_lazy("request event", "ERP checked again by a person"),
    "record_outcome": pgettext_lazy("request event", "ERP outcome recorded by a person"),
    "retry_order": pgettext_lazy("request event", "Purchase order retried"),
    "cancel_too_late": pgettext_lazy("request event", "Cancel came too late: already ordered"),
    "review.note": pgettext_lazy("request event", "Checked by a person; still in doubt"),
    "retag": pgettext_lazy("request event", "Filed under its department"),
    "pause": pgettext_lazy("request event", "Paused"),
    "rewind": pgettext_lazy("request event", "Rewound to an earlier checkpoint"),
    "fork": pgettext_lazy("request event", "Started as a fork of another request"),
    "forked": pgettext_lazy("request event", "Forked into a new request"),
    "replay": pgettext_lazy("request event", "Dry run viewed (nothing sent)"),
    "resume.settled": pgettext_lazy("request event", "Resumed after its ERP results were checked"),
    "receive_goods": pgettext_lazy("request event", "Goods received"),
    "close_short": pgettext_lazy("request event", "Closed short: the rest will not be delivered"),
    "complete": pgettext_lazy("request event", "Closed: received, invoiced and matched"),
    "invoice_exception": pgettext_lazy("request event", "Invoice exception sent for approval"),
}

# A chat draft thrown away before it was ever submitted (cancelled with no request number).
DISCARDED_DRAFT = pgettext_lazy("request state", "Draft discarded")

# A conversation's lifecycle (agentstate.models.Session.Status, moved on by agentstate.retention).
SESSION_LABELS = {
    "active": pgettext_lazy("conversation status", "Active"),
    "idle": pgettext_lazy("conversation status", "Idle"),
    "closed": pgettext_lazy("conversation status", "Closed: its request ended"),
    "discarded": pgettext_lazy("conversation status", "Ended: its draft was discarded"),
    "expired": pgettext_lazy("conversation status", "Expired"),
}

# Governed memory (agentstate.memory): scopes, kinds, sensitivity, entry and version statuses as the
# models' own choice labels (one wording for the pages and the admin), and why an entry is flagged.
MEMORY_LABELS = {
    **dict(Scope.choices), **dict(Kind.choices), **dict(Sensitivity.choices), **dict(MemoryEntry.Status.choices),
    **dict(MemoryVersion.Status.choices),
    "reconfirm": pgettext_lazy("memory flag", "not confirmed for a long time"),
    "subject_left": pgettext_lazy("memory flag", "the person it is about has left"),
}
# What was done to a memory entry (agentstate.memory.models.MemoryEvent.Action), for the admin's lists.
MEMORY_ACTION_LABELS = {
    "create": pgettext_lazy("memory action", "written"),
    "propose": pgettext_lazy("memory action", "proposed"),
    "confirm": pgettext_lazy("memory action", "confirmed"),
    "correct": pgettext_lazy("memory action", "corrected"),
    "use": pgettext_lazy("memory action", "used"),
    "expire": pgettext_lazy("memory action", "expired"),
    "delete": pgettext_lazy("memory action", "deleted"),
    "reconfirm_flag": pgettext_lazy("memory action", "flagged: not confirmed for a long time"),
    "review_flag": pgettext_lazy("memory action", "flagged for review"),
}

# Kinds of task the engine runs for this app, for the admin's lists.
TASK_KIND_LABELS = {workflow.KIND: pgettext_lazy("task kind", "Purchase request")}

# Which notice a mail carries (templates/notices/<kind>.txt), for the admin's outbox.
NOTICE_KIND_LABELS = {
    "approval_new": pgettext_lazy("notice kind", "Approval requested"),
    "approval_reminder": pgettext_lazy("notice kind", "Approval reminder"),
    "approval_escalated": pgettext_lazy("notice kind", "Approval offered to a backup"),
    "approved": pgettext_lazy("notice kind", "Approved"),
    "rejected": pgettext_lazy("notice kind", "Rejected"),
    "returned": pgettext_lazy("notice kind", "Returned for revision"),
    "po_issued": pgettext_lazy("notice kind", "Purchase order issued"),
    "goods_received": pgettext_lazy("notice kind", "Goods received"),
    "arrival_check": pgettext_lazy("notice kind", "Has it arrived?"),
    "invoice_posted": pgettext_lazy("notice kind", "Invoice posted"),
    "invoice_waiting": pgettext_lazy("notice kind", "Invoice waiting for the goods"),
    "supplier_po": pgettext_lazy("notice kind", "Purchase order to the supplier"),
    "closed_short": pgettext_lazy("notice kind", "Closed short"),
    "supplier_closed": pgettext_lazy("notice kind", "Close short to the supplier"),
    "needs_review": pgettext_lazy("notice kind", "Needs review"),
    "review_new": pgettext_lazy("notice kind", "Waiting in the work queue"),
    "expired": pgettext_lazy("notice kind", "Approval expired"),
    "cancelled": pgettext_lazy("notice kind", "Cancelled"),
    "rewound": pgettext_lazy("notice kind", "Rewound"),
    "forked": pgettext_lazy("notice kind", "Forked"),
    "replayed": pgettext_lazy("notice kind", "Dry run viewed"),
}

DERIVED_COUNTS = {  # agentstate.memory.derivers names
    "versions": lambda n: ngettext("%(n)d history version", "%(n)d history versions", n) % {"n": n},
    "session summaries": lambda n: ngettext("%(n)d session summary", "%(n)d session summaries", n) % {"n": n},
    "chat turns quoting it": lambda n: ngettext("%(n)d chat turn quoting it", "%(n)d chat turns quoting it",
                                                n) % {"n": n},
    "task records quoting it": lambda n: ngettext("%(n)d task record quoting it", "%(n)d task records quoting it",
                                                  n) % {"n": n},
    "task event reasons quoting it": lambda n: ngettext("%(n)d task event reason quoting it",
                                                        "%(n)d task event reasons quoting it", n) % {"n": n},
}


def deletion_words(report, *, done: bool = False) -> str:
    """What deleting a memory entry takes with it (agentstate.memory.deletion.DeletionReport)."""
    counts = {"versions": report.versions, **report.derived}
    parts = [DERIVED_COUNTS[name](n) if name in DERIVED_COUNTS else f"{n} × {name}"
             for name, n in counts.items() if n]
    if not parts:
        return gettext("It removed nothing else.") if done else gettext("It removes nothing else.")
    what = parts[0] if len(parts) == 1 else gettext("%(items)s and %(last)s") % {
        "items": pgettext("list separator", ", ").join(parts[:-1]), "last": parts[-1]}
    if done:
        return gettext("It also removed %(what)s.") % {"what": what}
    return gettext("It also removes %(what)s.") % {"what": what}


# The catalogue's items (DESIGN §10). The item stays English in data, the API and the ERP
# ("Laptop", "USB-C dock"); a person reads it in their language, on pages, in notices, mail and chat.
ITEM_NAMES = {"Laptop": pgettext_lazy("catalogue item", "Laptop"),
              "Monitor": pgettext_lazy("catalogue item", "Monitor"),
              "Keyboard": pgettext_lazy("catalogue item", "Keyboard"),
              "USB-C dock": pgettext_lazy("catalogue item", "USB-C dock"),
              "Office chair": pgettext_lazy("catalogue item", "Office chair")}
_ITEM_KEYS = {item.casefold(): item for item in ITEM_NAMES}


def item_of_label(text: str) -> str:
    """The catalogue item a form row names by its label in any site language (「USB-C 擴充座」 ->
    "USB-C dock"), so a row shown in the reader's language comes back as the item it was; any
    other text as typed."""
    wanted = " ".join(str(text or "").split()).casefold()
    if wanted in _ITEM_KEYS:
        return _ITEM_KEYS[wanted]
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            for item, label_ in ITEM_NAMES.items():
                if str(label_).casefold() == wanted:
                    return item
    return str(text or "").strip()


def item_label(description) -> str:
    """A catalogue item in the active language (「筆電」 for "Laptop", whatever its case); any other
    description as the requester wrote it."""
    text = str(description or "")
    item = _ITEM_KEYS.get(" ".join(text.split()).casefold())
    return str(ITEM_NAMES[item]) if item else text


def item_names(descriptions) -> str:
    """Items named in the active language and listed: "Laptop, Monitor", 「筆電、螢幕」."""
    return pgettext("list separator", ", ").join(item_label(d) for d in descriptions or ())


def line_words(line) -> str:
    """One line of a request (a dict or an object with `description` and `quantity`): "Laptop × 2",
    「筆電 × 2」, as the chat says it; an open quantity reads "?"."""
    get = line.get if isinstance(line, dict) else lambda name: getattr(line, name, None)
    return pgettext("request line", "%(item)s × %(quantity)s") % {
        "quantity": get("quantity") or "?", "item": item_label(get("description"))}


def listed(parts) -> str:
    return pgettext("list separator", ", ").join(str(part) for part in parts or ())


def items_summary(lines) -> str:
    """What a request buys, in the active language: "Laptop × 2, Monitor × 1", 「筆電 × 2、螢幕 × 1」."""
    return listed(line_words(line) for line in lines or ())


# The same, said when it is rendered: a notice's context is built before its recipient's language is on.
items_summary_lazy = lazy(items_summary, str)


# The demo's departments (seed_demo, DESIGN §10). The code is the public contract ("ENG"); a
# department's name is shown as stored, in whatever language its admin wrote it, except the two
# the demo seeds in English, which a person reads in their language (「工程部」). Keyed by code and
# stored name, so a renamed ENG, or a department an admin called "Legal" or 「採購部」, reads as written.
# The same, said when it is rendered (a notice's context, like items_summary_lazy).
department_label_lazy = lazy(department_label, str)


def department_code_label(code: str) -> str:
    """A department known only by its code (a draft's, a sentence of the agent's) by its name in
    the reader's language; a code no department has stays as written."""
    return department_label(Department.objects.filter(code=code).first()) or code if code else ""


department_code_label_lazy = lazy(department_code_label, str)


def role_group_label(name: str) -> str:
    """A role group (selectors.grants.role_group_name: "ENG manager", "* director") as its reader
    says it: 「工程部 · 部門主管」, 「所有部門 · 處長」; a group named by hand stays as written."""
    code, _space, role = name.partition(" ")
    if role not in Membership.Role.values or not code:
        return name
    where = pgettext("role group", "every department") if code == "*" else department_code_label(code)
    return pgettext("role group: department · role", "%(department)s · %(role)s") % {
        "department": where, "role": Membership.Role(role).label}


# Approval routes (procurement.selectors.approval_route's `rule`).
RULE_LABELS = {
    "manager": pgettext_lazy("approval rule", "the manager"),
    "director": pgettext_lazy("approval rule", "the director"),
    "finance": pgettext_lazy("approval rule", "finance"),
    "chain": pgettext_lazy("approval rule", "the approval chain"),
    "fallback": pgettext_lazy("approval rule", "the fallback approver"),
}

# Who may fire an event, as the transition table names them (agentstate.kinds.T.allowed), for the
# admins' view of the table.
TRANSITION_ROLES = {
    "initiator": pgettext_lazy("transition role", "the requester"),
    "approver": pgettext_lazy("transition role", "an approver"),
    "reviewer": pgettext_lazy("transition role", "the work queue"),
    "runtime": pgettext_lazy("transition role", "the agent"),
    "receiver": pgettext_lazy("transition role", "who records deliveries"),
    "closer": pgettext_lazy("transition role", "who closes what is left open"),
    "agentstate.change_task": pgettext_lazy("transition role", "an admin"),
}

# The agent's own names in the event log: the worker's host and pid ("web-1:4242") and the
# runtime's parts. People see "the agent"; admins see the name under "details".
RUNTIME_ACTORS = frozenset({"runtime", "recovery", "receipts", "expiry", "escalation", "match", "agent"})
AGENT = pgettext_lazy("event actor", "the agent")


def is_agent(actor: str) -> bool:
    """True for the runtime's names; a username never contains ":" (Django allows @.+-_)."""
    return actor in RUNTIME_ACTORS or ":" in actor or not actor


def actor_label(actor: str) -> str:
    """「採購助理」/"the agent" for the runtime; a person by their name (procurement.words.people)."""
    return str(AGENT) if is_agent(actor) else person_label(actor)


def event_label(event: str) -> str:
    return label(EVENT_LABELS, event)


# A quote sheet's columns, as a refusal names them (procurement.quotesheet.reader reads them by these).
SHEET_COLUMN_LABELS = {
    "item": gettext_lazy("品項 (item)"),
    "supplier": gettext_lazy("供應商 (supplier)"),
    "tax_id": gettext_lazy("統一編號 (tax ID)"),
    "unit_price": gettext_lazy("單價 (unit price, before tax)"),
    "lead_time_days": gettext_lazy("交期 (lead time in days)"),
}
# What a question about a quote sheet's row asks for (procurement.quotesheet.checks: its kinds).
SHEET_QUESTION_LABELS = {
    "unknown_item": pgettext_lazy("quote sheet question", "the catalogue item the row means, or “drop”"),
    "tax_id": pgettext_lazy("quote sheet question", "the supplier's 8-digit tax ID, or “drop”"),
    "price": pgettext_lazy("quote sheet question", "“confirm”, the correct price, or “drop”"),
}
# The things looked up by id, as "no such ..." names them (procurement.selectors): in English by the
# API's names for them (tasks, sessions), in zh-Hant as the pages call them (請購, 對話).
THING_LABELS = {
    "task": pgettext_lazy("a thing looked up", "task"),
    "session": pgettext_lazy("a thing looked up", "session"),
    "approval": pgettext_lazy("a thing looked up", "approval"),
    "notice": pgettext_lazy("a thing looked up", "notice"),
}


def label(mapping: dict, code) -> str:
    """The label for `code`; an unknown code is shown as it is rather than hidden."""
    return str(mapping.get(code, code or ""))


def state_label(state: str) -> str:
    return label(STATE_LABELS, state)


def state_meaning(state: str) -> str:
    return label(STATE_MEANINGS, state)


# What offboarding writes over a person's words when they leave (stored as is, shown in words).
REDACTED = "[redacted]"

# The markers the engine writes where deleted or erased words were (stored in one language, like
# the audit trail), said in the reader's language wherever a turn is shown.
_REMOVED_BY = re.compile(re.escape(SOURCE_REMOVED).replace(r"\{who\}", r"(?P<who>[^\]]+?)")
                         .replace(r"\{day\}", r"(?P<day>\d{4}-\d{2}-\d{2})"))


def redactions_in(text: str) -> str:
    """A turn's text with every removal marker in the reader's language; the rest as written."""
    if "[re" not in (text or ""):
        return text
    text = _REMOVED_BY.sub(lambda m: pgettext("redaction", "[removed: memory deleted by %(who)s on %(day)s]")
                           % m.groupdict(), text)
    for marker, words in ((REMOVED, pgettext("redaction", "[removed with the entry]")),
                          (REDACTED, pgettext("redaction", "[redacted]")),
                          (MASK, pgettext("redaction", "[removed]"))):
        text = text.replace(marker, words)
    return text

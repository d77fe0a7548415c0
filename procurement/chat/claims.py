"""A model's reply is checked against State before it is shown (DESIGN §14). The model writes
words; only State knows numbers, amounts and where a request is. A reply that names a REQ or PO
number, an amount or a state that the requester's requests (as the context shows them: the one
in hand, her open ones and her recent ones) do not hold is not shown: the runtime answers from
State instead (chat.llm). Nothing here reads the database; it reads the TaskViews given."""
import json
import re
from dataclasses import asdict
from decimal import Decimal, InvalidOperation

from procurement import workflow
from procurement.chat.brain import Context, TaskView

# REQ-2026-0001 (a request), REQ-000123 (an ERP requisition), PO-000045 (a purchase order).
REFERENCE = re.compile(r"(?<![A-Za-z0-9])(?:REQ|PO)-[A-Za-z0-9]*\d[A-Za-z0-9-]*", re.IGNORECASE)
# An amount is a number with its currency: NT$1,050 / $1,050.00 / 1,050 元 / NTD 1050.
AMOUNT = re.compile(r"(?:NT\$|US\$|NTD|TWD|\$)\s?(\d[\d,]*(?:\.\d+)?)|(\d[\d,]*(?:\.\d+)?)\s?(?:元|NTD|TWD|dollars?)",
                    re.IGNORECASE)
NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
NEGATION = re.compile(r"(?:\bnot\b|n't\b|\bno\b|\byet to\b|尚未|還沒|沒有|未)\s*(?:\w+\s+){0,2}$", re.IGNORECASE)

APPROVED_STATES = frozenset({workflow.SUBMITTED, workflow.CONFIRMED})
# A claim about where a request is, and when it is true of a request as State holds it.
STATE_CLAIMS = (
    (re.compile(r"\bapproved\b|已核准|核准了|已批准|批准了", re.IGNORECASE),
     lambda v: v.state in APPROVED_STATES or v.decision.get("status") == "approved"),
    (re.compile(r"\b(?:po|purchase order)\b[^.!?。！？]{0,20}\b(?:issued|sent|placed|created)\b|\bordered\b|已下單|"
                r"已發出採購單|採購單已(?:發出|開立)", re.IGNORECASE),
     lambda v: v.state == workflow.CONFIRMED or bool(v.po_number)),
    (re.compile(r"\brejected\b|已駁回|被駁回", re.IGNORECASE), lambda v: v.state == workflow.REJECTED),
    (re.compile(r"\bcancell?ed\b|已取消", re.IGNORECASE), lambda v: v.state == workflow.CANCELLED),
    (re.compile(r"\breturned\b|已退回|被退回", re.IGNORECASE),
     lambda v: v.state == workflow.AWAITING_INPUT or v.decision.get("status") == "returned"),
)


def views_of(ctx: Context) -> list[TaskView]:
    """The requests the reply may speak of: the one in hand, then her open and recent ones."""
    seen, views = set(), []
    for view in (ctx.task, *ctx.candidates, *ctx.requests):
        if view is not None and view.id not in seen:
            seen.add(view.id)
            views.append(view)
    return views


def unfounded(reply: str, views: list[TaskView]) -> list[str]:
    """The claims in `reply` that State does not hold, as they were written ([] when all hold)."""
    if not reply:
        return []
    held = json.dumps([asdict(v) for v in views], ensure_ascii=False, default=str)
    references = {r.upper() for r in REFERENCE.findall(held)}
    amounts = {_decimal(n) for n in NUMBER.findall(held)} - {None}
    found = [r for r in REFERENCE.findall(reply) if r.upper() not in references]
    for match in AMOUNT.finditer(reply):
        if _decimal(match.group(1) or match.group(2)) not in amounts:
            found.append(match.group(0))
    for pattern, holds in STATE_CLAIMS:
        for match in pattern.finditer(reply):
            if NEGATION.search(reply[max(0, match.start() - 30):match.start()]):
                continue  # "not approved yet" claims nothing
            if not any(holds(v) for v in views):
                found.append(match.group(0))
    return found


def _decimal(text: str) -> Decimal | None:
    try:
        return Decimal(text.replace(",", ""))
    except (InvalidOperation, AttributeError):
        return None

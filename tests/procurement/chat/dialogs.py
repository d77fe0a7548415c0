"""Scripted dialogues (tests/procurement/chat/transcripts/*.yaml): state set up through the
services, then turns said one by one, each checked for its effects (tasks and drafts made or
not, quantities, states) and for the facts in the reply (REQ and PO numbers, the approver's
comment), never for exact wording. Shared by the test and by bench/dialogs.py.

A transcript:
    user: alice
    today: 2026-12-01         # optional; the day 「下週五」 and "by Friday" are read against
    setup:                    # optional; each a request submitted or decided through services
      - request: r1           # a name for it
        lines: [{description: Laptop, quantity: 2}]
        justification: QA
      - decide: r1            # the pending approval of r1
        by: bob
        decision: return      # approve / reject / return
        comment: 請改成兩台
      - receive: r1           # goods received on its PO (lines: line, accepted, rejected, reason)
        lines: [{line: 0, accepted: 2}]
      - invoice: r1           # a supplier invoice for the whole PO, entered by carol
        number: AB12345678
      - draft: d1             # a draft she left in a conversation of its own, by saying this there
        say: 我要一台筆電給新人
    turns:
      - say: 我上一張單子現在怎樣了？
        intent: status        # what the turn is for, for accuracy per intent
        action: status        # the action the turn carried out
        reply_has: ["{r1.number}", "{r1.comment}"]   # {name.id|number|po|comment|id8} from State
        reply_lacks: [...]
        state: awaiting_input # the conversation's request, after the turn
        states: {r1: awaiting_input}
        lines: {r1: [{description: Laptop, quantity: 2}]}
        received: {r1: [2]}   # accepted per PO line, net of returns, as recorded after the turn
        rejected: {r1: [0]}   # rejected per PO line
        drafts: 0             # the user's tasks in draft after the turn
        tasks: 1              # the user's tasks after the turn
        expects: confirm_submit
        draft: {...}          # the conversation's draft as stored
        refused: true         # the message was refused (400) before any turn
"""
from contextlib import nullcontext
from datetime import date
from pathlib import Path
from unittest import mock

import yaml

from agentstate.errors import DomainError
from agentstate.models import Approval, Session, Task
from procurement.purchase import services
from procurement.chat import facts
from procurement.chat.runtime import chat_turn
from procurement.models import PurchaseRequest
from procurement.invoicing.po import purchase_order_of
from procurement.invoicing.services import invoice_enter
from procurement.purchase.progress import progress_of
from procurement.purchase.tax import totals
from procurement.receiving.services import goods_receipt_record

TRANSCRIPTS = Path(__file__).resolve().parent / "transcripts"


def load(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def all_transcripts() -> list[tuple[str, dict]]:
    return [(path.stem, load(path)) for path in sorted(TRANSCRIPTS.glob("*.yaml"))]


def set_up(spec: list, people: dict) -> dict:
    """The named requests, made and decided through the services (steps run eagerly)."""
    named = {}
    for item in spec or []:
        if "request" in item:
            user = people[item.get("user", "alice")]
            department = item.get("department") or ("OPS" if user.get_username() == "erin" else "ENG")
            task = services.request_submit(requester=user, department=department, lines=item["lines"],
                                           justification=item.get("justification", "team work"),
                                           budget=item.get("budget"))
            named[item["request"]] = task.pk
        elif "decide" in item:
            approval = Approval.objects.get(task_id=named[item["decide"]], status="pending")
            services.approval_decide(approval_id=approval.pk, user=people[item.get("by", "bob")],
                                     decision=item["decision"], state_version=approval.state_version,
                                     scope_hash=approval.scope_hash, comment=item.get("comment", ""))
        elif "receive" in item:  # goods received on its PO, per line (0-based)
            goods_receipt_record(task_id=named[item["receive"]], user=people[item.get("by", "alice")],
                                 lines=item["lines"])
        elif "invoice" in item:  # a supplier invoice for the whole PO, entered by accounts payable
            invoice_enter(user=people[item.get("by", "carol")], task_id=named[item["invoice"]],
                          fields=invoice_fields(Task.objects.get(pk=named[item["invoice"]]), item["number"]))
        elif "draft" in item:  # started in another conversation and left there, never submitted
            user = people[item.get("user", "alice")]
            result = chat_turn(session=Session.objects.create(owner=user), user=user, text=item["say"])
            assert result.task is not None and result.task.state == "draft", result.reply
            named[item["draft"]] = result.task.pk
        elif "cancel" in item:
            task = Task.objects.get(pk=named[item["cancel"]])
            services.request_cancel(task_id=task.pk, user=task.initiator)
    return named


def invoice_fields(task, number: str) -> dict:
    po = purchase_order_of(task)
    subtotal, tax, total = totals(po.subtotal)
    return {"number": number, "date": "2026-12-01", "seller_tax_id": po.supplier.tax_id,
            "lines": [{"line": n, "quantity": line.quantity, "unit_price": str(line.unit_price)}
                      for n, line in enumerate(po.lines)],
            "subtotal": str(subtotal), "tax": str(tax), "total": str(total)}


def facts_of(named: dict) -> dict:
    values = {}
    for name, task_id in named.items():
        view = facts.view_of(task_id)
        values.update({f"{name}.id": str(task_id), f"{name}.number": view.number, f"{name}.po": view.po_number,
                       f"{name}.id8": str(task_id)[:8], f"{name}.comment": (view.decision or {}).get("comment", "")})
    return values


def expand(text: str, values: dict) -> str:
    for key, value in values.items():
        text = text.replace("{" + key + "}", value)
    return text


def say(session, user, turn: dict, values: dict):
    """(result, refusal): the turn's result, or the DomainError that refused the message."""
    text = expand(turn["say"], values) if "say" in turn else turn.get("char", "x") * turn["say_chars"]
    try:
        return chat_turn(session=session, user=user, text=text), None
    except DomainError as exc:
        return None, exc


def check(turn: dict, result, refusal, user, named: dict) -> list[str]:
    """What went wrong with this turn (empty when it went as scripted)."""
    values = facts_of(named)
    problems = []
    if turn.get("refused"):
        if refusal is None:
            return ["the message was not refused"]
        reply = str(refusal)
    else:
        if refusal is not None:
            return [f"refused: {refusal}"]
        reply = result.reply
        if "action" in turn and result.action != turn["action"]:
            problems.append(f"action {result.action!r}, expected {turn['action']!r}")
        if "state" in turn and (result.task.state if result.task else None) != turn["state"]:
            problems.append(f"state {result.task and result.task.state!r}, expected {turn['state']!r}")
        if "expects" in turn and result.turn.data["expects"] != turn["expects"]:
            problems.append(f"expects {result.turn.data['expects']!r}, expected {turn['expects']!r}")
        if "draft" in turn and Task.objects.get(pk=result.task.pk).data.get("draft") != turn["draft"]:
            problems.append(f"draft {Task.objects.get(pk=result.task.pk).data.get('draft')!r}")
        if "request" in turn and request_as_stored(result.task) != turn["request"]:
            problems.append(f"request {request_as_stored(result.task)!r}")
    for text in turn.get("reply_has", []):
        wanted = expand(str(text), values)
        if not wanted.strip() or wanted not in reply:
            problems.append(f"{wanted!r} not in the reply")
    for text in turn.get("reply_lacks", []):
        if expand(str(text), values) in reply:
            problems.append(f"{expand(str(text), values)!r} in the reply")
    mine = Task.objects.filter(initiator=user)
    if "drafts" in turn and mine.filter(state="draft").count() != turn["drafts"]:
        problems.append(f"{mine.filter(state='draft').count()} drafts, expected {turn['drafts']}")
    if "tasks" in turn and mine.count() != turn["tasks"]:
        problems.append(f"{mine.count()} tasks, expected {turn['tasks']}")
    for name, state in (turn.get("states") or {}).items():
        found = Task.objects.get(pk=named[name]).state
        if found != state:
            problems.append(f"{name} is {found}, expected {state}")
    for name, lines in (turn.get("lines") or {}).items():
        view = facts.view_of(named[name])
        if view.lines != lines:
            problems.append(f"{name} has {view.lines}, expected {lines}")
    for key in ("received", "rejected"):
        for name, counts in (turn.get(key) or {}).items():
            found = [getattr(line, key) for line in progress_of(Task.objects.get(pk=named[name])).lines]
            if found != counts:
                problems.append(f"{name} has {key} {found}, expected {counts}")
    return [f"{problem} (reply: {reply!r})" for problem in problems]


def request_as_stored(task) -> dict:
    request = PurchaseRequest.objects.get(task=task)
    budget = None if request.budget is None else str(request.budget)
    return {"justification": request.justification, "budget": budget,
            "lines": [{"description": line.description, "quantity": line.quantity} for line in request.lines.all()]}


def run(transcript: dict, people: dict, open_session) -> list[tuple[str, list[str]]]:
    """Each turn's intent and its problems, in order."""
    user = people[transcript["user"]]
    named = set_up(transcript.get("setup"), people)
    session = open_session(user)
    if transcript.get("session"):  # the conversation a notice was posted in follows this request
        session.task_id = named[transcript["session"]]
        session.save(update_fields=["task"])
    outcomes = []
    with on_day(transcript.get("today")):
        for turn in transcript["turns"]:
            result, refusal = say(session, user, turn, facts_of(named))
            outcomes.append((turn.get("intent", "other"), check(turn, result, refusal, user, named)))
    return outcomes


def on_day(day):
    """Relative dates in the chat read against this day (YAML gives a date or an ISO string)."""
    if not day:
        return nullcontext()
    day = day if isinstance(day, date) else date.fromisoformat(str(day))
    return mock.patch("procurement.chat.dates.today", return_value=day)

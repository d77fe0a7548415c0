"""Answers about a request, composed from State only (its recorded state, receipts, approvals
and the approver's comment), never from what was said in chat. Each names the request
(REQ number and items). An outcome nobody could verify reads "pending verification"."""
from datetime import datetime

from django.utils import timezone
from django.utils.text import capfirst

from procurement.infra import erp
from procurement.words import labels
from procurement import selectors, workflow
from procurement.words import event_reason, said_or_text
from procurement.words.people import person_label
from procurement.purchase.progress import standing_words
from procurement.purchase.requests import ANSWER, APPROVAL, CONFIRMATION, WaitingOn, moment
from procurement.chat import dates
from procurement.chat import draft as drafts
from procurement.words.phrases import join, language, listed, say

APPROVERS_SHOWN = 3


def state_words(state: str, lang: str) -> str:
    if state == workflow.AWAITING_INPUT:  # the requester reads "your answer", a manager "the requester's"
        return say("waiting_for_your_answer", lang)
    with language(lang):
        return labels.state_meaning(state)


def task_words(task, lang: str) -> str:
    """The request's state in words; after its PO how far goods and invoices came, as her home
    says it: 「部分到貨（2/3）」, 「已驗收，等待發票」, 「已結案」."""
    with language(lang):
        standing = standing_words(task.state, getattr(task, "progress", None))
    if not standing:
        return state_words(task.state, lang)
    standing = str(standing)  # a label (「部分到貨」, "Partly delivered"); in an English sentence, lower case
    return standing[:1].lower() + standing[1:] if lang == "en" else standing


def open_question(task, lang: str) -> str:
    """The open question in her language when the agent asked it; a manager's words as written."""
    with language(lang):
        return said_or_text(task.asked or task.question)


def _label(mapping: dict, code, lang: str) -> str:
    with language(lang):
        return labels.label(mapping, code)


def short_id(task_id) -> str:
    return str(task_id)[:8]


def name_of(task, lang: str) -> str:
    """REQ-000012 once the ERP has the requisition; 「您的草稿」 for a draft; before that, the
    request's short id."""
    if task.state == workflow.DRAFT and not task.number:
        return say("your_draft", lang)
    return task.number or f"{say('your_request', lang)} {short_id(task.id)}"


def one_line(task, lang: str) -> str:
    """`Laptop × 20 — waiting for approval [REQ-000012]`: enough to tell two requests apart."""
    return f"{drafts.describe_lines(task.lines, lang)} — {task_words(task, lang)} [{name_of(task, lang)}]"


def when(iso: str) -> str:
    return moment(datetime.fromisoformat(iso)) if iso else ""


def _head(task, lang: str) -> str:
    if task.state == workflow.DRAFT:  # no number and nothing sent yet: 「您的草稿（辦公椅 × 1）還沒送出。」
        return say("draft_head", lang, what=drafts.describe_lines(task.lines, lang))
    return say("status_head", lang, number=name_of(task, lang), what=drafts.describe_lines(task.lines, lang),
               state=task_words(task, lang))


def _waiting(task, lang: str) -> str:
    """Who it waits on and since when, in the same words as the pages (request_now's WaitingOn)."""
    waiting = task.waiting_on or {}
    if not waiting:
        return ""
    with language(lang):
        text = WaitingOn(waiting["kind"], tuple(waiting["people"]), datetime.fromisoformat(waiting["since"]),
                         tuple(tuple(pair) for pair in waiting.get("stand_ins") or ()))
        return text.text(_Viewer(waiting)) + say("full_stop", lang)


class _Viewer:
    """The requester reads "your answer": she is the only one the chat answers."""

    def __init__(self, waiting: dict):
        self.name = waiting["people"][0] if waiting["kind"] in (ANSWER, CONFIRMATION) and waiting["people"] else ""

    def get_username(self):
        return self.name


def _why_in_review(task, lang: str) -> str:
    """Why a request in review is there, as its timeline says it, in her language ("" elsewhere)."""
    if task.state != workflow.NEEDS_REVIEW:
        return ""
    with language(lang):
        event = selectors.why_in_review(task.id)
        reason = event_reason(event) if event is not None else ""
    reason = reason.strip().rstrip(".。")
    return join(say("why_review", lang, reason=reason) if reason else "", say("review_told", lang))


def status_reply(task, lang: str) -> str:
    """Where the task really is: its state, who it waits on (or why a person must look at it), the
    open question, receipts, approvals."""
    review = _why_in_review(task, lang)
    parts = [_head(task, lang), review or _waiting(task, lang)]
    if task.state == workflow.DRAFT:
        gaps = drafts.missing(task.draft)
        if gaps:
            parts.append(say("still_needed", lang, gaps=drafts.gap_names(gaps, lang)))
    if task.state == workflow.AWAITING_INPUT and task.question:
        parts.append(say("question", lang, question=open_question(task, lang)))
    if task.state in (workflow.REJECTED, workflow.CANCELLED, workflow.EXPIRED):
        # Who ended it and why, and that nothing comes of it: no ERP history to read through.
        if task.state == workflow.REJECTED and (task.decision or {}).get("status") == "rejected":
            return join(*parts, _decided(task, lang), say("ended", lang))
        parts.append(say("ended", lang))
    for receipt in [] if task.state in workflow.TERMINAL - {workflow.CONFIRMED} else _current(task.receipts):
        if review and receipt["status"] != "confirmed":
            continue  # the reason for the review already says what is in doubt
        ref = f" {receipt['external_id']}" if receipt["status"] == "confirmed" and receipt["external_id"] else ""
        parts.append(say("receipt", lang, label=_label(labels.OPERATION_LABELS, receipt["operation"], lang),
                         ref=ref, status=_label(labels.RECEIPT_LABELS, receipt["status"], lang)))
    for approval in task.approvals[:1]:  # the newest; older ones are history (versions are internals)
        if approval["status"] == "pending" and (task.waiting_on or {}).get("kind") == APPROVAL:
            continue  # already said: who it waits on, since when
        if approval["status"] == "pending":
            who = listed([person_label(name) for name in approval.get("approvers") or []], lang) or say(
                "a_manager", lang)
            words = say("approval_pending", lang, who=who)
        else:
            words = _label(labels.APPROVAL_LABELS, approval["status"], lang)
        parts.append(say("approval_line", lang, words=words))
    return join(*parts)


def _current(receipts: list[dict]) -> list[dict]:
    """What the ERP holds for the request as it is now: the newest requisition and purchase order.
    Requisitions cancelled when an amendment replaced them are history, not her request's state:
    one cancelled and not yet replaced is not said at all (never "confirmed")."""
    newest = {}
    cancelled = {r["cancels"] for r in receipts if r["operation"] == erp.CANCEL_REQUISITION
                 and r["status"] == "confirmed" and r.get("cancels")}
    for receipt in receipts:  # oldest first
        if receipt["operation"] != erp.CANCEL_REQUISITION:
            newest[receipt["operation"]] = receipt
    return [r for r in newest.values() if not (r["operation"] == erp.CREATE_REQUISITION
                                               and r["external_id"] in cancelled)]


def supplier_reply(task, lang: str) -> str:
    """"Why this supplier?": the rule the award follows, with the winner and its total."""
    if not task.supplier:
        return join(say("supplier_none", lang, number=name_of(task, lang), state=task_words(task, lang)),
                    _waiting(task, lang))
    return say("supplier_why", lang, number=name_of(task, lang), supplier=task.supplier,
               total=drafts.money(task.total) if task.total else "-")


def stock_reply(item: str, catalogue, lang: str) -> str:
    """"Do we have laptops in stock?": nothing here sees a stock room; what it costs to buy one today."""
    priced = drafts.estimate([{"description": item, "quantity": 1}], catalogue) if item in catalogue else None
    if priced is None:
        return say("stock_none", lang, items=drafts.catalogue_words(catalogue, lang))
    return say("stock", lang, item=drafts.item_name(item, lang), total=drafts.money(priced[1]))


def nudge_reply(task, lang: str) -> str:
    """"Can you remind dave?": who was told and when, and the reminder that goes by itself."""
    pending = next((a for a in task.approvals if a["status"] == "pending"), None)
    if pending is None or task.state != workflow.AWAITING_APPROVAL:
        return join(say("nudge_nothing", lang, number=name_of(task, lang), state=task_words(task, lang)),
                    _waiting(task, lang))
    deadline = timezone.localtime(datetime.fromisoformat(pending["expires_at"])) if pending["expires_at"] else None
    when = say("day_and_time", lang, day=dates.day_words(deadline.date(), lang), time=f"{deadline:%H:%M}") \
        if deadline else "-"
    return join(_waiting(task, lang), say("nudge", lang, deadline=when))


def money_reply(task, lang: str) -> str:
    """"What's the budget?": the best offer's total and her cap, in one sentence."""
    if task.total:
        total = drafts.money(task.total)
    else:  # a draft: the best offer it would get today
        estimate = drafts.estimate(task.lines)
        total = drafts.money(estimate[1]) if estimate else say("not_priced", lang)
    key = "money_capped" if task.budget else "money_uncapped"
    return capfirst(say(key, lang, number=name_of(task, lang), what=drafts.describe_lines(task.lines, lang), total=total,
               cap=drafts.money(task.budget) if task.budget else ""))


def po_reply(task, lang: str) -> str:
    what = drafts.describe_lines(task.lines, lang)
    if task.po_number:
        return say("po_issued", lang, number=name_of(task, lang), po=task.po_number, what=what,
                   supplier=task.supplier or "-", total=drafts.money(task.total) if task.total else "-")
    return join(say("po_none", lang, number=name_of(task, lang), what=what, state=task_words(task, lang)),
                _waiting(task, lang))


def _decided(task, lang: str) -> str:
    decision = task.decision
    return say("decided", lang, who=person_label(decision["by"]) or say("a_manager", lang),
               decision=say(f"decided_{decision['status']}", lang), at=when(decision["at"]),
               comment=decision["comment"])


def why_reply(task, lang: str) -> str:
    head = _head(task, lang)
    review = _why_in_review(task, lang)
    if review:
        return join(head, review)
    if task.decision and task.decision["status"] in ("rejected", "returned") and task.state in (
            workflow.REJECTED, workflow.AWAITING_INPUT, workflow.PROCESSING, workflow.AWAITING_APPROVAL):
        return join(head, _decided(task, lang))
    if task.state == workflow.AWAITING_INPUT and task.question:
        return join(head, say("question", lang, question=open_question(task, lang)))
    if task.decision and task.decision["status"] == "approved" and task.decision["comment"]:
        return join(head, _decided(task, lang))  # 「主管有說什麼嗎」 after 「OK，盡快到貨」
    # 「為什麼還沒核准」: nothing went wrong, so say what it is waiting for, on whom and since when.
    return join(say("why_nothing", lang, number=name_of(task, lang), what=drafts.describe_lines(task.lines, lang),
                    state=task_words(task, lang)), _waiting(task, lang))


def change_reply(task, lang: str) -> str:
    what = drafts.describe_lines(task.lines, lang)
    decision = task.decision
    if task.state == workflow.AWAITING_INPUT and decision.get("status") == "returned":
        return say("change_returned", lang, who=person_label(decision["by"]) or say("a_manager", lang),
                   number=name_of(task, lang), what=what, comment=decision["comment"])
    if task.state == workflow.AWAITING_INPUT and task.question:
        return join(_head(task, lang), say("waiting_for", lang, question=open_question(task, lang)))
    return say("change_none", lang, number=name_of(task, lang), what=what, state=task_words(task, lang))


def list_reply(tasks, lang: str, *, open_only: bool = False, more: int = 0) -> str:
    """The caller's requests, newest first, from State, her drafts (never sent) marked as such;
    `more`: how many older ones are not listed."""
    if not tasks:
        return say("no_open_requests" if open_only else "no_requests", lang)
    rows = [say("list_draft_row", lang, n=n, what=drafts.describe_lines(t.lines, lang))
            if t.state == workflow.DRAFT and not t.number else
            say("list_row", lang, n=n, number=name_of(t, lang), what=drafts.describe_lines(t.lines, lang),
                state=task_words(t, lang)) + (say("list_po", lang, po=t.po_number) if t.po_number else "")
            for n, t in enumerate(tasks, start=1)]
    if more > 0:
        rows.append(say("list_more", lang, n=more))
    return "\n".join([say("list_open_head" if open_only else "list_head", lang), *rows])


def unknowable_reply(task, lang: str) -> str:
    if task is None:
        return say("unknowable_none", lang)
    return join(say("unknowable", lang), status_reply(task, lang), say("created_nothing", lang))

"""Receiving from chat, the runtime's side (DESIGN §16): what a ReceiveGoods proposal would record
per PO line, read against what is still open, the preview she says yes to, the words after it is
recorded through the receiving service, and the answers to 「到了嗎」 and 「發票開了嗎」 from State."""
from dataclasses import dataclass

from agentstate.models import Task

from procurement import workflow
from procurement.chat import draft as drafts
from procurement.chat.status import name_of, state_words, task_words
from procurement.models import SupplierInvoice
from procurement.chat.vocabulary import match_item
from procurement.purchase.progress import PROGRESS_READS, progress_of, standing_words
from procurement.words.arrivals import joined, reason_words, say
from procurement.words.phrases import in_lang, language


@dataclass
class Plan:
    lines: list
    refusal: str = ""


def receivable(task_id) -> Task:
    return Task.objects.prefetch_related(*PROGRESS_READS).get(pk=task_id)


def plan(task: Task, action, view, lang: str, catalogue=()) -> Plan:
    """The receipt lines the proposal means, each within what is open; or why none can be."""
    progress = progress_of(task)
    number = name_of(view, lang)
    if action.lines:
        wanted = [dict(line) for line in action.lines]
    elif action.returned:
        wanted, refusal = _return_lines(progress, action, lang, catalogue)
        if refusal:
            return Plan([], refusal)
    else:
        targets = [line for line in progress.lines if line.open > 0]
        if action.item:
            named = [line for line in progress.lines if match_item(line.description, catalogue) == action.item]
            targets = [line for line in named if line.open > 0] or named
        if not targets:
            return Plan([], say("nothing_open", lang, number=number))
        if action.arrived is not None and len(targets) > 1:
            lines = drafts.describe_lines([{"description": t.description, "quantity": t.ordered} for t in targets],
                                          lang)
            return Plan([], say("which_line", lang, lines=lines))
        wanted = []
        for line in targets:
            arrived = line.open if action.arrived is None else action.arrived
            rejected = min(action.rejected, arrived) if len(targets) == 1 else 0
            wanted.append({"line": line.line, "accepted": arrived - rejected, "rejected": rejected,
                           "reason": (action.reason or "other") if rejected else ""})
    for line in wanted:
        line.setdefault("rejected", 0)
        line.setdefault("reason", "")
        done = progress.lines[line["line"]] if line["line"] < len(progress.lines) else None
        if done is None:
            return Plan([], say("nothing_open", lang, number=number))
        if line["accepted"] < 0 and -line["accepted"] > done.received:
            return Plan([], say("over_return", lang, received=done.received, returned=-line["accepted"],
                                item=drafts.item_name(done.description, lang), number=number))
        if line["accepted"] > done.open:
            return Plan([], say("over", lang, open=done.open, item=drafts.item_name(done.description, lang),
                                number=number, ordered=done.ordered, received=done.received))
        if (line["rejected"] or line["accepted"] < 0) and not line["reason"]:
            line["reason"] = "other"
    return Plan([line for line in wanted if line["accepted"] or line["rejected"]])


def _return_lines(progress, action, lang: str, catalogue) -> tuple[list, str]:
    """The one line a return takes back from (the item she named; among several, those accepted)."""
    named = [line for line in progress.lines if not action.item
             or match_item(line.description, catalogue) == action.item] or list(progress.lines)
    named = [line for line in named if line.received > 0] or named
    if len(named) > 1:
        lines = drafts.describe_lines([{"description": t.description, "quantity": t.received} for t in named], lang)
        return [], say("which_line_return", lang, lines=lines)
    return [{"line": named[0].line, "accepted": -action.returned, "rejected": 0,
             "reason": action.reason or "other"}], ""


def returning(lines: list) -> bool:
    """Every line takes accepted goods back: the lines are a return (退貨)."""
    return bool(lines) and all(line["accepted"] < 0 for line in lines)


def _lines_words(task: Task, lines: list, lang: str) -> str:
    progress = progress_of(task)
    parts = []
    for line in lines:
        if line["accepted"] < 0:
            parts.append(say("line_returned", lang, item=drafts.item_name(progress.lines[line["line"]].description,
                                                                        lang),
                             returned=-line["accepted"], reason=reason_words(line["reason"], lang)))
            continue
        text = say("line", lang, item=drafts.item_name(progress.lines[line["line"]].description, lang),
                   accepted=line["accepted"])
        if line["rejected"]:
            text += say("line_rejected", lang, rejected=line["rejected"], reason=reason_words(line["reason"], lang))
        parts.append(text)
    return joined(parts, lang)


def preview(task: Task, view, lines: list, lang: str) -> str:
    return say("preview_return" if returning(lines) else "preview", lang, number=name_of(view, lang), po=view.po_number or "-",
               lines=_lines_words(task, lines, lang))


def _standing(task: Task, lang: str) -> str:
    with language(lang):
        return str(standing_words(task.state, progress_of(task)) or state_words(task.state, lang))


def recorded(task_id, view, lines: list, lang: str) -> str:
    task = receivable(task_id)
    return say("recorded_return" if returning(lines) else "recorded", lang, number=name_of(view, lang),
               lines=_lines_words(task, lines, lang),
               standing=_standing(task, lang))


def _not_ordered(view, lang: str) -> str:
    return say("not_ordered", lang, number=name_of(view, lang), what=drafts.describe_lines(view.lines, lang),
               state=task_words(view, lang))


def arrival_reply(view, lang: str) -> str:
    """「到了嗎」: what was received on its PO, per line, from the goods receipts."""
    if view.state not in (workflow.CONFIRMED, workflow.CLOSED):
        return _not_ordered(view, lang)
    task = receivable(view.id)
    progress = progress_of(task)
    standing = _standing(task, lang)
    if not any(line.received or line.rejected for line in progress.lines):
        return say("none_received", lang, number=name_of(view, lang), po=view.po_number or "-", standing=standing)
    parts = []
    for line in progress.lines:
        text = say("received_line", lang, item=drafts.item_name(line.description, lang), received=line.received,
                   ordered=line.ordered)
        parts.append(text + (say("received_rejected", lang, rejected=line.rejected) if line.rejected else ""))
    return say("received", lang, number=name_of(view, lang), po=view.po_number or "-", lines=joined(parts, lang),
               standing=standing)


def invoice_reply(view, lang: str) -> str:
    """「發票開了嗎」: the supplier invoices entered on its PO and where each stands."""
    if view.state not in (workflow.CONFIRMED, workflow.CLOSED):
        return _not_ordered(view, lang)
    invoices = list(SupplierInvoice.objects.filter(task_id=view.id).order_by("created_at"))
    if not invoices:
        return say("no_invoice", lang, number=name_of(view, lang), po=view.po_number or "-")
    parts = [say("invoice", lang, invoice=i.number, date=i.date.isoformat(), total=drafts.money(i.total),
                 status=in_lang(i.get_status_display(), lang)) for i in invoices]
    return say("invoices", lang, number=name_of(view, lang), po=view.po_number or "-", invoices=joined(parts, lang))

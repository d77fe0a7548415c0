"""Deliveries in chat (DESIGN §16): 「東西到了」, 「收到兩台，一台有刮傷」, 「椅子那張只來了一張」, "the
monitors arrived", "only 2 of 3 came"; and the questions 「到了嗎」 / "has it arrived?" and
「發票開了嗎」 / "has the invoice come?". Phrase tables, a parser giving what she said arrived
(count, rejected count and why), which ordered request it is about, and the rule brain's
handlers for the rows of hearing.DECISIONS that use them. Nothing here writes: dispose records a
receipt only on her own yes to the preview it showed."""
import re
from dataclasses import dataclass

from procurement import workflow
from procurement.chat.vocabulary import match_item
from procurement.chat import lexicon
from procurement.chat.brain import Ask, NoAction, Proposal, ReceiveGoods, Status
from procurement.chat.deliveries import (ASKED, MEASURE, REF, WORD_NUMBERS, narrowed, ordered, picked,
                                         previous_message, says_any)
from procurement.chat.receive import returning
from procurement.chat.status import one_line
from procurement.words.arrivals import say

# -- phrase tables: (words, what they mean) ----------------------------------------------------
ARRIVED = (r"到了", r"到貨了?", r"收到了?", r"來了", r"送到了?", r"送來了?", r"送達", r"到齊", r"已到",
           r"\barrived\b", r"\bcame\b", r"\bcome in\b", r"\bshowed up\b", r"\bturned up\b", r"\bgot here\b",
           r"\breceived\b", r"\bdelivered\b", r"\bhas come\b", r"\bhave come\b",
           # "got 2, one is scratched", "got two docks"; never "got it" or "got a question"
           r"\bgot\s+(?:only\s+|just\s+)?(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten)\b")
ARRIVE_ASKED = (r"到(?:了)?(?:嗎|沒)", r"\barrive\b", r"\b(?:did|has|have)\s+(?:it|they|the \w+|my \w+|\w+)\s+come\b", r"\bbeen delivered\b", r"\bget here\b")
FUTURE = (r"什麼時候", r"何時", r"會到", r"\bwhen\b", r"\bwill\b", r"\bexpected\b", r"明天", r"下週")
INVOICE = (r"發票", r"\binvoices?\b", r"\bbilled\b", r"\bbill\b")
REJECTED = {  # why a part of the delivery is not accepted
    "damaged": (r"刮傷", r"刮痕", r"壞", r"破", r"裂", r"損", r"瑕疵", r"凹", r"故障", r"不能用",
                r"\bscratch(?:ed|es)?\b", r"\bdamaged\b", r"\bbroken\b", r"\bcracked\b", r"\bdented\b",
                r"\bdefective\b", r"\bfaulty\b", r"\bdead\b"),
    "wrong_item": (r"送錯", r"寄錯", r"錯的", r"錯貨", r"型號不對", r"\bwrong\b", r"\bnot what we ordered\b"),
}
NUMBER = r"(\d+|one|two|three|four|five|six|seven|eight|nine|ten)"
OF = re.compile(rf"\b{NUMBER}\s+(?:out\s+)?of\s+(?:the\s+)?{NUMBER}\b", re.IGNORECASE)


def _int(token: str) -> int:
    return int(token) if token.isdigit() else WORD_NUMBERS[token.lower()]


@dataclass(frozen=True)
class Said:
    """What she says arrived: the item (or none: everything open), how many came (None: all
    still open), how many of those are rejected and why."""
    item: str = ""
    arrived: int | None = None
    rejected: int = 0
    reason: str = ""


def asked(text: str) -> str:
    """"arrival" or "invoice" for a question about them, "" otherwise ("when will it arrive?"
    is about the future: the records cannot say)."""
    if says_any(FUTURE, text) or not says_any(ASKED, text):
        return ""
    if says_any(INVOICE, text):
        return "invoice"
    return "arrival" if says_any(ARRIVED, text) or says_any(ARRIVE_ASKED, text) else ""


def said(text: str, catalogue=()) -> Said | None:
    """What arrived, or None if the message says nothing arrived (or asks, or files a request)."""
    if not says_any(ARRIVED, text) or asked(text) or says_any(FUTURE, text) or lexicon.REQUEST_VERB.search(text) \
            or says_any(INVOICE, text):
        return None
    plain = REF.sub(" ", text)
    rejected, reason, cut = 0, "", None
    for why, patterns in REJECTED.items():
        for pattern in patterns:
            hit = re.search(pattern, plain, re.IGNORECASE)
            if hit:
                reason = why
                before = plain[max(0, hit.start() - 24):hit.start()]
                counted = list(re.finditer(rf"{NUMBER}\s*{MEASURE}?", before, re.IGNORECASE))
                rejected = _int(counted[-1].group(1)) if counted else 1
                cut = (max(0, hit.start() - 24) + counted[-1].start()) if counted else hit.start()
                break
        if reason:
            break
    head = plain[:cut] if cut is not None else plain
    of = OF.search(head)
    if of:
        arrived = _int(of.group(1))
    else:
        counts = [m for m in re.finditer(rf"(?<![A-Za-z0-9-])(\d+)\s*{MEASURE}?|\b(one|two|three|four|five|six|seven|"
                                         rf"eight|nine|ten)\b", head, re.IGNORECASE)]
        arrived = _int(counts[0].group(1) or counts[0].group(2)) if counts else None
    return Said(item=match_item(plain, catalogue) or "", arrived=arrived, rejected=rejected, reason=reason)


class ArrivalHandlers:
    """The rule brain's handlers for deliveries (mixed into RuleBrain)."""

    def arrival_readers(self, heard) -> dict:
        message, ctx = heard.message, heard.ctx
        return {"arrival_question": lambda: bool(asked(message)),
                "arrival": lambda: said(message, ctx.catalogue) is not None,
                "receipt_pick": lambda: bool(message.strip())}  # the row waits for choose_receipt

    def answer_arrival(self, ctx, heard):
        views = ordered(ctx, ended_too=True)
        if views:
            views = narrowed(ctx, views, ctx.message)
        else:  # nothing ordered: where her request stands says why nothing arrived
            views = [v for v in (ctx.task, *ctx.requests) if v is not None and v.state != workflow.DRAFT][:1]
        if not views:
            return Proposal(say("no_orders", ctx.lang), NoAction())
        return Proposal("", Status(topic=asked(ctx.message), task_id=views[0].id))

    def arrival_said(self, ctx, heard, text: str = ""):
        text = text or ctx.message
        views = ordered(ctx)
        if not views:
            return None  # nothing ordered: the message is something else
        views = narrowed(ctx, views, text)
        found = said(text, ctx.catalogue)
        if len(views) > 1:
            options = "\n".join(f"{n}. {one_line(v, ctx.lang)}" for n, v in enumerate(views, start=1))
            question = say("which_request", ctx.lang, options=options)
            return Proposal(question, Ask(question=question[:500]), expects="choose_receipt")
        return Proposal("", ReceiveGoods(task_id=views[0].id, item=found.item, arrived=found.arrived,
                                         rejected=found.rejected, reason=found.reason))

    def receipt_picked(self, ctx, heard):
        previous = previous_message(ctx)
        found = said(previous, ctx.catalogue)
        if found is None:
            return None
        view = picked(ctx, narrowed(ctx, ordered(ctx), previous))
        if view is not None:
            return Proposal("", ReceiveGoods(task_id=view.id, item=found.item, arrived=found.arrived,
                                             rejected=found.rejected, reason=found.reason))
        return self.arrival_said(ctx, heard, text=f"{ctx.message} {previous}")

    def receipt_confirmed(self, ctx, heard):
        confirming = ctx.confirming or {}
        if confirming.get("action") != "receive":
            return None
        return Proposal("", ReceiveGoods(task_id=confirming["task"], lines=confirming["lines"]))

    def receipt_kept(self, ctx, heard):
        kept = "kept_return" if returning((ctx.confirming or {}).get("lines") or []) else "kept"
        return Proposal(say(kept, ctx.lang), NoAction())

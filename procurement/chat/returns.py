"""Returns in chat (退貨, DESIGN §16): 「退一台螢幕，尺寸不對」, 「有一張椅子要退貨，壞了」, 「螢幕退回兩台」,
"I need to return one monitor, wrong item", "send back 2 chairs, damaged". Phrase tables for the
words a return is said with and for its reason (damaged, wrong item, other), a reader giving what
she returns, and the rule brain's handlers for the rows of hearing.DECISIONS that use them.
Nothing here writes: dispose records the return only on her own yes to the preview it showed."""
import re
from dataclasses import dataclass

from procurement.chat.brain import Ask, Proposal, ReceiveGoods
from procurement.chat.deliveries import (ASKED, MEASURE, REF, WORD_NUMBERS, narrowed, ordered, picked,
                                         previous_message, says_any)
from procurement.chat.phrasebook import Phrases
from procurement.chat.status import one_line
from procurement.chat.vocabulary import match_item
from procurement.words.arrivals import say

# -- phrase tables -----------------------------------------------------------------------------
RETURN = Phrases(en=("return", "returning", "send back", "sending back", "take back", "ship back"),
                 zh=("退貨", "退回", "退掉", "退還", "要退", "想退"),
                 patterns=(rf"退\s*\d+\s*{MEASURE}", r"\b(?:send|sending|ship|shipping|take|taking)\s+(?:\S+\s+){0,3}back\b"))
# Her request sent back to her by an approver, not goods going back to the supplier.
NOT_GOODS = Phrases(en=("was returned", "got returned", "been returned", "returned to me", "sent back to me"),
                    zh=("被退回", "被退", "退件", "駁回"))
REASONS = {  # why the goods go back; none of these: other
    "damaged": Phrases(en=("damaged", "broken", "broke", "scratched", "scratch", "scratches", "cracked", "dented",
                           "defective", "faulty", "dead", "not working", "doesn't work", "does not work"),
                       zh=("刮傷", "刮痕", "壞", "破", "裂", "損", "瑕疵", "凹", "故障", "不能用", "不會動")),
    "wrong_item": Phrases(en=("wrong item", "wrong", "wrong size", "wrong model", "not what we ordered",
                              "not what i ordered", "doesn't fit", "does not fit", "don't fit", "do not fit"),
                          zh=("尺寸不對", "規格不對", "型號不對", "顏色不對", "不對", "送錯", "寄錯", "錯的", "錯貨", "不符")),
}
COUNT = re.compile(rf"(?<![A-Za-z0-9-])(\d+)\s*{MEASURE}?|\b(one|two|three|four|five|six|seven|eight|nine|ten|an?)\b",
                   re.IGNORECASE)


@dataclass(frozen=True)
class Returned:
    """What she sends back: the item (or none: the one line there is), how many, and why."""
    item: str = ""
    count: int = 1
    reason: str = "other"


def returned(text: str, catalogue=()) -> Returned | None:
    """What she returns, or None if the message is no return (or asks about one)."""
    if not RETURN.search(text) or NOT_GOODS.search(text) or says_any(ASKED, text):
        return None
    plain = REF.sub(" ", text)
    count = COUNT.search(plain)
    number = (count.group(1) or count.group(2)) if count else "1"
    reason = next((why for why, phrases in REASONS.items() if phrases.search(plain)), "other")
    return Returned(item=match_item(plain, catalogue) or "",
                    count=int(number) if number.isdigit() else WORD_NUMBERS[number.lower()], reason=reason)


def _action(view, found: Returned) -> ReceiveGoods:
    return ReceiveGoods(task_id=view.id, item=found.item, returned=found.count, reason=found.reason)


class ReturnHandlers:
    """The rule brain's handlers for returns (mixed into RuleBrain)."""

    def return_readers(self, heard) -> dict:
        message, ctx = heard.message, heard.ctx
        return {"return": lambda: returned(message, ctx.catalogue) is not None,
                "return_pick": lambda: bool(message.strip())}  # the row waits for choose_return

    def return_said(self, ctx, heard, text: str = ""):
        text = text or ctx.message
        views = ordered(ctx)
        found = returned(text, ctx.catalogue)
        if not views or found is None:
            return None  # nothing ordered: the message is something else
        views = narrowed(ctx, views, text)
        if len(views) > 1:
            options = "\n".join(f"{n}. {one_line(v, ctx.lang)}" for n, v in enumerate(views, start=1))
            question = say("which_return", ctx.lang, options=options)
            return Proposal(question, Ask(question=question[:500]), expects="choose_return")
        return Proposal("", _action(views[0], found))

    def return_picked(self, ctx, heard):
        previous = previous_message(ctx)
        found = returned(previous, ctx.catalogue)
        if found is None:
            return None
        view = picked(ctx, narrowed(ctx, ordered(ctx), previous))
        if view is not None:
            return Proposal("", _action(view, found))
        return self.return_said(ctx, heard, text=f"{ctx.message} {previous}")

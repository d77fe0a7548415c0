"""What the chat's deliveries (arrivals.py) and returns (returns.py) share: the words a count is
said with, which of her ordered requests a message is about (its REQ or PO number, the item, the
request she is in), her pick from a numbered list, and her earlier message read again as any
message is read on entry (the conversation keeps her own words). Nothing here writes."""
import re

from procurement import workflow
from procurement.chat.normalise import normalise
from procurement.chat.vocabulary import match_item

ASKED = (r"嗎\s*$", r"沒\s*[?？]?\s*$", r"了沒", r"[?？]\s*$", r"^\s*(?:has|have|did|is|are|was|were)\b", r"\byet\b")
WORD_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
                "nine": 9, "ten": 10, "a": 1, "an": 1}
MEASURE = r"[台臺個張支部組套把顆件位份本條箱盒隻]"
REF = re.compile(r"\b(?:REQ|PO)-\d{3,}(?:-\d+)?\b", re.IGNORECASE)
# Her answer to "which request?": its number in the list she was shown.
PICK = re.compile(r"\s*(?:no\.?\s*|#|第)?(\d+)\s*(?:個|張|筆|one)?\s*")


def says_any(patterns, text: str) -> bool:
    """Whether the text says any of these (regular expressions, case ignored)."""
    return any(re.search(p, text, re.IGNORECASE) for p in patterns)


def ordered(ctx, *, ended_too: bool = False) -> list:
    """Her requests with a purchase order out (and closed ones, if asked), the conversation's first."""
    states = {workflow.CONFIRMED, workflow.CLOSED} if ended_too else {workflow.CONFIRMED}
    views, seen = [], set()
    for view in (ctx.task, *ctx.requests):
        if view is not None and view.state in states and view.id not in seen:
            seen.add(view.id)
            views.append(view)
    return views


def narrowed(ctx, views: list, text: str) -> list:
    """The views the text is about: its REQ or PO number, else its item, else the request she is in."""
    ref = REF.search(text)
    if ref:
        views = [v for v in views if ref.group(0).upper() in (v.number.upper(), v.po_number.upper())]
    item = match_item(REF.sub(" ", text), ctx.catalogue)
    if item:
        views = [v for v in views if any(match_item(line["description"], ctx.catalogue) == item
                                         for line in v.lines)] or views
    for current in (ctx.task.id if ctx.task else "", ctx.about):
        if len(views) > 1 and any(v.id == current for v in views):
            views = [v for v in views if v.id == current]
    return views


def previous_message(ctx) -> str:
    """Her message before this one, made plain as every message is on entry (「收到十二個」 as
    「收到12個」, 「３」 as 「3」): the turns keep her own words."""
    return normalise(next((text for role, text in reversed(ctx.turns) if role == "user"), ""))


def picked(ctx, views: list):
    """The view she picked by its number in the list, or None."""
    number = PICK.fullmatch(ctx.message)
    return views[int(number.group(1)) - 1] if number and 1 <= int(number.group(1)) <= len(views) else None

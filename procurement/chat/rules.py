"""The rule-based brain, the offline default: deterministic, English and Traditional Chinese.

It reads the message with `extract` and `lexicon` and proposes one action. It never decides
whether an action is allowed (the runtime does) and never writes the confirmation prompt
for a draft: the runtime writes that from the stored draft, so what the requester confirms
is exactly what would be submitted."""
import re
from datetime import date

from procurement import workflow
from procurement.infra.limits import MAX_QUANTITY
from procurement.chat.vocabulary import match_item
from procurement.chat import dates, lexicon
from procurement.chat.phrasebook import Phrases
from procurement.chat.brain import (Amend, Ask, Attach, Cancel, Context, NoAction, Proposal, ProposeMemory, Status, Submit,
                    TaskView, UpdateDraft)
from procurement.chat.arrivals import ArrivalHandlers
from procurement.chat.returns import ReturnHandlers
from procurement.chat.dates import day_words
from procurement.chat.draft import catalogue_words, department_name, describe_lines, item_name, justification_submitted, money, reason_words
from procurement.chat.hearing import Heard, decide
from procurement.chat.extract import NUMBER, REMOVE, extract, find_money, is_spec_of_gone_item, lone_count, tax_basis, to_int
from procurement.words.phrases import entry_words, join, listed, say
from procurement.chat.questions import REF, is_open_question
from procurement.chat.status import name_of, one_line, open_question, state_words, task_words

ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "第一": 1, "第二": 2, "第三": 3,
            "第四": 4, "第五": 5}
CHANGE_VERB = Phrases(en=("add", "also", "change", "instead", "replace", "make it", "more", "just", "only"),
                      zh=("加", "改", "再", "換", "另外", "只要", "減"))
TAX_ANSWERS = {"incl": "included", "included": "included", "inclusive": "included", "with": "included",
               "with tax": "included", "含": "included", "含稅": "included", "excl": "excluded", "excluded": "excluded",
               "exclusive": "excluded", "without": "excluded", "before tax": "excluded", "未": "excluded",
               "未稅": "excluded", "不含": "excluded", "不含稅": "excluded"}
NAMED_CANCEL = re.compile(
    r"^\s*(?:please\s+)?(?:cancel|scrap|withdraw)\s+(?P<en>.+)$|^\s*(?:請|幫我)?(?:取消|撤掉|撤銷|撤回)\s*(?P<zh>.+)$|"
    # 「幫我把椅子那張撤掉」: the request first, then the verb; its 那張/那筆 tells it from an item (「螢幕不要了」)
    r"^\s*(?:請|麻煩)?(?:幫我)?把?\s*(?P<zh2>.+?(?:那張|那筆|的單子?|的申請))\s*(?:撤掉|撤銷|撤回|取消掉?|不要了)"
    r"\s*(?:吧|了|好了)?\s*[。！!]?$", re.IGNORECASE)
JUSTIFY_WORD = Phrases(en=("justification", "reason", "purpose", "because"), zh=("用途", "因為", "理由"))


class RuleBrain(ArrivalHandlers, ReturnHandlers):
    name = "rules"

    def propose(self, ctx: Context) -> Proposal:
        """The answer of the first row of hearing.DECISIONS that fits and answers."""
        _, proposal = decide(self, ctx)
        return proposal

    def hears(self, intent: str, heard: Heard) -> bool:
        """Whether the message carries `intent` (hearing.INTENTS), read by this brain's readers."""
        message, ctx = heard.message, heard.ctx
        readers = {
            "injection": lambda: bool(heard.injection),
            "thanks": lambda: lexicon.is_thanks(message),
            "ack": lambda: lexicon.is_ack(message),
            "pick": lambda: bool(pick(message, ctx.choices, ctx.candidates, ctx.catalogue)),
            "yes": lambda: heard.yes,
            "no": lambda: heard.no,
            "yes_or_no": lambda: heard.yes or heard.no,
            "tax_basis": lambda: bool(tax_basis(message) or TAX_ANSWERS.get(lexicon.normalised(message))),
            "standing": lambda: lexicon.is_standing(message),
            "named_cancel": lambda: named_cancel(heard.cancel_words, ctx) is not None,
            "question": lambda: heard.question is not None,
            "emoji": lambda: lexicon.is_emoji_only(message),
            "continue": lambda: lexicon.is_continue(message),
            "cancel": lambda: lexicon.is_cancel(heard.cancel_words),
            "change": lambda: bool(CHANGE_VERB.search(message) or REMOVE.search(message)),
            "open_question": lambda: is_open_question(message),
            "fields": lambda: heard.found.any(),
            **self.arrival_readers(heard),
            **self.return_readers(heard),
        }
        return readers[intent]()

    # -- the handlers of hearing.DECISIONS, in its row order ------------------------------

    def refuse(self, ctx, heard):
        return Proposal(join(*(say(key, ctx.lang) for key in heard.injection), say("nothing_changed", ctx.lang)),
                        NoAction())

    def welcome(self, ctx, heard):
        return Proposal(say("you_are_welcome", ctx.lang), NoAction(), expects=ctx.expects, keep_confirming=True)

    def acknowledge(self, ctx, heard):
        return Proposal(say("acknowledged", ctx.lang), NoAction(), expects=ctx.expects, keep_confirming=True)

    def attach_picked(self, ctx, heard):
        return Proposal(say("attached", ctx.lang), Attach(task_id=pick(ctx.message, ctx.choices, ctx.candidates, ctx.catalogue)))

    def answer_amend(self, ctx, heard):
        if (ctx.confirming or {}).get("action") != "amend":
            return None
        if heard.yes:
            return Proposal("", Amend(fields=ctx.confirming["fields"]))
        return Proposal(say("amend_kept", ctx.lang), NoAction())

    def cancel_confirmed(self, ctx, heard):
        return Proposal("", Cancel())

    def cancel_kept(self, ctx, heard):
        return Proposal(say("cancel_kept", ctx.lang), NoAction())

    def tax_answer(self, ctx, heard):
        basis = tax_basis(ctx.message) or TAX_ANSWERS.get(lexicon.normalised(ctx.message), "")
        if basis:
            return Proposal("", UpdateDraft(fields={"budget_tax": basis}))
        if not extract(ctx.message, ctx.catalogue).any():
            cap = money(ctx.task.draft.get("budget") or 0)
            return Proposal(say("tax_again", ctx.lang, cap=cap), NoAction(), expects="budget_tax")
        return None

    def submit(self, ctx, heard):
        return Proposal("", Submit())

    def hold(self, ctx, heard):
        return Proposal(say("held", ctx.lang), NoAction(), expects="confirm_submit", keep_confirming=True)

    def draft_again(self, ctx, heard):
        if heard.question is None and not heard.found.any():
            return Proposal("", NoAction(), expects="draft")
        return None

    def yes_without_draft(self, ctx, heard):
        if ctx.task is not None:  # 「好」 after 「已修改為…」: heard; her request is already on its way
            return Proposal(say("acknowledged", ctx.lang), NoAction())
        return Proposal(say("no_draft_to_submit", ctx.lang), NoAction())

    def remember(self, ctx, heard):
        return Proposal("", ProposeMemory(content=ctx.message.strip()[:500], kind="preference"))

    def cancel_named(self, ctx, heard):
        return Proposal("", named_cancel(heard.cancel_words, ctx))

    def answer_question(self, ctx, heard):
        return Proposal("", self.status(ctx, heard.question))  # an aside: dispose keeps what was asked

    def not_understood(self, ctx, heard):
        return Proposal(say("not_understood", ctx.lang), NoAction(), expects=ctx.expects, keep_confirming=True)

    def cancel_this(self, ctx, heard):
        return Proposal("", Cancel())

    def nothing_to_cancel(self, ctx, heard):
        return Proposal(say("no_open_task", ctx.lang), NoAction())

    def answer_about(self, ctx, heard):
        # Once her request waiting for her answer has been talked about, what she says next is that answer.
        about = self.about(ctx)
        if about is not None and (heard.has("change") or about.state == workflow.AWAITING_INPUT):
            return self.amend(ctx, about)
        return None

    def ended_change(self, ctx, heard):
        if self.about(ctx) is not None:
            return None
        found = heard.found
        if (found.quantity_change or found.removed) and not found.lines:
            # 「那我可以改成 10 台嗎」 after a rejection changes what ended: not a new hello, but what
            # can be done instead. 「我還要再買兩台螢幕」 names something new and starts a draft.
            ended = ctx.task
            return Proposal(say("ended_ask_again", ctx.lang, number=name_of(ended, ctx.lang),
                                state=task_words(ended, ctx.lang)), NoAction())
        return None

    def unclear_question(self, ctx, heard):
        # A day alone in a question ("will it come tomorrow?") files and changes nothing, unless it
        # asks to move the day of an open draft or, said as a change, of a submitted request
        # (「可以改成下週五嗎？」, "can it be next Monday instead?").
        task = ctx.task if ctx.task and ctx.task.state not in workflow.AGENT_DONE else None
        dated = task is not None and (task.state == workflow.DRAFT
                                      or task.state in workflow.AMENDABLE and bool(CHANGE_VERB.search(ctx.message)))
        if _asks_a_change(ctx.message, ctx, task, dated):
            return None
        return Proposal("", Status(topic="unclear"))

    def intake_(self, ctx, heard):
        return self.intake(ctx, ctx.task if ctx.task and ctx.task.state not in workflow.AGENT_DONE else None)

    def amend_(self, ctx, heard):
        return self.amend(ctx, ctx.task)

    def no_changes_now(self, ctx, heard):
        return Proposal(say("no_changes_now", ctx.lang, state=task_words(ctx.task, ctx.lang)), NoAction())

    def status(self, ctx: Context, question) -> Status:
        task_id = ""
        if question.task_id:
            task_id = question.task_id  # hers or not found: dispose looks among her own requests only
        elif question.latest and not question.ref and not question.item and ctx.requests and question.topic != "list":
            task_id = ctx.requests[0].id
        return Status(topic=question.topic, task_id=task_id, ref=question.ref, item=question.item,
                      open_only=question.open_only)

    def about(self, ctx: Context) -> TaskView | None:
        """The request the last answer was about, if it can still be changed."""
        found = next((t for t in ctx.requests if t.id == ctx.about), None) if ctx.about else None
        return found if found and found.state in workflow.AMENDABLE else None

    def continue_(self, ctx: Context, heard: Heard | None = None) -> Proposal:
        if ctx.task and ctx.task.state not in workflow.AGENT_DONE:
            # Already on it: a draft gets its next question again, anything else its status.
            return Proposal("", NoAction(), expects="draft") if ctx.task.state == workflow.DRAFT else \
                Proposal("", Status())
        if not ctx.candidates:
            return Proposal(say("no_open_task", ctx.lang), NoAction())
        if len(ctx.candidates) == 1:
            return Proposal(say("attached", ctx.lang), Attach(task_id=ctx.candidates[0].id))
        options = "\n".join(f"{n}. {one_line(t, ctx.lang)}" for n, t in enumerate(ctx.candidates, start=1))
        question = say("which_task", ctx.lang, n=len(ctx.candidates), options=options)
        return Proposal(question, Ask(question=question[:500]), expects="choose_task",
                        choices=tuple(t.id for t in ctx.candidates))

    def intake(self, ctx: Context, task: TaskView | None) -> Proposal:
        message, lang = ctx.message, ctx.lang
        draft = dict(task.draft) if task else {}
        if ctx.expects == "confirm_submit" and task is not None:
            if lexicon.is_yes(message):
                return Proposal("", Submit())
            if lexicon.is_no(message):
                return Proposal(say("what_change", lang), NoAction())
        found = extract(message, ctx.catalogue, expects=ctx.expects)
        if _count_out_of_range(found):
            # with no draft yet there is nothing that could have changed
            phrase = "quantity_range" if task else "quantity_range_first"
            return Proposal(say(phrase, lang, most=MAX_QUANTITY), NoAction(), expects=ctx.expects)
        if task is None and not found.any(dates=False):
            found.needed_by = found.past_date = ""  # "I'm off tomorrow" alone starts no request
        if found.conflict:
            item, quantities = found.conflict
            question = say("which_quantity", lang, item=item_name(item, lang),
                           options=listed([str(q) for q in quantities], lang))
            return Proposal(question, Ask(question=question[:500]), expects="quantity")
        if ctx.expects == "justification" and not found.any() and not found.unknown and _says_something(message):
            found.justification = message.strip()[:500]
        notices = []
        if found.department and ctx.departments and found.department not in ctx.departments:
            notices.append(say("not_member", lang, name=department_name(found.department, lang)))
            found.department = None
        if found.reason and not draft.get("justification"):
            # 「我的椅子壞了」 says why: that is the purpose, not something to ask again.
            item = next((item for item, _ in found.lines), None) or next(
                (line["description"] for line in draft.get("lines") or []), "")
            found.justification = reason_words(found.reason, item, lang)
        fields = merge(draft, found, ctx.departments, ctx.catalogue)
        if fields.get("lines") == []:  # 「不要螢幕了」 with nothing else: asked, the draft kept
            question = say("no_lines_left", lang)
            return Proposal(question, Ask(question=question[:500]))
        if found.past_date:
            # A day already gone is asked about, never noted or dropped in silence.
            notices.append(say("date_past", lang, said=found.past_date, today=day_words(dates.today(), lang)))
            if fields:
                return Proposal(join(say("noted", lang), *notices), UpdateDraft(fields=fields), expects="needed_by")
            question = join(*notices)
            return Proposal(question, Ask(question=question[:500]), expects="needed_by")
        if found.quantity_change and "lines" not in fields and len(draft.get("lines") or []) > 1:
            question = say("which_line", lang, lines=describe_lines(draft["lines"], lang))
            return Proposal(question, Ask(question=question[:500]))
        if found.unknown:
            items = catalogue_words(ctx.catalogue, lang)
            question = join(*notices, say("unknown_item", lang, what=found.unknown, items=items))
            if fields.get("lines"):  # what she asked for that is quoted is kept, and said so
                question = join(say("noted_lines", lang, lines=describe_lines(fields["lines"], lang)), question)
            if fields:
                return Proposal(question, UpdateDraft(fields=fields), expects="item_unknown")
            return Proposal(question, Ask(question=question[:500]))
        if fields:
            used = _budget_from_memory(ctx, draft, fields)
            if used:
                notices.append(say("budget_from_memory", lang, amount=money(fields["budget"]),
                                   text=entry_words(used.content)))
            return Proposal(join(say("noted", lang), *notices), UpdateDraft(fields=fields),
                            memory_used=(used.id,) if used else ())
        if task is None:
            return Proposal(join(*notices, say("hello", lang)), NoAction())
        return Proposal(join(*notices), NoAction(), expects="draft")

    def amend(self, ctx: Context, task: TaskView) -> Proposal:
        message, lang = ctx.message, ctx.lang
        found = extract(message, ctx.catalogue)
        if _count_out_of_range(found):
            return Proposal(say("quantity_range", lang, most=MAX_QUANTITY), NoAction())
        answering = task.state == workflow.AWAITING_INPUT
        changes = {}
        lines = [dict(line) for line in task.lines]
        # Answering, an item the request already has is a new quantity for it; an item it lacks is
        # added only when she says so (「沒指定，能接兩個螢幕就好」 adds no monitors).
        known = {_item_of(line, ctx.catalogue) for line in lines}
        if answering and len(known) == 1 and not found.lines and not found.quantity_change:
            count = lone_count(message)  # "fine, two then", 「總共三台就好」: the count of her one item
            if count:
                found.quantity_change = (None, count)
        wants_lines = found.lines and (CHANGE_VERB.search(message)
                                       or answering and all(item in known for item, _ in found.lines))
        if wants_lines or found.quantity_change or found.removed or (answering and REMOVE.search(message)):
            new_lines = merge_lines(lines, found, ctx.catalogue, drop_unknown=answering)
            if new_lines and new_lines != lines:
                changes["lines"] = new_lines
        if found.budget:
            changes["budget"] = str(found.budget)
        if found.justification and JUSTIFY_WORD.search(message):  # an answer is her reply, not a new purpose
            changes["justification"] = found.justification
        said = []
        if found.past_date:
            question = say("date_past", lang, said=found.past_date, today=day_words(dates.today(), lang))
            return Proposal(question, Ask(question=question[:500]), expects="needed_by")
        if found.needed_by:
            # The day rides in the purpose the approver reads, as on the form: a new revision.
            purpose = changes.get("justification") or task.draft.get("justification") or task.justification
            changes["justification"] = justification_submitted({"justification": purpose,
                                                                "needed_by": found.needed_by}, lang)[:500]
            said.append(say("need_by_changed", lang, date=day_words(date.fromisoformat(found.needed_by), lang)))
        if found.unknown and not changes and not answering:
            items = catalogue_words(ctx.catalogue, lang)
            question = say("unknown_item", lang, what=found.unknown, items=items)
            return Proposal(question, Ask(question=question[:500]))
        if answering and _says_something(message):
            # Her reply in her own words goes to whoever asked, with any change it names
            # (「要接兩個螢幕，所以要 Dell WD19S」 answers "Which dock model?" as it is).
            changes["answer"] = message.strip()[:500]
        if changes:
            return Proposal(join(*said), Amend(fields=changes))
        if answering:
            return Proposal(say("waiting_for", lang, question=open_question(task, lang)), NoAction())
        return Proposal(say("in_progress", lang, state=state_words(task.state, lang)), NoAction())


def _says_something(message: str) -> bool:
    """Words that can be a justification: not a yes, a no, a question or an emoji."""
    return bool(message.strip()) and not (lexicon.is_yes(message) or lexicon.is_no(message)
                                          or lexicon.is_emoji_only(message) or is_open_question(message))


def _count_out_of_range(found) -> bool:
    """「我要20000台筆電」, "make it 0": a count no line can have (the form's limits), said as such."""
    counts = [n for _, n in found.lines if n is not None]
    if found.quantity_change:
        counts.append(found.quantity_change[1])
    return any(not 1 <= n <= MAX_QUANTITY for n in counts)


def _asks_a_change(question: str, ctx: Context, task, dated: bool) -> bool:
    """Whether a question asks to change something: 「可以改成下週五嗎？」 does; 「筆電明天會到嗎？」
    names an item and a day of a submitted request, and asks only."""
    found = extract(question, ctx.catalogue)
    if not found.any(dates=dated):
        return False
    if task is None or task.state == workflow.DRAFT or CHANGE_VERB.search(question) or REMOVE.search(question):
        return True
    return bool(found.quantity_change or found.removed or found.budget or any(n for _, n in found.lines))


def named_cancel(message: str, ctx: Context) -> Cancel | None:
    """「取消筆電那張」, 「幫我把椅子那張撤掉」, "scrap the dock one", "cancel REQ-000012": one of her
    requests, by name."""
    match = NAMED_CANCEL.match(message.strip())
    rest = (match.group("en") or match.group("zh") or match.group("zh2") or "") if match else ""
    if not rest or lexicon.is_cancel(message):
        return None
    ref = REF.search(rest)
    item = match_item(rest, ctx.catalogue) if not ref else None
    if not ref and not item:
        return None
    return Cancel(ref=ref.group(0).upper() if ref else "", item=item or "")


def _budget_from_memory(ctx: Context, draft: dict, fields: dict):
    """A standing preference such as "keep my requests under 50k" sets the cap of a new draft
    that has none. The entry is cited by id in the turn's data; the reply names it by its words, which a
    deletion masks like any other quote."""
    if draft.get("budget") or "budget" in fields:
        return None
    for entry in ctx.memory:
        cap, _ = find_money(entry.content) if entry.kind == "preference" else (None, "")
        if cap:
            fields["budget"] = str(cap)
            return entry
    return None


def merge(draft: dict, found, departments, catalogue) -> dict:
    """The draft fields this message changes (only those), ready for update_draft."""
    fields = {}
    lines = merge_lines([dict(line) for line in draft.get("lines") or []], found, catalogue)
    if lines != (draft.get("lines") or []):
        fields["lines"] = lines
    if found.department and found.department != draft.get("department"):
        fields["department"] = found.department
    if found.justification and found.justification != draft.get("justification"):
        fields["justification"] = found.justification
    if found.needed_by and found.needed_by != draft.get("needed_by"):
        fields["needed_by"] = found.needed_by
    if found.budget and str(found.budget) != str(draft.get("budget")):
        fields["budget"] = str(found.budget)
        if found.budget_tax or draft.get("budget_tax"):  # a new cap: its basis as said, or asked again
            fields["budget_tax"] = found.budget_tax
    elif found.budget_tax and found.budget_tax != draft.get("budget_tax") and draft.get("budget"):
        fields["budget_tax"] = found.budget_tax
    notes = list(dict.fromkeys([*(draft.get("notes") or []), *found.notes]))
    left = {_item_of(line, catalogue) for line in lines}
    notes = [note for note in notes if not is_spec_of_gone_item(note, left, catalogue)]  # 「27吋螢幕」 goes with them
    if notes != (draft.get("notes") or []):
        fields["notes"] = notes
    # The requester's own department, when Membership gives exactly one, is filled in quietly.
    if fields and not draft.get("department") and "department" not in fields and len(departments) == 1:
        fields["department"] = departments[0]
    return fields


def _item_of(line: dict, catalogue):
    return match_item(line["description"], catalogue)


def merge_lines(lines: list[dict], found, catalogue, *, drop_unknown: bool = False) -> list[dict]:
    def item_of(line):
        return _item_of(line, catalogue)

    lines = [dict(line) for line in lines]  # callers compare before and after

    if drop_unknown:  # answering "we have no quote for X": the lines nobody can price go
        lines = [line for line in lines if item_of(line) in catalogue]
    lines = [line for line in lines if item_of(line) not in found.removed]
    for item, quantity in found.lines:
        existing = next((line for line in lines if item_of(line) == item), None)
        if existing is None:
            lines.append({"description": item, "quantity": quantity})
        elif quantity:  # 「合併成一行：三台筆電」: the count she gives is the item's, on one line
            existing["quantity"] = quantity
            lines = [line for line in lines if line is existing or item_of(line) != item]
    if found.quantity_change:
        item, n = found.quantity_change
        if item is None and len({item_of(line) for line in lines}) == 1 < len(lines):
            lines = lines[:1]  # 「總共三台就好」 of 筆電 × 3 and 筆電 × 2: one line of three
        targets = [line for line in lines if item_of(line) == item] if item else \
            [line for line in lines if not line.get("quantity")] or (lines if len(lines) == 1 else [])
        if item and not targets and (found.quantity_more or not lines):
            lines.append({"description": item, "quantity": n})  # "two more chairs" with none yet: two
        elif item and not targets and len(lines) == 1 and not found.lines:
            lines = [{"description": item, "quantity": n}]  # 「改成一台筆電」 of her two monitors: the laptop instead
        elif len(targets) == 1:
            targets[0]["quantity"] = (targets[0].get("quantity") or 0) + n if found.quantity_more else n
    return lines


def pick(message: str, choices: tuple, candidates: tuple, catalogue=()) -> str | None:
    """Which offered task the requester chose: by number, ordinal or the item it buys."""
    text = lexicon.normalised(message)
    number = re.fullmatch(rf"(?:no\.?\s*|number\s*|#|第)?({NUMBER})(?:\s*(?:個|筆|件|one))?", text)
    index = to_int(number.group(1)) if number else next((n for w, n in ORDINALS.items() if w in text), None)
    if text in ("last", "the last one", "最後一個", "最後一筆"):
        index = len(choices)
    if index and 1 <= index <= len(choices):
        return choices[index - 1]
    item = match_item(message, catalogue)
    named = [t.id for t in candidates if t.id in choices and item and any(
        item == match_item(line["description"], catalogue) for line in t.lines)]
    return named[0] if len(named) == 1 else None

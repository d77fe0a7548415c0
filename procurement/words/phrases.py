"""Every sentence the agent says, as gettext messages in the one catalogue the pages use
(locale/zh_Hant). `say` renders one in the reply's language; a reply is one language."""
import re

from django.utils.translation import get_language
from django.utils import translation
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

LANG_CODES = {"en": "en", "zh": "zh-hant"}

PHRASES = {
    "hello": _("Hello! What would you like to buy? For example: \"2 laptops for the new hires\"."),
    "noted": _("Noted."),
    "noted_lines": _("Noted: {lines}."),
    "unknown_item": _("We have no quote for \"{what}\", so I can't price it. We can buy: {items}. "
                      "Which of these do you mean?"),
    "not_member": _("You are not a member of {name}; requests are filed for your own department."),
    "what_change": _("Nothing was submitted. What would you like to change?"),
    "held": _("Alright, I'll keep the draft as it is; nothing was submitted. When you're ready, say \"submit\", "
              "or tell me what to change."),
    "confirm_again": _("Shall I submit it? Reply \"yes\" to submit it, or \"not yet\" to keep the draft."),
    "cancel_kept": _("Alright, I won't cancel it."),
    "confirm_add": _("Add {added} to {number} ({what})? It is waiting for approval, so it would go back to the "
                     "approver as a new revision. If it is a separate purchase, say no and start a new conversation "
                     "for it. (yes / no)"),
    "amend_kept": _("All right, the request stays as it was."),
    "confirm_cancel": _("Cancel your request {number} ({what}, now {state})? Anything already set up in the ERP "
                        "will be cancelled too. Reply yes to cancel."),
    "cancelled": _("Your request is cancelled."),
    "draft_discarded": _("Your draft is discarded; nothing was submitted, and it is gone from your lists."),
    "submitted": _("Submitted. Your request is received and queued; the agent now compares quotes and checks "
                   "budget and policy. Ask me for the status at any time."),
    "amended": _("Changed to {what}. Your request is now at revision {revision}; the agent re-checks quotes, "
                 "budget and approval for it."),
    "answered": _("Thanks, your answer is recorded; the agent picks the request up again."),
    "attached": _("Picking up your request from earlier."),
    "no_open_task": _("You have no open request to continue. What would you like to buy?"),
    "which_task": _("You have {n} open requests. Which one shall we continue?\n{options}\nReply with its number."),
    "pick_again": _("Please reply with the number of the request to continue."),
    "waiting_for": _("The agent is waiting for your answer: {question} Tell me what to change "
                     "(for example the quantity, the items or the budget cap)."),
    "in_progress": _("This conversation is about a request that is already {state}. To change it, say for "
                     "example \"change quantity to 3\"; to start another request, open a new conversation."),
    "ended_ask_again": _("{number} is {state}, so it can no longer be changed. To ask for it again, open a new "
                         "conversation and tell me what you need."),
    "no_changes_now": _("The request is {state}; it can no longer be changed here, only its status reported."),
    "memory_proposed": _("I've proposed remembering \"{text}\" as a standing preference. It takes effect only "
                         "once you confirm it under \"Memory\" at the top of the page; this request is not changed."),
    "memory_proposed_alone": _("I've proposed remembering \"{text}\" as a standing preference. It takes effect "
                               "only once you confirm it under \"Memory\" at the top of the page."),
    "memory_unavailable": _("I can't save standing preferences yet, so nothing was remembered and this request is "
                            "not changed. For this request only, say \"this time, ...\"."),
    "budget_from_memory": _("Budget cap {amount}, from your saved preference \"{text}\"."),
    "refused": _("I can't do that: {reason} Nothing was changed."),
    "refused_unfit": _("I couldn't make that change, so nothing was changed. Could you say it another way?"),
    "no_lines_left": _("That would leave nothing to buy, so nothing was changed. What should the request be for "
                       "instead? If you no longer need it, say \"cancel\"."),
    "stale": _("The request changed while we were talking (it is now {state}, version {version}). "
               "Please say it again."),
    "fallback": _("(The assistant model was unavailable; answered by the built-in rules.)"),
    "injection_approve": _("I can't approve anything: approvals are decided by the managers on the approval page."),
    "injection_limit": _("I can't change approval limits or budgets: limits are set by admins."),
    "injection_done": _("I can't mark steps as done: a step counts as done only when the ERP confirms it."),
    "injection_rules": _("I follow the same rules in every conversation."),
    "nothing_changed": _("Nothing was changed."),
    "too_long": _("Your message is {n} characters long; the limit is {limit}. Please shorten it."),
    "empty": _("Message is empty."),
    "not_understood": _("I didn't understand that. Tell me what to buy (for example \"2 laptops for the new "
                        "hires\") or ask about a request (for example \"where is my last request?\")."),
    "which_quantity": _("You gave two quantities for {item} ({options}). How many do you need?"),
    "which_line": _("Which item should change? ({lines})"),
    "no_draft_to_submit": _("There is nothing to submit yet. What would you like to buy?"),
    # Budget caps: 含稅 (tax-inclusive) or 未稅 (before tax).
    "tax_question": _("Is your cap of {cap} with tax (含稅) or before tax (未稅)? It matters here: the best offer "
                      "is {subtotal} before tax and {total} with tax."),
    "tax_again": _("Please say \"with tax\" (含稅) or \"before tax\" (未稅) for your cap of {cap}."),
    "cap_incl": _("budget cap {cap} incl. tax"),
    "cap_excl": _("budget cap {cap} before tax ({incl} incl. tax)"),
    "estimate_within": _("best offer {total} incl. tax ({subtotal} before tax), within your cap"),
    "estimate_over": _("best offer {total} incl. tax ({subtotal} before tax), above your cap"),
    # Describing a request.
    "line": _("{item} × {quantity}"),
    "line_open": _("{item} (how many?)"),
    "no_items": _("(no items yet)"),
    "department": _("department: {name}"),
    "purpose": _("for: {text}"),
    "need_by": _("needed by {date}"),
    # The purpose as submitted, when a need-by day was given: the approver reads both.
    "need_by_changed": _("Needed by {date} now."),
    "purpose_need_by": _("{text}; needed by {date}"),
    "purpose_note": _("{text}; note: {note}"),
    "date_past": _("\"{said}\" has already passed (today is {today}), so I did not note it as the day you need "
                   "this by. By which day do you need it?"),
    # A purpose read from why she said she needs it.
    "reason_broken": _("replacing a broken {item}"),
    "reason_broken_any": _("replacing broken equipment"),
    "reason_new_hire": _("for a new hire"),
    "note": _("note: {text}"),
    "list_more": _("… and {n} older ones: every request is on your My requests page."),
    "confirm_prompt": _("Here is your request: {what}. Shall I submit it? (yes / no)"),
    "q_item": _("What would you like to buy?"),
    "q_quantity": _("How many {item} do you need?"),
    "q_department": _("Which department is this for ({options})?"),
    "q_justification": _("What are they for? (a short justification)"),
    "gap_item": pgettext_lazy("missing field", "item"),
    "gap_quantity": pgettext_lazy("missing field", "quantity"),
    "gap_department": pgettext_lazy("missing field", "department"),
    "gap_justification": pgettext_lazy("missing field", "justification"),
    # Answers about a request, from State.
    "your_request": _("your request"),
    "your_draft": _("your draft"),
    "draft_head": _("Your draft ({what}) is not submitted yet."),
    "draft_still_waiting": _("Your draft ({what}) is still waiting: reply \"yes\" to submit it."),
    "status_head": _("{number} ({what}) is {state}."),
    "full_stop": pgettext_lazy("end of a sentence", "."),
    "waiting_for_your_answer": pgettext_lazy("request state", "waiting for your answer"),
    "still_needed": _("Still needed: {gaps}."),
    "question": _("Question: {question}"),
    "receipt": _("{label}{ref}: {status}."),
    "approval_line": _("Approval: {words}."),
    "ended": _("Nothing will be ordered for it; if it is still needed, start a new request."),
    "approval_pending": _("pending with {who}"),
    "a_manager": _("a manager"),
    "po_issued": _("The purchase order for {number} is {po}: {what} from {supplier}, {total} incl. tax."),
    "po_none": _("{number} ({what}) has no purchase order yet: it is {state}."),
    "supplier_why": _("{number} goes to {supplier}: of the suppliers quoting every item with a quote valid today, "
                      "theirs is the lowest total, {total} incl. tax (a tie goes to the shorter lead time)."),
    "supplier_none": _("{number} has no supplier yet: it is {state}."),
    "money_capped": _("{number} ({what}): the best offer is {total} incl. tax, and your budget cap is {cap}."),
    "money_uncapped": _("{number} ({what}): the best offer is {total} incl. tax. You set no budget cap of your own; "
                        "the department's budget is checked when it is priced."),
    "not_priced": _("not priced yet"),
    "nudge": _("They were told when it reached them, and a reminder goes to them by itself before the approval "
               "expires on {deadline}; I can't send one myself. You may also write to them directly."),
    "nudge_nothing": _("{number} waits for no approver now: it is {state}."),
    "day_and_time": _("{day} at {time}"),
    "quantity_range": _("A line can be for 1 to {most} of an item, so nothing was changed. How many do you need?"),
    "quantity_range_first": _("A line can be for 1 to {most} of an item. How many do you need?"),
    "stock": _("I can't see a stock room: things are bought when someone requests them. One {item} costs {total} "
               "incl. tax with today's best quote. Tell me how many you need and what for."),
    "stock_none": _("I can't see a stock room: things are bought when someone requests them. We can buy: {items}."),
    "decided": _("{who} {decision} it at {at}, with this comment: \"{comment}\""),
    "decided_rejected": pgettext_lazy("decision verb", "rejected"),
    "decided_returned": pgettext_lazy("decision verb", "returned"),
    "decided_approved": pgettext_lazy("decision verb", "approved"),
    "decided_expired": pgettext_lazy("decision verb", "let expire"),
    "why_review": _("Reason: {reason}."),
    "review_told": _("The administrators have been told; you need not do anything unless someone asks you."),
    "why_nothing": _("Nothing was rejected or returned: {number} ({what}) is {state}."),
    "change_returned": _("{who} returned {number} ({what}) with this comment: \"{comment}\" Tell me the change "
                         "(for example \"make it 2\") and I'll revise the request and send it back for approval."),
    "change_none": _("Nothing needs changing: {number} ({what}) is {state}."),
    "list_head": _("Your requests:"),
    "list_open_head": _("Your open requests:"),
    "list_row": _("{n}. {number}: {what}, {state}"),
    "list_draft_row": _("{n}. Draft: {what}, not submitted yet"),
    "list_po": _(", purchase order {po}"),
    "no_requests": _("You have no requests yet."),
    "no_open_requests": _("You have no open requests."),
    "not_found_ref": _("I can't find {ref} among your requests."),
    "not_found_item": _("None of your requests is for {item}."),
    "unknowable": _("I can't tell that from our records: they hold your request's state, approvals and the "
                    "purchase order, not delivery or the supplier's plans."),
    "unknowable_none": _("I can't tell that from our records, and you have no requests yet. What would you like "
                         "to buy?"),
    "created_nothing": _("Nothing was created or changed."),
    "unclear": _("I'm not sure what you are asking; this is where your request stands:"),
    "unclear_none": _("I'm not sure what you are asking, and you have no requests yet. What would you like to buy?"),
    "you_are_welcome": _("You're welcome. Ask me about a request or tell me what to buy whenever you need."),
    "acknowledged": _("All right. If there is anything else, a request to follow or something to buy, just tell me."),
}

LIST_SEPARATOR = pgettext_lazy("list separator", ", ")
CLAUSE_SEPARATOR = pgettext_lazy("clause separator", "; ")


def language(lang: str):
    """A context in which gettext speaks `lang` ("en" or "zh")."""
    return translation.override(LANG_CODES.get(lang, "en"))


def say(key: str, lang: str, **values) -> str:
    with language(lang):
        return str(PHRASES[key]).format(**values)


def entry_words(text: str, limit: int = 60) -> str:
    """A memory entry named for people by its own words (never its id), cut to fit one reply."""
    text = " ".join(str(text or "").split())
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


def in_lang(text, lang: str) -> str:
    """A lazy label (state, receipt, item) rendered in `lang`."""
    with language(lang):
        return str(text)


def listed(parts, lang: str, *, clauses: bool = False) -> str:
    return in_lang(CLAUSE_SEPARATOR if clauses else LIST_SEPARATOR, lang).join(parts)


HAN_AT_END = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]$")


def join(*parts: str) -> str:
    """Sentences in one reply; Chinese full stops need no space after them. A part ending in a Han
    character without a stop (a manager's comment as written: 「請改成一台就好」) gets one."""
    text = ""
    for part in (p.strip() for p in parts if p and p.strip()):
        if HAN_AT_END.search(text):
            text += "。"
        text += part if not text or text.endswith(("。", "！", "？", "）", "」")) else " " + part
    return text


def chat_lang() -> str:
    """The chat's language code for the active language: "zh" or "en"."""
    return "zh" if (get_language() or "").startswith("zh") else "en"

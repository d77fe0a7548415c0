"""The agent's questions to the requester and its notes on the timeline, as codes with their words.

A question is stored on the task as its Said (data["asked"], procurement.purchase.steps) beside
its English (data["question"], for logs and the model); the timeline's note of an escalation, a
recovery, a delegate's decision or a quote sheet read is the event's Said."""
from django.utils.translation import pgettext_lazy

from procurement.words.catalogue import Words


def _s(msgid: str, **kinds) -> Words:
    return Words(pgettext_lazy("agent sentence", msgid), kinds)


QUESTIONS = {  # procurement.purchase.pricing, procurement.purchase.steps, procurement.purchase.budget
    "ask_what_to_buy": _s("The request has no lines yet: what would you like to buy?"),
    "ask_unknown_item": _s("We have no quote for %(quoted)s. We can buy: %(items)s. Could you describe it as one of "
                           "those, or remove it from the request?", quoted="quoted_words", items="items"),
    "ask_unknown_item_no_catalogue": _s("We have no quote for %(quoted)s. Could you describe it differently, or "
                                        "remove it from the request?", quoted="quoted_words"),
    "ask_split": _s("No single supplier quotes all of %(items)s (%(who)s). A request goes whole to one supplier: "
                    "could you split it into separate requests?", items="items", who="supplier_quotes"),
    "ask_over_cap": _s("The best offer (%(supplier)s) totals %(total)s including tax, above your cap of %(cap)s. "
                       "Raise the cap or change the lines?", total="money", cap="money"),
    "ask_budget_short": _s("The department has %(available)s of budget left; this request needs %(needed)s. Reduce "
                           "the request or ask again later?", available="money", needed="money"),
    "ask_hold_cap": _s("You already hold %(held)s of budget in requests nobody has approved yet; with this one "
                       "(%(needed)s) that would pass the limit of %(cap)s per person. Wait for an approval, or "
                       "cancel or reduce a request?", held="money", needed="money", cap="money"),
    "returned_budget_short": _s("Not approved: the department has %(available)s of budget left and this request "
                                "needs %(needed)s. The request went back to the requester.", available="money",
                                needed="money"),
}

NOTES = {
    # procurement.policy.routing: nobody but the requester could decide a step (the request goes to review)
    "only_the_requester_could_decide": _s("only %(requester)s, the requester, could decide step %(step)s of the "
                                          "approval chain, and nobody decides their own request: a person must "
                                          "choose who approves it", requester="person"),
    # agentstate.recovery: a checkpoint that failed verification
    "not_resumed_checkpoint": _s("not picked up again: the saved state of version %(version)s failed verification "
                                 "and was not used"),
    "not_resumed_schema": _s("not picked up again: it was saved by a newer version of the app (data format "
                             "%(found)s)"),
    # procurement.policy.escalation and agentstate.approvals
    "escalated": _s("step %(n)s waited more than %(hours)s hours; offered to %(people)s", people="people"),
    "decided_for": _s("on behalf of %(for)s. %(note)s", note="note", **{"for": "person"}),
    # procurement.quotesheet.services
    "quote_sheet_read": _s("quote sheet %(filename)s (version %(version)s) read: %(rows)s quotes, %(questions)s "
                           "questions"),
    "quote_sheet_drop": _s("quote sheet question %(n)s: row %(row)s left out"),
    "quote_sheet_confirm": _s("quote sheet question %(n)s: the price of row %(row)s confirmed"),
    "quote_sheet_price": _s("quote sheet question %(n)s: the price of row %(row)s set to %(price)s", price="money"),
    "quote_sheet_tax_id": _s("quote sheet question %(n)s: tax ID %(tax_id)s for row %(row)s"),
    "quote_sheet_item": _s("quote sheet question %(n)s: row %(row)s is %(item)s", item="item"),
}

AGENT = {**QUESTIONS, **NOTES}

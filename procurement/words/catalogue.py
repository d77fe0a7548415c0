"""Every code the agent and the engine say, with its words and the kind of each parameter.

A code is stable (it is stored on events); its words may change at will. The English msgid is
also what the event's reason column holds, for logs and the audit trail."""
from dataclasses import dataclass, field

from django.utils.translation import pgettext_lazy


@dataclass(frozen=True)
class Words:
    template: object  # a lazy gettext string with %(name)s parameters
    kinds: dict = field(default_factory=dict)  # parameter -> kind (procurement.words.params.KINDS)


def _w(template, **kinds) -> Words:
    return Words(template, kinds)


def _s(msgid: str):
    return pgettext_lazy("agent sentence", msgid)


def _r(msgid: str):
    return pgettext_lazy("event reason", msgid)


WHY = {"why": "quoted"}

# The reasons of events: what the timeline says under each event.
EVENTS = {
    # agentstate.machine, procurement.purchase.services, procurement.chat
    "created": _w(_s("created")),
    "draft_started": _w(_s("draft started in chat")),
    "request_confirmed": _w(_s("request confirmed and sent")),
    "amended": _w(_s("amended to revision %(revision)s")),
    "cancelled_by_requester": _w(_s("cancelled by the requester")),
    "cancelled_in_chat": _w(_s("cancelled in the chat")),
    "cancelled_as_twin": _w(_s("cancelled by %(who)s, who approved %(number)s for the same goods instead"),
                            who="person"),
    # procurement.invoicing.exceptions
    "invoice_variance": _w(_r("invoice %(number)s: variance %(variance)s"), variance="money"),
    "offboarded": _w(_r("%(person)s left the organisation (offboarded by %(by)s)"), person="person", by="person"),
    # procurement.purchase.steps
    "requisition_replaced": _w(_s("the previous ERP requisition was cancelled and its budget released")),
    "awarded": _w(_s("awarded to %(supplier)s: %(total)s incl. tax"), total="money"),
    "above_every_limit": _w(_s("%(total)s is above every approval limit for %(department)s"),
                            total="money", department="department"),
    "routed": _w(_s("routed to %(rule)s: %(people)s"), rule="rule", people="people"),
    "budget_reserved": _w(_s("%(total)s of budget reserved"), total="money"),
    "budget_held": _w(_s("%(total)s of budget held until approval (it blocks nobody)"), total="money"),
    "requisition_created": _w(_s("ERP requisition %(id)s created")),
    "requisition_refused": _w(_s("the ERP refused the requisition")),
    "approval_waiting": _w(_s("waiting for approval by %(rule)s"), rule="rule"),
    "no_scope_matches": _w(_s("no approval matches this version; nothing was sent")),
    "order_issued": _w(_s("ERP purchase order %(id)s issued")),
    # procurement.receiving: what a goods receipt (or a return) recorded, per line
    "goods_received": _w(_s("recorded %(lines)s"), lines="received_lines"),
    "goods_received_noted": _w(_s("recorded %(lines)s; note: %(note)s"), lines="received_lines", note="note"),
    "order_refused": _w(_s("the ERP refused the purchase order")),
    "nothing_to_undo": _w(_s("nothing had been sent to the ERP or held from the budget, so there was nothing "
                             "to undo")),
    "requisitions_cancelled": _w(_s("ERP requisitions cancelled; %(released)s of budget released"),
                                 released="money"),
    "requisitions_cancelled_order_kept": _w(_s("ERP requisitions cancelled; the budget stays spent: the ERP holds "
                                               "a purchase order")),
    "requisition_verified": _w(_s("ERP requisition %(id)s verified with the ERP")),
    "order_verified": _w(_s("ERP purchase order %(id)s verified with the ERP")),
    # procurement.history.timetravel and agentstate.timetravel: pause, resume, rewind, fork, dry run
    "paused": _w(_r("paused by %(person)s"), person="person"),
    "resumed_after_reconciling": _w(_r("resumed by %(person)s from the state saved at version %(version)s, after "
                                       "its ERP results were checked"), person="person"),
    "resumed_settled": _w(_r("resumed by %(person)s: its ERP results were checked and it went on"),
                          person="person"),
    "rewound": _w(_r("rewound by %(person)s to the state saved at version %(version)s, after confirming the list "
                     "of what is undone and what cannot be"), person="person"),
    "rewound_why": _w(_r("rewound by %(person)s to the state saved at version %(version)s, after confirming the "
                         "list of what is undone and what cannot be; why: %(why)s"), person="person", **WHY),
    "forked_from": _w(_r("forked by %(person)s from %(request)s at the state saved at version %(version)s"),
                      person="person", request="request"),
    "fork_started": _w(_r("started from the state the original had at version %(version)s, to try another way")),
    "forked_into": _w(_r("%(person)s forked it at the state saved at version %(version)s into %(request)s"),
                      person="person", request="request"),
    "forked_into_why": _w(_r("%(person)s forked it at the state saved at version %(version)s into %(request)s; "
                             "why: %(why)s"), person="person", request="request", **WHY),
    "dry_run_viewed": _w(_r("%(person)s viewed a dry run from the state saved at version %(version)s: %(steps)s "
                            "steps, %(differences)s differences; nothing was sent"), person="person"),
    "dry_run_viewed_why": _w(_r("%(person)s viewed a dry run from the state saved at version %(version)s: "
                                "%(steps)s steps, %(differences)s differences; nothing was sent; why: %(why)s"),
                             person="person", **WHY),
    # agentstate: approvals, receipts, recovery, upgrades
    "step_approved": _w(_s("step %(n)s of %(of)s approved by %(who)s"), who="person"),
    "step_approved_for": _w(_s("step %(n)s of %(of)s approved by %(who)s on behalf of %(for)s"), who="person",
                            **{"for": "person"}),
    "approval_expired": _w(_s("nobody decided the approval in time")),
    "pending_verification": _w(_s("%(operation)s: result pending verification"), operation="operation"),
    "lease_expired": _w(_s("the worker handling it stopped; another one took over")),
    "idle_handed_back": _w(_s("idle too long; picked up again")),
    "receipt_settled": _w(_s("%(operation)s: %(before)s → %(after)s"), operation="operation", before="receipt",
                          after="receipt"),
    "data_upgraded": _w(_s("the request's saved data was converted from format %(old)s to %(new)s")),
    # procurement.purchase.retries, procurement.history.review, procurement.purchase.settling: the work queue
    "step_failed": _w(_s("the step “%(step)s” failed %(n)s times in a row"), step="step"),
    "retried": _w(_s("retried the step “%(step)s”. %(note)s"), step="step", note="note"),
    "approver_named": _w(_s("%(who)s named %(person)s to decide it, above every approval limit. %(note)s"),
                         who="person", person="person", note="note"),
    "cancelled_from_queue": _w(_s("cancelled from the work queue. %(note)s"), note="note"),
    "checked_order": _w(_s("%(person)s checked the ERP again: it holds purchase order %(id)s. %(note)s"),
                        person="person", note="note"),
    "recorded_order": _w(_s("%(person)s recorded the outcome (%(verified)s): ERP purchase order %(id)s. %(note)s"),
                         person="person", verified="verified", note="note"),
    "checked_resent": _w(_s("%(person)s checked the ERP again: it has no purchase order under its key, so it was "
                            "sent again. %(note)s"), person="person", note="note"),
    "recorded_resent": _w(_s("%(person)s recorded the outcome (%(verified)s): the ERP has no purchase order under "
                             "its key, so it was sent again. %(note)s"), person="person", verified="verified",
                          note="note"),
    "checked": _w(_s("%(person)s checked the ERP again. %(note)s"), person="person", note="note"),
    "recorded": _w(_s("%(person)s recorded the outcome (%(verified)s). %(note)s"), person="person",
                   verified="verified", note="note"),
    "still_in_doubt": _w(_s("checked the ERP again: still in doubt (%(errors)s). %(note)s"), errors="erp_errors",
                         note="note"),
    "cancel_too_late": _w(_s("The cancel came too late: the ERP holds purchase order %(id)s; nothing was "
                             "cancelled and the budget stays spent. %(note)s"), note="note"),
}


def codes() -> dict[str, Words]:
    """Every code with its words: event reasons first."""
    return dict(EVENTS)

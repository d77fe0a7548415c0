"""Every refusal code with its words: what a person who met a refusal reads, in their language.

A refusal is raised with its code and parameters (`DomainError(said=say("own_request"))`); the
pages' middleware, the API's handler and the chat render it through here. A refusal raised
without a code reads as what kind of refusal it is (GENERIC), never as its English."""
from django.utils.translation import gettext_lazy, pgettext_lazy

from agentstate.errors import Conflict, DomainError, IllegalTransition, LeaseLost, NotFound, NotPermitted, StaleVersion
from agentstate.memory.deletion import ReasonQuotesEntry

from procurement.words.catalogue import Words


def _r(msgid: str, **kinds) -> Words:
    return Words(pgettext_lazy("refusal", msgid), kinds)


def _g(msgid: str, **kinds) -> Words:
    return Words(gettext_lazy(msgid), kinds)


REFUSALS = {
    # the engine: checkpoints and the data's schema (agentstate.checkpoints, agentstate.kinds)
    "checkpoint_not_found": _r("This request has no such saved state."),
    "checkpoint_tampered": _r("A saved state of this request was changed after it was written; it was not used."),
    "checkpoint_foreign_tenant": _r("That saved state belongs to another department; it was not used."),
    "checkpoint_chain_broken": _r("A saved state of this request is incomplete; it was not used."),
    "checkpoint_version_tampered": _r("The saved state of version %(version)s was changed after it was written; it "
                                      "was not used."),
    "checkpoint_version_foreign": _r("The saved state of version %(version)s belongs to another department; it was "
                                     "not used."),
    "checkpoint_version_incomplete": _r("The saved state of version %(version)s is incomplete; it was not used."),
    "schema_too_new": _r("This was saved by a newer version of the app. Nothing was changed."),
    "schema_version_too_new": _r("This was saved by a newer version of the app (data format %(found)s; this one "
                                 "reads up to %(known)s). Nothing was changed."),
    ReasonQuotesEntry.code: _r("The reason repeats what the entry says, and the reason is kept after the text is "
                               "gone. Say why without quoting it, e.g. \"no longer true\" or \"asked to forget\"."),
    # approvals and their chains (agentstate.approvals, procurement.policy.deciding, procurement.selectors.approvals)
    "not_found": _r("Not found."),
    "unknown_decision": _r("Choose approve, reject or return."),
    "comment_required": _r("A comment is required to %(decision)s.", decision="decision"),
    "own_request": _r("Nobody decides their own request."),
    "not_on_route": _r("You are not on this approval's route."),
    "not_on_step": _r("You are not on this step of the approval's chain."),
    "decides_twice": _r("Nobody decides twice in one approval chain."),
    "role_lost": _r("You no longer hold the %(role)s role for %(department)s.", role="role", department="department"),
    "limit_too_low": _r("Your approval limit does not cover %(total)s for %(department)s.", total="money",
                        department="department"),
    "account_inactive": _r("Your account is inactive."),
    "approval_decided": _r("This approval is already %(status)s; nothing was decided.", status="approval_status"),
    "approval_past_deadline": _r("This approval has expired; nothing was decided."),
    "changed_since_opened": _r("This request changed since you opened it (v%(old)s → v%(new)s)."),
    "scope_differs": _r("What you saw is not what this approval covers; reload before deciding."),
    "delegation_not_saved": _r("The delegation was not saved; see the fields."),
    # requests: who may change, share, answer (procurement.selectors, procurement.purchase.services)
    "no_open_question": _r("There is no open question on this request to answer."),
    "unknown_department": _r("Unknown department %(department)s.", department="department"),
    "not_a_member": _r("You are not a member of %(department)s.", department="department"),
    "only_the_requester": _r("Only the person who asked for this request may change or cancel it."),
    "only_the_requester_shares": _r("Only the requester shares her request."),
    "not_watching": _r("%(name)s does not watch this request.", name="person"),
    "colleague_needed": _r("Enter a colleague's user name."),
    "no_such_colleague": _r("Nobody with the user name %(name)s works here."),
    "own_request_seen": _r("You already see your own request."),
    "may_only_read_entry": _r("You may read this entry but not confirm, correct or delete it."),
    # the work queue (procurement.history.review, procurement.selectors.queue)
    "review_not_allowed": _g("Only an admin or a manager of %(department)s may act on a request in review.",
                             department="department"),
    "review_reason_needed": _g("Say why (at most %(n)d characters): the reason is kept in the request's history."),
    "review_nothing_in_doubt": _g("Nothing of this request is in doubt in the ERP: retry the step or cancel it."),
    "review_no_outcome": _g("Nothing of this request is in doubt in the ERP, so there is no outcome to record."),
    "review_no_step": _g("This request has no step to run again: check the ERP again or cancel it."),
    "review_reference_needed": _g("Enter the ERP reference you looked up (at most %(n)d characters)."),
    "review_reference_shape": _g("An ERP reference is letters, digits and - _ . / only, as the ERP shows it (e.g. "
                                 "PO-000123); nothing was recorded."),
    "review_reference_unknown": _g("The ERP has nothing under this request's key, so %(id)s is not its outcome. "
                                   "Retry the step to send it again, or cancel."),
    "review_reference_other": _g("The ERP holds %(found)s under this request's key, not %(id)s."),
    # going back in time (agentstate.timetravel, procurement.history.timetravel)
    "no_time_travel": _g("This kind of task cannot go back in time."),
    "no_such_checkpoint": _g("This request has no checkpoint %(id)s."),
    "pause_not_allowed": _g("Only the requester or an admin may pause this request."),
    "pause_not_working": _g("Only a request the agent is working on can be paused."),
    "resume_not_allowed": _g("Only the requester or an admin may resume this request."),
    "resume_review_not_allowed": _g("Only an admin or a manager of %(department)s may resume a request in review.",
                                    department="department"),
    "resume_not_stopped": _g("Only a paused request, or one waiting in review, can be resumed."),
    "resume_in_doubt": _g("An outcome is still in doubt in the other system; nothing was resumed. Try again once "
                          "it answers."),
    "rewind_point_not_working": _g("A request can only be rewound to a checkpoint taken while the agent was working "
                                   "on it; pick another."),
    "rewind_blocked": _g("Not rewound: %(what)s Nothing was changed.", what="note"),
    "rewind_requisition_in_doubt": _g("Not rewound: requisition %(id)s is still in doubt in the ERP. Nothing else "
                                      "was changed; try again later."),
    "rewind_changed_since": _g("This request changed since you looked (now version %(v)d); look at the list again."),
    "rewind_ended": _g("This request has ended; a rewind cannot move it back. Fork it to try another way."),
    "rewind_between_steps": _g("A request cannot be rewound while an order is being sent or the agent is between "
                               "steps it cannot leave; wait until it settles."),
    "travel_admin_only": _g("Only an admin may replay, rewind or fork a request."),
    "fork_never_submitted": _g("This request was never submitted, so there is nothing to fork."),
    "fork_no_such_supplier": _g("No supplier is called “%(name)s”."),
    # naming who decides above every limit, from the work queue (procurement.policy.last_step)
    "approver_admin_only": _g("Only an admin may name who decides a request above every approval limit."),
    "approver_not_at_route": _g("This request did not stop at its approval route, so there is no approver to name: "
                                "retry the step without one."),
    "approver_not_eligible": _g("Choose a manager, director or finance approver for this department: not the "
                                "requester, and not yourself."),
    # supplier invoices (procurement.invoicing)
    "no_such_request": _g("No such request."),
    "no_such_invoice": _g("No such invoice."),
    "invoice_ap_only": _g("Only accounts payable enters supplier invoices."),
    "invoice_without_po": _g("This request has no purchase order yet, so there is nothing to invoice."),
    "invoice_not_entered": _g("The invoice was not entered: please correct the fields shown."),
    "invoice_entered_twice": _g("Invoice %(number)s from %(tax_id)s was already entered (request %(request)s); an "
                                "invoice is entered once.", request="request"),
    "invoice_post_unmatched": _g("Only a matched invoice is posted to the ERP."),
    # people, their stand-ins and their API tokens (procurement.people.offboarding, procurement.policy.delegation,
    # procurement.people.tokens)
    "offboard_admin_only": _r("Only an admin may offboard or erase a person."),
    "offboard_self": _r("You cannot offboard yourself."),
    "offboard_unknown_policy": _r("There is no way %(policy)s to handle their open requests; choose one of: "
                                  "%(choices)s."),
    "no_such_delegation": _r("No such delegation."),
    "no_such_token": _r("You have no such API token; it may already have expired or been revoked."),
    # the chat (procurement.chat.runtime, procurement.chat.dispose)
    "conversation_expired": _r("This conversation has expired; start a new one."),
    "draft_incomplete": _r("The draft is not complete yet (missing: %(fields)s)", fields="draft_fields"),
    "request_closed": _r("That request is already %(state)s; it cannot be continued", state="state"),
    "conversation_follows_another": _r("This conversation already follows another open request; open a new "
                                       "conversation"),
    "conversation_without_request": _r("This conversation has no request yet"),
    "cap_not_positive": _r("A budget cap must be above zero"),
    "quantity_needed": _r("Every line needs a quantity"),
}

GENERIC = {  # for a refusal raised without a code: what kind of refusal it is, in words
    StaleVersion: pgettext_lazy("refusal", "This request changed since you opened it; reload to see what changed."),
    LeaseLost: pgettext_lazy("refusal", "The agent is working on this request right now; try again in a moment."),
    IllegalTransition: pgettext_lazy("refusal", "That is not possible while the request is %(state)s."),
    NotPermitted: pgettext_lazy("refusal", "You may not do that on this request."),
    NotFound: pgettext_lazy("refusal", "Not found."),
    Conflict: pgettext_lazy("refusal", "This request changed meanwhile; reload and try again."),
    DomainError: pgettext_lazy("refusal", "That could not be done: %(detail)s"),
}

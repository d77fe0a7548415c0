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
    # what is looked up and not there (procurement.selectors, procurement.notices, procurement.api.review)
    "no_such": _r("No such %(thing)s.", thing="thing"),
    "review_no_such_action": _r("There is no action “%(action)s”; the actions are: %(actions)s."),
    # goods received and orders closed short (procurement.receiving)
    "receipt_not_open": _g("Goods can be recorded only once the purchase order is issued, and not after the request "
                           "is closed."),
    "receipt_invalid": _g("Please correct the marked fields."),
    "receipt_no_lines": _g("Record at least one line."),
    "receipt_no_such_line": _g("The purchase order has no line %(line)s."),
    "receipt_line_twice": _g("Each PO line once per receipt."),
    "receipt_line_empty": _g("Nothing is recorded on this line: give an accepted or rejected quantity."),
    "receipt_over_open": _g("At most %(open)s more can be accepted: %(ordered)s ordered, %(received)s already "
                            "accepted."),
    "receipt_return_over": _g("At most %(received)s can be returned: that many were accepted."),
    "receipt_reason_needed": _g("Say why: damaged, wrong item or other."),
    "close_reason_needed": _g("Say why the rest is closed."),
    "close_nothing_open": _g("Nothing is left open on this request to close."),
    "receive_not_allowed": _g("Only the requester or a member of her department records what arrived."),
    "close_not_allowed": _g("Only a manager of the department or accounts payable may close the rest."),
    # quote sheets: the file, its columns and rows, and the answers to its questions (procurement.quotesheet)
    "sheet_file_empty": _g("The file is empty."),
    "sheet_file_too_big": _g("The file is %(size)s MB; files up to %(limit)s MB are accepted."),
    "sheet_file_name_too_long": _g("The file name is longer than %(limit)d characters. Rename the file and attach "
                                   "it again."),
    "sheet_old_excel": _g("This is an old Excel file (.xls). Save it as .xlsx or .csv and attach it again."),
    "sheet_not_a_spreadsheet": _g("This file is not a spreadsheet. Attach the quotes as an Excel workbook (.xlsx) or "
                                  "a CSV file."),
    "sheet_inflates_too_far": _g("The workbook unpacks to more than %(mb)d MB; it is not read."),
    "sheet_declares_entities": _g("The workbook's XML declares entities (a DOCTYPE), which a spreadsheet never needs; "
                                  "it is not read. Save it again from Excel and attach it."),
    "sheet_empty": _g("The sheet is empty. Expected columns: %(required)s; optional: %(optional)s.",
                      required="sheet_columns", optional="sheet_columns"),
    "sheet_columns_missing": _g("The sheet's columns are: %(headers)s. Missing: %(missing)s. Expected columns: "
                                "%(required)s; optional: %(optional)s.", headers="sheet_headers",
                                missing="sheet_columns", required="sheet_columns", optional="sheet_columns"),
    "sheet_no_quotes": _g("The sheet has its header but no quotes."),
    "sheet_too_many_rows": _g("The sheet has %(n)d quotes; at most %(max)d are read at once."),
    "sheet_price_formula": _g("Row %(row)d: the unit price is the formula “%(text)s”. Formulas are not calculated; "
                              "type the price as a number and attach the file again.", text="sheet_cell"),
    "sheet_price_not_positive": _g("Row %(row)d: the unit price “%(text)s” is not a price above zero. Type it as a "
                                   "number, such as 35000, and attach the file again.", text="sheet_cell"),
    "sheet_lead_time_not_days": _g("Row %(row)d: the lead time “%(text)s” is not a number of days.",
                                   text="sheet_cell"),
    "sheet_not_draft": _r("A quote sheet is attached only while the request is being drafted; this request is "
                          "%(state)s.", state="state"),
    "sheet_question_answered": _r("That question about the quote sheet is already answered."),
    "sheet_price_not_above_zero": _r("A price must be above zero."),
    "sheet_tax_id_not_listed": _g("%(tax_id)s is not the tax ID (統一編號) of a supplier on our list."),
    "sheet_answer_does_not_fit": _r("That answer does not fit the question: it asks for %(asked)s.",
                                    asked="sheet_question"),
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

"""The agent's English sentences in the reader's language.

Steps, services and the pricing rule write English into the event log and into the task's
open question (the audit trail stays in one language). People read them through here: each
sentence the agent writes is matched once, its parts (money, names, codes) are kept, and the
words come from the gettext catalogue. A sentence nobody listed is shown as written to admins
and to English readers only, never to a requester reading zh-Hant."""
import re
from decimal import Decimal, InvalidOperation

from django.utils.translation import get_language, pgettext_lazy

from agentstate.errors import Conflict, DomainError, IllegalTransition, LeaseLost, NotFound, NotPermitted, StaleVersion
from agentstate.memory.deletion import ReasonQuotesEntry

from procurement.words import labels
from procurement.words.money import ntd
from procurement.words.people import person_label
from procurement.words.policy import role_label

AMOUNT = r"NT\$(?P<{}>[\d,]+(?:\.\d+)?)"
MONEY_PARTS = {"total", "cap", "released", "available", "needed", "price", "held"}
# Parts that name a person by username, said by their name (procurement.words.people), as pages and notices do.
PERSON_PARTS = {"who", "for", "requester", "person"}
USERNAME = re.compile(r"[\w.@+-]+")

SENTENCES = [(re.compile(pattern), words) for pattern, words in [
    # procurement.policy.routing: nobody but the requester could decide a step
    (r"only (?P<requester>\S+), the requester, could decide step (?P<step>\d+) of the approval chain; nobody "
     r"decides their own request",
     pgettext_lazy("agent sentence", "only %(requester)s, the requester, could decide step %(step)s of the approval "
                   "chain, and nobody decides their own request: a person must choose who approves it")),
    # agentstate.checkpoints and the recovery pass: a checkpoint that failed verification
    (r"not resumed: Checkpoint v(?P<version>\d+) .*",
     pgettext_lazy("agent sentence", "not picked up again: the saved state of version %(version)s failed "
                   "verification and was not used")),
    (r"not resumed: This \w+ data was written by schema version (?P<found>\d+); .*",
     pgettext_lazy("agent sentence", "not picked up again: it was saved by a newer version of the app "
                   "(data format %(found)s)")),
    (r"Checkpoint v(?P<version>\d+) (?:does not match its checksum|says another version, tenant or schema than "
     r"its row).*",
     pgettext_lazy("refusal", "The saved state of version %(version)s was changed after it was written; it was not "
                   "used.")),
    (r"Checkpoint v(?P<version>\d+) (?:belongs to tenant|was asked for by tenant).*",
     pgettext_lazy("refusal", "The saved state of version %(version)s belongs to another department; it was not "
                   "used.")),
    (r"Checkpoint v(?P<version>\d+) is a delta whose chain back to a full snapshot is incomplete.*",
     pgettext_lazy("refusal", "The saved state of version %(version)s is incomplete; it was not used.")),
    (r"There is no open question on this request to answer\.",
     pgettext_lazy("refusal", "There is no open question on this request to answer.")),
    (r"This conversation has expired; start a new one\.",
     pgettext_lazy("refusal", "This conversation has expired; start a new one.")),
    (r"This task has no checkpoint .*", pgettext_lazy("refusal", "This request has no such saved state.")),
    (r"This \w+ data was written by schema version (?P<found>\d+); this code knows versions up to (?P<known>\d+)\. "
     r"Nothing was changed\.",
     pgettext_lazy("refusal", "This was saved by a newer version of the app (data format %(found)s; this one reads "
                   "up to %(known)s). Nothing was changed.")),
    # agentstate.approvals and procurement.policy: approval chains, delegation, escalation
    (r"step (?P<n>\d+) waited more than (?P<hours>[\d.]+) hours; offered to (?P<people>.+)",
     pgettext_lazy("agent sentence", "step %(n)s waited more than %(hours)s hours; offered to %(people)s")),
    (r"on behalf of (?P<for>[\w.@+-]+)(?:\. (?P<note>.*))?",
     pgettext_lazy("agent sentence", "on behalf of %(for)s. %(note)s")),
    (r"Nobody decides twice in one approval chain\.",
     pgettext_lazy("refusal", "Nobody decides twice in one approval chain.")),
    (r"You are not on this step of the approval's chain\.",
     pgettext_lazy("refusal", "You are not on this step of the approval's chain.")),
    (r"You no longer hold the (?P<role>\w+) role for (?P<department>\S+)\.",
     pgettext_lazy("refusal", "You no longer hold the %(role)s role for %(department)s.")),
    (r"No such delegation\.", pgettext_lazy("refusal", "Not found.")),
    (r"The delegation was not saved; see the fields\.",
     pgettext_lazy("refusal", "The delegation was not saved; see the fields.")),
    # refusals people meet on the pages (agentstate.approvals, procurement.purchase.services, the views)
    (r"A comment is required to (?P<decision>\w+)\.", pgettext_lazy("refusal", "A comment is required to %(decision)s.")),
    (r"Unknown decision .*", pgettext_lazy("refusal", "Choose approve, reject or return.")),
    (r"Nobody decides their own request\.", pgettext_lazy("refusal", "Nobody decides their own request.")),
    (r"You are not on this approval's route\.", pgettext_lazy("refusal", "You are not on this approval's route.")),
    (r"This approval is already (?P<status>\w+); nothing was decided\.",
     pgettext_lazy("refusal", "This approval is already %(status)s; nothing was decided.")),
    (r"This approval has expired; nothing was decided\.",
     pgettext_lazy("refusal", "This approval has expired; nothing was decided.")),
    (r"This request changed since you opened it \(v(?P<old>\d+) → v(?P<new>\d+)\)\.",
     pgettext_lazy("refusal", "This request changed since you opened it (v%(old)s → v%(new)s).")),
    (r"The scope you saw is not the scope of this approval; reload before deciding\.",
     pgettext_lazy("refusal", "What you saw is not what this approval covers; reload before deciding.")),
    (r"The form did not say which version you saw; reload the page\.",
     pgettext_lazy("refusal", "The form did not say which version you saw; reload the page.")),
    (r"Unknown department '(?P<department>[^']*)'\.", pgettext_lazy("refusal", "Unknown department %(department)s.")),
    (r"You are not a member of (?P<department>\S+)\.", pgettext_lazy("refusal", "You are not a member of %(department)s.")),
    (r"No such (?P<what>task|approval|session)\.", pgettext_lazy("refusal", "Not found.")),
    # procurement.selectors (who may do what)
    (r"You may read this entry but not confirm, correct or delete it\.",
     pgettext_lazy("refusal", "You may read this entry but not confirm, correct or delete it.")),
    (r"Only the person who asked for this request may change or cancel it\.",
     pgettext_lazy("refusal", "Only the person who asked for this request may change or cancel it.")),
    (r"Only the requester shares her request\.", pgettext_lazy("refusal", "Only the requester shares her request.")),
    (r"(?P<name>\S+) does not watch this request\.", pgettext_lazy("refusal", "%(name)s does not watch this request.")),
    (r"Enter a colleague's user name\.", pgettext_lazy("refusal", "Enter a colleague's user name.")),
    (r"Nobody with the user name (?P<name>\S+) works here\.",
     pgettext_lazy("refusal", "Nobody with the user name %(name)s works here.")),
    (r"You already see your own request\.", pgettext_lazy("refusal", "You already see your own request.")),
    (rf"Your approval limit does not cover {AMOUNT.format('total')} for (?P<department>\S+)\.",
     pgettext_lazy("refusal", "Your approval limit does not cover %(total)s for %(department)s.")),
    # procurement.chat.dispose
    (r"The draft is not complete yet \(missing: (?P<fields>.+)\)",
     pgettext_lazy("refusal", "The draft is not complete yet (missing: %(fields)s)")),
    (r"That request is already (?P<state>\w+); it cannot be continued",
     pgettext_lazy("refusal", "That request is already %(state)s; it cannot be continued")),
    (r"This conversation already follows another open request; open a new conversation",
     pgettext_lazy("refusal", "This conversation already follows another open request; open a new conversation")),
    (r"This conversation has no request yet", pgettext_lazy("refusal", "This conversation has no request yet")),
    (r"A budget cap must be above zero", pgettext_lazy("refusal", "A budget cap must be above zero")),
    (r"Every line needs a quantity", pgettext_lazy("refusal", "Every line needs a quantity")),
    # procurement.quotesheet: a quote sheet read, its questions answered
    (r"quote sheet (?P<filename>.+) v(?P<version>\d+) read: (?P<rows>\d+) rows, (?P<questions>\d+) questions",
     pgettext_lazy("agent sentence", "quote sheet %(filename)s (version %(version)s) read: %(rows)s quotes, "
                   "%(questions)s questions")),
    (r"quote sheet question (?P<n>\d+) \(row (?P<row>\d+)\): drop",
     pgettext_lazy("agent sentence", "quote sheet question %(n)s: row %(row)s left out")),
    (r"quote sheet question (?P<n>\d+) \(row (?P<row>\d+)\): confirm",
     pgettext_lazy("agent sentence", "quote sheet question %(n)s: the price of row %(row)s confirmed")),
    (r"quote sheet question (?P<n>\d+) \(row (?P<row>\d+)\): price (?P<price>\S+)",
     pgettext_lazy("agent sentence", "quote sheet question %(n)s: the price of row %(row)s set to %(price)s")),
    (r"quote sheet question (?P<n>\d+) \(row (?P<row>\d+)\): tax_id (?P<tax_id>\d+)",
     pgettext_lazy("agent sentence", "quote sheet question %(n)s: tax ID %(tax_id)s for row %(row)s")),
    (r"quote sheet question (?P<n>\d+) \(row (?P<row>\d+)\): item (?P<item>.+)",
     pgettext_lazy("agent sentence", "quote sheet question %(n)s: row %(row)s is %(item)s")),
    # procurement.purchase.pricing and procurement.purchase.budget: the agent's questions
    (r"The request has no lines yet: what would you like to buy\?",
     pgettext_lazy("agent sentence", "The request has no lines yet: what would you like to buy?")),
    (r"We have no quote for (?P<quoted>.+?)\. We can buy: (?P<items>.+?)\. "
     r"Could you describe it as one of those, or remove it from the request\?",
     pgettext_lazy("agent sentence", "We have no quote for %(quoted)s. We can buy: %(items)s. Could you describe "
                   "it as one of those, or remove it from the request?")),
    (r"We have no quote for (?P<quoted>.+?)\. Could you describe it as one of those, or remove it from the request\?",
     pgettext_lazy("agent sentence", "We have no quote for %(quoted)s. Could you describe it differently, or "
                   "remove it from the request?")),
    (r"No single supplier quotes all of (?P<items>.+) \((?P<who>.+)\)\. "
     r"A request goes whole to one supplier: could you split it into separate requests\?",
     pgettext_lazy("agent sentence", "No single supplier quotes all of %(items)s (%(who)s). A request goes whole "
                   "to one supplier: could you split it into separate requests?")),
    (rf"The best offer \((?P<supplier>.+)\) totals {AMOUNT.format('total')} including tax, above your cap of "
     rf"{AMOUNT.format('cap')}\. Raise the cap or change the lines\?",
     pgettext_lazy("agent sentence", "The best offer (%(supplier)s) totals %(total)s including tax, above your cap "
                   "of %(cap)s. Raise the cap or change the lines?")),
    (rf"The department has {AMOUNT.format('available')} of budget left; this request needs "
     rf"{AMOUNT.format('needed')}\.(?: Reduce the request or ask again later\?)?",
     pgettext_lazy("agent sentence", "The department has %(available)s of budget left; this request needs "
                   "%(needed)s. Reduce the request or ask again later?")),
    (rf"Not approved: The department has {AMOUNT.format('available')} of budget left; this request needs "
     rf"{AMOUNT.format('needed')}\. The request went back to the requester\.",
     pgettext_lazy("agent sentence", "Not approved: the department has %(available)s of budget left and this "
                   "request needs %(needed)s. The request went back to the requester.")),
    (rf"You already hold {AMOUNT.format('held')} of budget in requests nobody has approved yet; with this one "
     rf"\({AMOUNT.format('needed')}\) that would pass the limit of {AMOUNT.format('cap')} per person\.(?: Wait for "
     rf"an approval, or cancel or reduce a request\?)?",
     pgettext_lazy("agent sentence", "You already hold %(held)s of budget in requests nobody has approved yet; with "
                   "this one (%(needed)s) that would pass the limit of %(cap)s per person. Wait for an approval, "
                   "or cancel or reduce a request?")),
]]
DECISION_VERBS = {"return": pgettext_lazy("refusal", "return it"), "reject": pgettext_lazy("refusal", "reject it")}
VERIFIED = {True: pgettext_lazy("agent sentence", "verified in the ERP"),
            False: pgettext_lazy("agent sentence", "not verified: the ERP did not answer")}
DRAFT_FIELDS = {  # procurement.chat.draft.missing
    "item": pgettext_lazy("draft field", "what to buy"), "quantity": pgettext_lazy("draft field", "how many"),
    "department": pgettext_lazy("draft field", "department"), "justification": pgettext_lazy("draft field", "purpose"),
}
QUOTES = pgettext_lazy("agent sentence", "%(supplier)s quotes %(items)s")
QUOTED = pgettext_lazy("agent sentence", "'%(word)s'")
LIST_SEPARATOR = pgettext_lazy("list separator", ", ")
GROUP_SEPARATOR = pgettext_lazy("list separator", "; ")


# What went wrong with the ERP, in a few words an administrator on call reads at a glance; the
# raw error (host, path, exception) stays under "details" on the work queue.
ERP_ERRORS = [(re.compile(pattern), words) for pattern, words in [
    (r"ERP [^:]*: no answer \((?:\w+\.)*\w*Timeout.*", pgettext_lazy("erp error", "The ERP did not answer in time.")),
    (r"ERP [^:]*: no answer \(.*", pgettext_lazy("erp error", "The ERP could not be reached.")),
    (r"ERP [^:]*: HTTP (?P<status>5\d\d)\b.*",
     pgettext_lazy("erp error", "The ERP had an error of its own (HTTP %(status)s).")),
    (r"ERP [^:]*: HTTP (?P<status>\d+)\b.*", pgettext_lazy("erp error", "The ERP answered with HTTP %(status)s.")),
    (r"ERP refused \((?P<status>\d+)\): .*", pgettext_lazy("erp error", "The ERP refused it (HTTP %(status)s).")),
    (r"ERP lookup refused: .*", pgettext_lazy("erp error", "The ERP refused to look the result up.")),
    (r"ERP returned \d+ objects for one key.*",
     pgettext_lazy("erp error", "The ERP holds more than one record for one request.")),
    (r"ERP answered without the id of what it made",
     pgettext_lazy("erp error", "The ERP answered without saying what it made.")),
]]


UNCHECKED = pgettext_lazy("erp error", "Whether the ERP made it could not be checked: %(why)s")


def error_words(text: str) -> str:
    """An ERP error (as a receipt or a failed step records it) in the reader's language, or ""."""
    text = " ".join(str(text or "").split())
    text = re.sub(r"^step '\w+' failed \d+ times in a row; last error: ", "", text)
    unchecked = text.startswith("could not verify: ")  # agentstate.receipts: the look-up by key failed too
    text = text.removeprefix("could not verify: ")
    for pattern, words in ERP_ERRORS:
        match = pattern.fullmatch(text)
        if match:
            said = str(words) % match.groupdict()
            return str(UNCHECKED) % {"why": said} if unchecked else said
    return ""


def readable(text: str) -> str:
    """`text` in the reader's language when it is a sentence the agent writes; else as it is."""
    found = translate(text)
    return text if found is None else found


def translate(text: str) -> str | None:
    """`text` in the reader's language, or None when it is no sentence listed here."""
    text = " ".join(str(text).split())
    for pattern, words in SENTENCES:
        match = pattern.fullmatch(text)
        if match:
            parts = {name: _part(name, value) for name, value in match.groupdict().items()}
            return (str(words) % parts).strip()
    return None


def event_reason(event) -> str:
    """Why an event happened, for the timeline: a person's own words as written (a comment, a
    reason); the agent's sentences in the reader's language; "" for an agent sentence nobody
    listed, unless the reader reads English (admins open the raw reason under "details")."""
    reason = getattr(event, "reason", "") or ""
    if not reason or (reason == "created" and getattr(event, "event", "") == "create"):
        return ""  # the event's label already says it: 「建立」, not 「建立 已建立」
    found = translate(reason)
    if found is not None:
        return found
    if not labels.is_agent(getattr(event, "actor", "")) or (get_language() or "en").startswith("en"):
        return reason
    return ""


GENERIC_REFUSALS = {  # for a refusal nobody listed: what kind of refusal it is, in words
    StaleVersion: pgettext_lazy("refusal", "This request changed since you opened it; reload to see what changed."),
    LeaseLost: pgettext_lazy("refusal", "The agent is working on this request right now; try again in a moment."),
    IllegalTransition: pgettext_lazy("refusal", "That is not possible while the request is %(state)s."),
    NotPermitted: pgettext_lazy("refusal", "You may not do that on this request."),
    NotFound: pgettext_lazy("refusal", "Not found."),
    Conflict: pgettext_lazy("refusal", "This request changed meanwhile; reload and try again."),
    DomainError: pgettext_lazy("refusal", "That could not be done: %(detail)s"),
}


CODED_REFUSALS = {  # agentstate errors with a code, when their sentence is not listed above
    "checkpoint_not_found": pgettext_lazy("refusal", "This request has no such saved state."),
    "checkpoint_tampered": pgettext_lazy("refusal", "A saved state of this request was changed after it was "
                                                    "written; it was not used."),
    "checkpoint_foreign_tenant": pgettext_lazy("refusal", "That saved state belongs to another department; it "
                                                          "was not used."),
    "checkpoint_chain_broken": pgettext_lazy("refusal", "A saved state of this request is incomplete; it was not "
                                                        "used."),
    "schema_too_new": pgettext_lazy("refusal", "This was saved by a newer version of the app. Nothing was changed."),
    ReasonQuotesEntry.code: pgettext_lazy(
        "refusal", "The reason repeats what the entry says, and the reason is kept after the text is gone. Say why "
                   "without quoting it, e.g. \"no longer true\" or \"asked to forget\"."),
}


def coded_refusal(exc: DomainError) -> str | None:
    """The refusal in the reader's language if it has a code listed here, else None."""
    words = CODED_REFUSALS.get(getattr(exc, "code", ""))
    return None if words is None else str(words)


def refusal_errors(exc: DomainError) -> dict[str, list[str]]:
    """The refusal's field errors, in the reader's language where the refusal has a listed code."""
    errors = exc.extra.get("errors") or {}
    coded = coded_refusal(exc)
    return {field: [coded] for field in errors} if coded is not None else errors


def refusal(exc: DomainError) -> str:
    """A refusal (DomainError) as the person who met it reads it: a listed sentence in their
    language; else its code's sentence; else what kind of refusal it is, never an event or state code."""
    if exc.translated:
        return str(exc)
    found = translate(str(exc))
    if found is not None:
        return found
    if getattr(exc, "code", "") in CODED_REFUSALS:
        return str(CODED_REFUSALS[exc.code])
    for kind, words in GENERIC_REFUSALS.items():
        if isinstance(exc, kind):
            state = labels.state_label(exc.extra.get("state") or "")
            return str(words) % {"state": state, "detail": str(exc)}
    return str(exc)


def _part(name: str, value: str) -> str:
    if value is None:
        return ""
    if name in PERSON_PARTS and USERNAME.fullmatch(value):
        return person_label(value)
    if name == "errors":  # "ERP GET /requisitions: HTTP 503 …; …": each in words where known
        return " ".join(error_words(e) or e for e in value.split("; ")).rstrip("。.")
    if name == "people":
        return str(LIST_SEPARATOR).join(person_label(who) if USERNAME.fullmatch(who) else who
                                        for who in value.split(", "))
    if name in MONEY_PARTS:
        try:
            return ntd(Decimal(value.replace(",", "")))
        except InvalidOperation:
            return value
    if name == "rule":
        return labels.label(labels.RULE_LABELS, value)
    if name == "operation":
        return labels.label(labels.OPERATION_LABELS, value)
    if name == "step":
        return labels.label(labels.STEP_LABELS, value)
    if name == "verified":
        return str(VERIFIED[value.startswith("verified")])
    if name == "state":
        return labels.state_label(value)
    if name == "status":
        return labels.label(labels.APPROVAL_LABELS, value).lower()
    if name == "decision":
        return str(DECISION_VERBS.get(value, value))
    if name in {"before", "after"}:
        return labels.label(labels.RECEIPT_LABELS, value)
    if name == "quoted":
        return str(LIST_SEPARATOR).join(str(QUOTED) % {"word": word}
                                        for word in re.split(r"', '|' or '", value.strip("'")))
    if name == "who":
        return str(GROUP_SEPARATOR).join(str(QUOTES) % {"supplier": supplier, "items": _items(items)}
                                         for supplier, _, items in (part.partition(" quotes ")
                                                                    for part in value.split("; ")))
    if name == "items":
        return _items(value)
    if name == "department":
        return labels.department_code_label(value)
    if name == "role":
        return role_label(value)
    if name == "item":
        return labels.item_label(value)
    if name == "fields":
        return str(LIST_SEPARATOR).join(str(DRAFT_FIELDS.get(field, field)) for field in value.split(", "))
    return value


def _items(value: str) -> str:
    return str(LIST_SEPARATOR).join(labels.item_label(item) for item in value.split(", "))

"""`{{ task.state|state_label }}` and friends: codes shown as words (procurement.words.labels)."""
from django import template
from django.utils.translation import pgettext

from procurement.words import ages, labels
from procurement import words, workflow
from procurement.words.people import person_label
from procurement.policy.shown import approval_status_words, decision_lines

register = template.Library()


@register.filter
def state_label(state) -> str:
    return labels.label(labels.STATE_LABELS, state)


@register.filter
def state_meaning(state) -> str:
    return labels.label(labels.STATE_MEANINGS, state)


@register.filter
def session_label(status) -> str:
    return labels.label(labels.SESSION_LABELS, status)


@register.filter
def session_status(session) -> str:
    """A conversation whose request has ended (a terminal state: after its PO it goes on until `closed`)
    reads closed at once; the retention pass records it
    later (agentstate.retention.sessions_age)."""
    if session.status in ("active", "idle") and session.task_id and session.task.state in workflow.TERMINAL:
        # a draft she discarded was never a request: its conversation ended with the draft
        discarded = session.task.state == workflow.CANCELLED and not hasattr(session.task, "purchase_request")
        return "discarded" if discarded else "closed"
    return session.status


@register.filter
def receipt_label(status) -> str:
    return labels.label(labels.RECEIPT_LABELS, status)


@register.filter
def approval_label(status) -> str:
    return labels.label(labels.APPROVAL_LABELS, status)


@register.filter
def revision_words(approval) -> str:
    """Which version of the request an approval is of, as people number them: 「第 3 版」, "revision 3"
    (older approvals, opened before the scope kept it, by their bound version: "v8")."""
    if not approval:
        return ""
    if isinstance(approval, dict):  # selectors.previous_scope's {"scope", "state_version", ...}
        scope, state_version = approval.get("scope") or {}, approval.get("state_version")
    else:
        scope, state_version = approval.scope or {}, approval.state_version
    if scope.get("revision"):
        return pgettext("which version of a request", "revision %(n)s") % {"n": scope["revision"]}
    return f"v{state_version}"


@register.filter
def approval_status(approval) -> str:
    return approval_status_words(approval)


@register.filter
def approval_decisions(approval) -> list[str]:
    """Each step's decisions in words, "on behalf of" included (procurement.policy.shown)."""
    return decision_lines(approval)


@register.filter
def operation_label(operation) -> str:
    return labels.label(labels.OPERATION_LABELS, operation)


@register.filter
def event_label(event) -> str:
    return labels.event_label(event)


@register.filter
def actor_label(actor) -> str:
    """A person by name (procurement.words.people), or 「採購助理」/"the agent" for the worker's host:pid and the runtime."""
    return labels.actor_label(actor or "")


@register.filter
def person(who) -> str:
    """`{{ approval.decided_by|person }}`: a user or a username by full name, else username (procurement.words.people)."""
    return person_label(who)


@register.filter
def event_reason(event) -> str:
    """Why it happened, in the reader's language (procurement.words); "" when only admins
    may read it (the raw reason stays under "details")."""
    return words.event_reason(event)


@register.filter
def error_words(text) -> str:
    """An ERP error in a few words in the reader's language ("" when it is no known form)."""
    return words.error_words(text)


@register.filter
def said(value) -> str:
    """What is stored as a code (a Said's JSON: the agent's question, a dry run's reason) in the
    reader's language; text (a chat turn, a person's own words) as written, with its removal
    markers in the reader's language."""
    if words.Said.of(value) is not None:
        return words.said_or_text(value)
    return labels.redactions_in(value)


@register.filter
def recorded_reason(event) -> str:
    """An event's reason under the admins' details: its words, or the uncoded text quoted."""
    return words.recorded_reason(event)


@register.filter
def erp_error(text) -> str:
    """A receipt's ERP error under the admins' details: in words, or quoted as recorded."""
    return words.erp_error(text) if text else ""


@register.filter
def transition_roles(allowed) -> str:
    """Who may fire a transition, each in words, listed."""
    return labels.listed(labels.label(labels.TRANSITION_ROLES, role) for role in allowed or ())


@register.filter
def question_words(question) -> str:
    """The open question (procurement.purchase.requests.Question): the agent's in the reader's
    language, an approver's as written."""
    return words.said_or_text(question.asked or question.text) if question else ""


@register.filter
def memory_label(code) -> str:
    return labels.label(labels.MEMORY_LABELS, code)


@register.filter
def deletion_words(report, done="") -> str:
    """`{{ preview|deletion_words }}`, `{{ deleted|deletion_words:"done" }}`."""
    return labels.deletion_words(report, done=bool(done))


@register.filter
def step_label(step) -> str:
    return labels.label(labels.STEP_LABELS, step)


@register.filter
def item_label(description) -> str:
    """`{{ line.description|item_label }}`: a catalogue item in the reader's language (「筆電」)."""
    return labels.item_label(description)


@register.filter
def item_names(descriptions) -> str:
    return labels.item_names(descriptions)


@register.filter
def items_summary(lines) -> str:
    """`{{ now.lines|items_summary }}`: 「筆電 × 2、螢幕 × 1」 / "Laptop × 2, Monitor × 1"."""
    return labels.items_summary(lines)


@register.filter
def listed(parts) -> str:
    """`{{ change.after|listed }}`: 「筆電 × 2、鍵盤 × 1」 / "Laptop × 2, Keyboard × 1", as the reader lists."""
    return labels.listed(parts)


@register.filter
def line_words(line) -> str:
    """`{{ line|line_words }}`: one line, 「筆電 × 2」 / "Laptop × 2"."""
    return labels.line_words(line)


@register.filter
def department_label(department) -> str:
    """`{{ dept|department_label }}`: 「工程部」 / "Engineering" for the demo's ENG; any other name as stored."""
    return labels.department_label(department)


@register.filter
def department_with_code(department) -> str:
    """`{{ dept|department_with_code }}`: 「工程部（ENG）」 / "Engineering (ENG)"."""
    return labels.department_with_code(department)


@register.filter
def age(since) -> str:
    """`{{ row.created_at|age }}`: 「12 分鐘」, "12 minutes" (procurement.words.ages), where Django's timesince says 「12 分」."""
    return ages.age(since)


@register.filter
def ago(since) -> str:
    """"12 minutes ago", 「12 分鐘前」, "just now"."""
    return ages.ago(since)


@register.filter
def join_numbers(relatives) -> str:
    """`{{ relatives|join_numbers }}`: 「REQ-2026-00001、REQ-2026-00002」, the requests by number."""
    return pgettext("list separator", ", ").join(r.number for r in relatives)

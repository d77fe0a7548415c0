"""The approval chain as pages show it: one line per step with its people (and who stands in for
them), its status and its decisions, in the reader's language (the words are procurement.words.policy)."""
from dataclasses import replace
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import pgettext
from procurement.words import labels
from procurement.words.people import people_labels, remember, stand_in_words
from procurement.policy.chain import chain_view, withdrawn
from procurement.words.policy import STATUSES, _own_request_notes, decision_words, step_who


def approval_status_words(approval) -> str:
    """An approval's status in words; one superseded by a cancel, not by a newer version, says so."""
    if withdrawn(approval):
        return capfirst(STATUSES["withdrawn"])  # beside "Pending", "Approved": a label, not a chain step
    return labels.label(labels.APPROVAL_LABELS, approval.status)


def _named(approval, steps) -> list[str]:
    """Every username the chain's words name, to look their names up at once."""
    names = [name for step in steps for name in (step.user, *step.people, *step.offered)]
    names += [name for step in steps for d in step.decisions for name in (d.decided_by, d.on_behalf_of)]
    for frozen in approval.chain or ():
        names += [frozen.get("without_requester", "")] + [c["requester"] for c in frozen.get("covers", [])]
        names.append((frozen.get("in_place_of") or {}).get("requester", ""))
    return names


def chain_lines(approval, stand_ins=()) -> list[dict]:
    """The chain as the page shows it: one entry per step, current step marked; its people read
    「Bob Wang（代理人 Dave Huang）」 while a delegation in `stand_ins` ((delegator, delegate) pairs) runs."""
    steps = chain_view(approval)
    cancelled = withdrawn(approval)
    remember(_named(approval, steps) + [delegate for _, delegate in stand_ins])
    lines = []
    for step in steps:
        frozen = approval.chain[step.number - 1] if approval.chain else {}
        if frozen.get("handed_to"):
            step = replace(step, handed_to=frozen["handed_to"])
        running = stand_ins if step.status == "pending" else ()
        step = replace(step, people=[stand_in_words(person, running) for person in step.people])
        extra = _own_request_notes(frozen)
        if step.offered:
            extra.append(_("Waited too long: also offered to %(people)s.") % {
                "people": pgettext("list separator", ", ").join(people_labels(step.offered))})
        elif step.escalate_after_seconds and step.status in ("pending", "waiting"):
            extra.append(_("If it waits more than %(hours)s hours, it is offered to the backup.") % {
                "hours": f"{step.escalate_after_seconds / 3600:g}"})
        lines.append({"number": step.number, "who": step_who(step), "status": step.status,
                      "status_label": str(STATUSES["withdrawn" if cancelled and step.status == "superseded"
                                                   else step.status]),
                      "decisions": [decision_words(d) for d in step.decisions], "notes": extra,
                      "current": step.status == "pending"})
    return lines


def decision_lines(approval) -> list[str]:
    """Every decision of every step, as the request's approval history lists them: who decided, for
    whom when a delegate did, when, and their comment; a chain's steps numbered (「第 2 關：…」)."""
    steps = chain_view(approval)
    remember(_named(approval, steps))
    numbered = len(steps) > 1
    return [_("Step %(n)s: %(decision)s") % {"n": step.number, "decision": decision_words(d)} if numbered
            else decision_words(d) for step in steps for d in step.decisions]

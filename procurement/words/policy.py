"""An approval's chain in words, in the reader's language: who decides each step, its status,
and each decision ("dave approved on behalf of bob, 2026-11-30 10:02" /「dave 代 bob 核准」)."""

from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.utils.translation import pgettext, pgettext_lazy

from procurement.words.people import person_label

ROLES = {"manager": pgettext_lazy("approval role", "department manager"),
         "director": pgettext_lazy("approval role", "director"),
         "finance": pgettext_lazy("approval role", "finance")}
STATUSES = {"approved": pgettext_lazy("chain step", "approved"), "pending": pgettext_lazy("chain step", "waiting now"),
            "waiting": pgettext_lazy("chain step", "to come"), "rejected": pgettext_lazy("chain step", "rejected"),
            "returned": pgettext_lazy("chain step", "returned for revision"),
            "superseded": pgettext_lazy("chain step", "replaced by a newer version"),
            "withdrawn": pgettext_lazy("chain step", "request cancelled"),
            "expired": pgettext_lazy("chain step", "expired"),
            "not_reached": pgettext_lazy("chain step", "not reached")}


def role_label(role: str) -> str:
    return str(ROLES.get(role, role))


def step_who(step) -> str:
    """"department manager (any one of: bob, frank)"."""
    what = role_label(step.role) if step.role else person_label(step.user)
    if step.handed_to:
        what = role_label(step.handed_to)
    people = pgettext("list separator", ", ").join(step.people)
    if not people:
        return what
    if len(step.people) == 1:  # 「部門主管（Dave Huang）」, not "any one of" one person
        return _("%(what)s (%(people)s)") % {"what": what, "people": people}
    if step.mode == "all":
        return _("%(what)s (all of: %(people)s)") % {"what": what, "people": people}
    return _("%(what)s (any one of: %(people)s)") % {"what": what, "people": people}


def decision_words(decision) -> str:
    when = date_format(timezone.localtime(decision.at), "Y-m-d H:i") if decision.at else ""
    parts = {"who": person_label(decision.decided_by), "for": person_label(decision.on_behalf_of), "when": when}
    if decision.on_behalf_of:
        sentence = {"approve": _("%(who)s approved on behalf of %(for)s, %(when)s"),
                    "reject": _("%(who)s rejected on behalf of %(for)s, %(when)s"),
                    "return": _("%(who)s returned it on behalf of %(for)s, %(when)s")}
    else:
        sentence = {"approve": _("%(who)s approved, %(when)s"), "reject": _("%(who)s rejected, %(when)s"),
                    "return": _("%(who)s returned it, %(when)s")}
    said = sentence.get(decision.decision, "%(who)s, %(when)s") % parts
    # The next step's approver reads what the one before wrote (the requester reads it on her page).
    return _("%(decision)s: “%(comment)s”") % {"decision": said, "comment": decision.comment} if decision.comment \
        else said


def _own_request_notes(step: dict) -> list[str]:
    """Why the requester is not on a step: it covers a step only she could have decided, or it went
    to the next level up without her."""
    notes = [_("Also decides in place of the %(role)s step: %(name)s is the requester, and nobody decides "
               "their own request.") % {"role": role_label(covered["role"]), "name": person_label(covered["requester"])}
             for covered in step.get("covers", [])]
    instead = step.get("in_place_of") or ({"role": step["role"], "requester": step["without_requester"]}
                                          if step.get("handed_to") else None)
    if instead:
        notes.append(_("In place of the %(role)s: %(name)s is the requester, and nobody decides their own "
                       "request.") % {"role": role_label(instead["role"]), "name": person_label(instead["requester"])})
    elif step.get("without_requester") and not step.get("covers"):
        notes.append(_("%(name)s is the requester and does not decide this step.") % {
            "name": person_label(step["without_requester"])})
    return notes

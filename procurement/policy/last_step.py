"""Above every limit, a way on without editing the policy (DESIGN §7 keeps such a request in
`needs_review`): from the work queue an admin names who decides it, and says why. The queue's
`retry` of the routing step then opens a one-step approval for that person, and the approval
page says who chose them and why.

The choice belongs to the request's version it was made on: an amended request is routed by the
policy again. Whom an admin may name: an active person holding an approval role (manager,
director, finance) in the request's department or in all departments; never the requester, and
never the admin who chooses, so that two people stand behind the purchase."""
from django.contrib.auth import get_user_model
from django.db.models import Q

from agentstate.errors import DomainError, NotPermitted
from agentstate.said import say

from procurement.models import Membership
from procurement.selectors.roles import APPROVER_ROLES

ROUTING_STEP = "route"  # the step that found no rule or nobody to decide


def may_choose(user) -> bool:
    """Only an admin names an approver above every limit."""
    return bool(user.is_active and user.is_superuser)


def choosable(task, user) -> bool:
    """Does the work queue offer `user` the choice for this task: routing found nobody."""
    return task.step == ROUTING_STEP and may_choose(user)


def candidates(task, *, chooser) -> list:
    """The people `chooser` may name for `task`, by name."""
    held = Membership.objects.filter(role__in=APPROVER_ROLES).filter(
        Q(department__code=task.tenant) | Q(department__isnull=True)).values("user_id")
    people = (get_user_model().objects.filter(is_active=True, pk__in=held)
              .exclude(pk__in=[task.initiator_id, chooser.pk]))
    return sorted(people, key=lambda p: (p.get_full_name() or p.get_username()).casefold())


def choose(task, *, chooser, username: str, reason: str) -> dict:
    """The task data that makes the routing step's retry route to `username`, or a DomainError
    naming what was wrong (nothing written)."""
    if not may_choose(chooser):
        raise NotPermitted(said=say("approver_admin_only"))
    if task.step != ROUTING_STEP:
        refused = say("approver_not_at_route")
        raise DomainError(said=refused, errors={"approver": [str(refused)]})
    person = next((p for p in candidates(task, chooser=chooser) if p.get_username() == username), None)
    if person is None:
        refused = say("approver_not_eligible")
        raise DomainError(said=refused, errors={"approver": [str(refused)]})
    return {"chosen_approver": {"id": person.pk, "username": person.get_username(),
                                "chosen_by": chooser.get_username(), "reason": reason,
                                "revision": task.data.get("revision", 1)}}


def chosen_route(task, *, department, total, policy_version) -> dict | None:
    """The route to the person an admin named for this version of the request, if any (still active)."""
    chosen = task.data.get("chosen_approver") or {}
    if not chosen or chosen.get("revision") != task.data.get("revision", 1):
        return None
    if not get_user_model().objects.filter(pk=chosen["id"], is_active=True).exists():
        return None
    ids, names = [chosen["id"]], [chosen["username"]]
    step = {"role": "", "user": chosen["username"], "mode": "any", "within_limit": False, "backup_role": "",
            "escalate_after_seconds": None, "user_ids": ids, "usernames": names}
    return {"rule": "person", "user_ids": ids, "usernames": names, "total": str(total),
            "department": department.code, "policy_version": policy_version, "policy_rule": "",
            "chosen_by": chosen["chosen_by"], "chosen_reason": chosen["reason"], "chain": [step]}

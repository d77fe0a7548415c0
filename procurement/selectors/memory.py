"""Who may read, propose, write and confirm memory in procurement (DESIGN §8, §9), read from
memberships and departments: never from memory itself. Registered as the memory policy the
engine's memory selectors consult; the reads pages and API use are re-exported here.

- user scope: that person (read, propose, confirm) and admins;
- department scope: members read and propose, the department's manager (a manager
  membership there, or Department.manager) writes and confirms, admins do everything;
  confidential department entries are read by its managers and admins only;
- organisation scope: every active user reads and proposes, admins write and confirm.
A proposed entry, not yet confirmed, is read only by the person who proposed it and by those
who may confirm it (the person it concerns, the department's managers, admins).
A departed (inactive) user reads nothing; their own entries are thereby readable by admins only.
"""
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db.models import Q

from agentstate.errors import NotPermitted
from agentstate.said import Said, say
from agentstate.memory import policy
from agentstate.memory.models import MemoryEntry, Scope, Sensitivity
from agentstate.memory.selectors import entry_for, memory_entries_for, memory_history, memory_uses  # noqa: F401
from agentstate.models import Task

from procurement.models import Department, Membership
from procurement.selectors.tasks import visible_tasks


@dataclass(frozen=True)
class Viewer:
    username: str
    active: bool
    admin: bool
    member_of: frozenset     # department codes whose ordinary memory they read
    manages: frozenset       # department codes whose memory they confirm


def viewer(user) -> Viewer:
    if not user.is_active:
        return Viewer(user.get_username(), False, False, frozenset(), frozenset())
    memberships = list(Membership.objects.filter(user=user).values_list("department__code", "role"))
    if any(code is None for code, _ in memberships):  # a membership across all departments
        member_of = set(Department.objects.values_list("code", flat=True))
    else:
        member_of = {code for code, _ in memberships}
    manages = {code for code, role in memberships if code and role == Membership.Role.MANAGER}
    manages |= set(Department.objects.filter(manager=user).values_list("code", flat=True))
    return Viewer(user.get_username(), True, user.is_superuser, frozenset(member_of | manages), frozenset(manages))


class ProcurementMemoryPolicy:
    def subjects_for(self, user, task=None):
        # On a task, the department in scope is the task's, not every one the person belongs to.
        departments = [task.tenant] if task is not None and task.tenant else sorted(set(
            Membership.objects.filter(user=user, department__isnull=False).values_list("department__code", flat=True)))
        return [(Scope.USER, user.get_username()), *[(Scope.DEPARTMENT, code) for code in departments],
                (Scope.ORGANISATION, "")]

    def subject_exists(self, scope, subject):
        if scope == Scope.USER:
            User = get_user_model()
            return User.objects.filter(**{User.USERNAME_FIELD: subject}).exists()
        if scope == Scope.DEPARTMENT:
            return Department.objects.filter(code=subject).exists()
        return scope == Scope.ORGANISATION and subject == ""

    def readable(self, user):
        who = viewer(user)
        if who.admin:
            return Q()
        if not who.active:
            return Q(pk__in=[])
        ordinary = Q(subject__in=who.member_of) & ~Q(sensitivity=Sensitivity.CONFIDENTIAL)
        confirms = Q(scope=Scope.USER, subject=who.username) | Q(scope=Scope.DEPARTMENT, subject__in=who.manages)
        settled = ~Q(status=MemoryEntry.Status.PROPOSED) | Q(created_by=user) | confirms
        return settled & (Q(scope=Scope.USER, subject=who.username)
                          | Q(scope=Scope.DEPARTMENT) & (ordinary | Q(subject__in=who.manages))
                          | Q(scope=Scope.ORGANISATION))

    def may_read(self, user, entry):
        who = viewer(user)
        if who.admin or not who.active:
            return who.admin
        if (entry.status == MemoryEntry.Status.PROPOSED and entry.created_by_id != user.pk
                and not self.may_confirm(user, entry)):
            return False
        if entry.scope == Scope.USER:
            return entry.subject == who.username
        if entry.scope == Scope.DEPARTMENT:
            return entry.subject in who.manages or (
                entry.subject in who.member_of and entry.sensitivity != Sensitivity.CONFIDENTIAL)
        return entry.scope == Scope.ORGANISATION

    def may_propose(self, user, scope, subject):
        who = viewer(user)
        if who.admin or not who.active:
            return who.admin
        return ((scope == Scope.USER and subject == who.username)
                or (scope == Scope.DEPARTMENT and subject in who.member_of)
                or scope == Scope.ORGANISATION)

    def may_write(self, user, scope, subject):
        who = viewer(user)
        return who.admin or (who.active and scope == Scope.DEPARTMENT and subject in who.manages)

    def may_confirm(self, user, entry):
        who = viewer(user)
        if who.admin or not who.active:
            return who.admin
        if entry.scope == Scope.USER:
            return entry.subject == who.username
        return entry.scope == Scope.DEPARTMENT and entry.subject in who.manages


def register():
    policy.register(ProcurementMemoryPolicy())


GOVERN_REFUSAL = say("may_only_read_entry")


def govern_refusal(user, entry) -> Said | None:
    """Why `user`, who may read the entry, may not confirm, correct or delete it; "" if she may."""
    return None if policy.current().may_confirm(user, entry) else GOVERN_REFUSAL


def entry_to_govern(user, entry_id):
    """An entry `user` may confirm, correct or delete: 404 unless she may read it, 403 with the
    reason if she may only read it. Checked before the input is."""
    entry = entry_for(user, entry_id)
    if govern_refusal(user, entry):
        raise NotPermitted(said=GOVERN_REFUSAL)
    return entry


def visible_task_ids(user, task_ids) -> set:
    """Of the tasks that used an entry, those `user` may see (the others are only counted)."""
    return set(visible_tasks(user, Task.objects.filter(pk__in=list(task_ids))).values_list("pk", flat=True))

"""Per-object grants (django-guardian) and department roles as groups (DESIGN §9).

- the requester on her task, at submission (`grant_requester`);
- each approver on the approval routed to them, when it opens (`grant_approval`, called by the
  signal in `procurement.signals`, since the engine that opens approvals knows no procurement);
- a delegate on an approval, until the delegation ends (`grant_approval(..., until=...)`);
- a watcher a requester adds to her request: reads it, acts on nothing (`watcher_add`).

Reads join these rows (`task_grants`, `approval_grants`), so a list costs the same number of
queries however many objects there are. Membership (with its approval limit) stays the source
of department roles; each role is mirrored into a group (`groups_sync`)."""
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.db import transaction
from django.db.models import Q, Subquery
from django.utils import timezone
from guardian.shortcuts import assign_perm, remove_perm

from agentstate.errors import DomainError, NotFound, NotPermitted
from agentstate.said import Said, say

from procurement.models import ApprovalGrant, Membership, TaskGrant

VIEW_TASK = "agentstate.view_task"
VIEW_APPROVAL, DECIDE_APPROVAL = "agentstate.view_approval", "agentstate.change_approval"
APPROVAL_PERMS = (VIEW_APPROVAL, DECIDE_APPROVAL)


def _codename(perm: str) -> str:
    return perm.split(".", 1)[1]


# -- tasks ------------------------------------------------------------------------------------

def grant_requester(task, user=None):
    """The requester may read her task (whoever else may, too): guardian's row, in one statement
    (the permission's id read inside the insert; a grant already there is left as it is)."""
    permission = Permission.objects.filter(content_type__app_label=task._meta.app_label,
                                           content_type__model=task._meta.model_name, codename=_codename(VIEW_TASK))
    TaskGrant.objects.bulk_create([TaskGrant(permission_id=Subquery(permission.values("pk")), content_object=task,
                                             user_id=user.pk if user else task.initiator_id)], ignore_conflicts=True)


def task_grants(user, perm: str = VIEW_TASK):
    """Ids of the tasks `user` holds `perm` on, as a subquery."""
    return TaskGrant.objects.filter(user=user, permission__codename=_codename(perm)).values("content_object_id")


def watchers_of(task) -> list:
    """The people the requester shared her request with, by name."""
    User = get_user_model()
    return list(User.objects.filter(pk__in=task_grants_on(task)).exclude(pk=task.initiator_id).order_by("username"))


def task_grants_on(task):
    return TaskGrant.objects.filter(content_object=task, permission__codename=_codename(VIEW_TASK)).values("user_id")


def watcher_add(*, task, by, username: str):
    """`by`, the requester, lets a colleague read her request. The colleague acts on nothing."""
    if task.initiator_id != by.pk:
        raise NotPermitted(said=say("only_the_requester_shares"))
    watcher = _colleague(username)
    if watcher.pk == task.initiator_id:
        raise _field(say("own_request_seen"))
    with transaction.atomic():
        assign_perm(VIEW_TASK, watcher, task)
    return watcher


def watcher_remove(*, task, by, username: str):
    if task.initiator_id != by.pk:
        raise NotPermitted(said=say("only_the_requester_shares"))
    watcher = get_user_model().objects.filter(username=username).first()
    if watcher is None or watcher.pk == task.initiator_id or not task_grants_on(task).filter(user_id=watcher.pk).exists():
        raise NotFound(said=say("not_watching", name=username))
    remove_perm(VIEW_TASK, watcher, task)


def _colleague(username: str):
    username = (username or "").strip()
    if not username:
        raise _field(say("colleague_needed"))
    watcher = get_user_model().objects.filter(username=username, is_active=True).first()
    if watcher is None:
        raise _field(say("no_such_colleague", name=username))
    return watcher


def _field(said: Said) -> DomainError:
    """A refusal of the user name field: its words are the refusal's (procurement.words.refusal_errors)."""
    return DomainError(said=said, errors={"username": [str(said)]})


# -- approvals --------------------------------------------------------------------------------

def grant_approval(approval, user, until=None):
    """`user` may read and decide `approval` (until `until`, if given: a delegate's end date).
    Whether a decision goes through is still re-checked at the click (limits, own request)."""
    grant_approval_to(approval, [user.pk], until=until)


def grant_approval_to(approval, user_ids, until=None):
    """grant_approval for each of `user_ids`, in two statements however many: the permissions'
    ids, then one insert whose conflicts (a grant already there) take the new `until`."""
    permissions = list(Permission.objects.filter(
        content_type__app_label=approval._meta.app_label, content_type__model=approval._meta.model_name,
        codename__in=[_codename(perm) for perm in APPROVAL_PERMS]).values_list("pk", flat=True))
    if len(permissions) != len(APPROVAL_PERMS):
        raise LookupError(f"Permissions {APPROVAL_PERMS} are not all there (migrations not run?).")
    ApprovalGrant.objects.bulk_create(
        [ApprovalGrant(permission_id=permission, user_id=user_id, content_object=approval, until=until)
         for user_id in sorted(set(user_ids)) for permission in permissions],
        update_conflicts=True, unique_fields=["user", "permission", "content_object"], update_fields=["until"])


def revoke_approval(approval, user):
    revoke_approval_from(approval, [user.pk])


def revoke_approval_from(approval, user_ids):
    """What grant_approval_to gave, taken back, in one statement."""
    ApprovalGrant.objects.filter(content_object=approval, user_id__in=list(user_ids),
                                 permission__codename__in=[_codename(perm) for perm in APPROVAL_PERMS]).delete()


def approval_grants(user, perm: str = VIEW_APPROVAL, now=None):
    """Ids of the approvals `user` holds `perm` on today (a delegate's past its end are gone)."""
    now = now or timezone.now()
    return (ApprovalGrant.objects.filter(user=user, permission__codename=_codename(perm))
            .filter(Q(until__isnull=True) | Q(until__gt=now)).values("content_object_id"))


def approval_task_grants(user, now=None):
    """Ids of the tasks whose approvals `user` may read today: an approver reads what she decides."""
    now = now or timezone.now()
    return (ApprovalGrant.objects.filter(user=user, permission__codename=_codename(VIEW_APPROVAL))
            .filter(Q(until__isnull=True) | Q(until__gt=now)).values("content_object__task_id"))


# -- department roles as groups ---------------------------------------------------------------

def role_group_name(department_code: str | None, role: str) -> str:
    """"ENG manager", "OPS requester"; a role across every department: "* director"."""
    return f"{department_code or '*'} {role}"


def groups_sync(user):
    """The user's role groups match her memberships: one group per (department, role), added and
    removed as memberships are; other groups she is in are left alone."""
    wanted = {role_group_name(code, role) for code, role in
              Membership.objects.filter(user=user).values_list("department__code", "role")}
    groups = {name: Group.objects.get_or_create(name=name)[0] for name in wanted}
    current = user.groups.filter(name__regex=r"^\S+ (requester|manager|director|admin)$")
    user.groups.remove(*[g for g in current if g.name not in wanted])
    user.groups.add(*groups.values())

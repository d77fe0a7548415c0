"""Who may record what arrived on a purchase task, and who may close its rest short (DESIGN §16).

Receiving: the requester, or a member of her department (any role there). Closing short: a manager
or director deciding for the department, or accounts payable (the `accounts_payable` group), or an
admin. Someone who may not see the task at all gets 404; someone who sees it but may not act, 403.
"""

from agentstate.errors import NotFound, NotPermitted
from agentstate.ids import is_uuid
from agentstate.models import Task
from agentstate.said import say

from procurement import workflow
from procurement.models import Membership
from procurement.selectors.roles import decides_for
from procurement.selectors.tasks import may_view



def _member_of(user, task) -> bool:
    return Membership.objects.filter(user=user, department__code=task.tenant).exists()


def may_receive(user, task) -> bool:
    return user.is_active and (task.initiator_id == user.pk or _member_of(user, task))


def is_accounts_payable(user, roles: set[str] | None = None) -> bool:
    """Accounts payable (the membership role `accounts_payable`, DESIGN §10: carol) or an admin.
    `roles`: roles_held(user), when already read (the page header)."""
    if not (user.is_authenticated and user.is_active):
        return False
    if user.is_superuser:
        return True
    if roles is not None:
        return Membership.Role.ACCOUNTS_PAYABLE in roles
    return Membership.objects.filter(user=user, role=Membership.Role.ACCOUNTS_PAYABLE).exists()


def may_close_short(user, task) -> bool:
    return user.is_active and (is_accounts_payable(user) or decides_for(user, task.tenant))


def _visible(user, task_id) -> Task:
    """The task if `user` may see it, or belongs to its department (who receives may read it)."""
    task = Task.objects.filter(pk=task_id, kind=workflow.KIND).first() if is_uuid(task_id) else None
    if task is None or not user.is_authenticated or not (may_view(user, task) or may_receive(user, task)):
        raise NotFound(said=say("no_such", thing="task"))
    return task


def task_receipts_for(user, task_id) -> Task:
    """A task whose goods receipts `user` may read: 404 otherwise."""
    return _visible(user, task_id)


def task_to_receive(user, task_id) -> Task:
    """A task `user` may record goods on: 404 if she may not see it, 403 if she sees it but is
    neither its requester nor of its department."""
    task = _visible(user, task_id)
    if not may_receive(user, task):
        raise NotPermitted(said=say("receive_not_allowed"))
    return task


def task_to_close_short(user, task_id) -> Task:
    """A task `user` may close short: 404 if she may not see it, 403 if she may see it but is no
    manager of its department and not accounts payable."""
    task = _visible(user, task_id)
    if not may_close_short(user, task):
        raise NotPermitted(said=say("close_not_allowed"))
    return task

"""A person leaves (DESIGN §8, issue 6): their account stops, their sessions become readable
by admins only, their own memory stops being used and waits for review, and their open
purchase tasks are cancelled. Erasing them, later or at once, deletes their own memory and
redacts what they said, deletes their in-page notices and blanks the mail the outbox holds for them."""
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.db import transaction

from agentstate.errors import DomainError, NotPermitted
from agentstate.memory.deletion import memory_delete
from agentstate.memory.models import MemoryEntry, Scope
from agentstate.memory.sweeps import memory_flag_subject_left
from agentstate.models import Session, Task
from agentstate.said import say
from agentstate.turns import turns_redact

from procurement.purchase import services
from procurement import workflow
from procurement.models import Notice, Notification
from procurement.words.labels import REDACTED
from procurement.people.tokens import tokens_revoke

TASK_POLICIES = ("cancel",)


@dataclass
class OffboardReport:
    username: str
    sessions_locked: int = 0
    tokens_revoked: int = 0
    memory_flagged: int = 0
    tasks_cancelled: list[str] = field(default_factory=list)
    tasks_left: dict[str, str] = field(default_factory=dict)  # task id -> why it was not cancelled


@dataclass
class EraseReport:
    username: str
    memory_deleted: int = 0
    turns_redacted: int = 0
    notices_deleted: int = 0
    mail_redacted: int = 0
    offboarded: OffboardReport | None = None


def user_offboard(*, user, by, policy: str = "cancel") -> OffboardReport:
    """Deactivate `user`, lock their sessions, flag their memory, cancel their open tasks.

    Safe to run twice. The account, sessions and memory change in one transaction; each task
    is cancelled in its own, so a task that moved meanwhile is reported, not fatal."""
    _require_admin(by)
    if policy not in TASK_POLICIES:
        refused = say("offboard_unknown_policy", policy=policy, choices=list(TASK_POLICIES))
        raise DomainError(said=refused, errors={"policy": [str(refused)]})
    if user.pk == by.pk:
        raise DomainError(said=say("offboard_self"), errors={"user": [str(say("offboard_self"))]})
    report = OffboardReport(user.get_username())
    with transaction.atomic():
        get_user_model().objects.filter(pk=user.pk).update(is_active=False)
        user.is_active = False
        report.tokens_revoked = tokens_revoke(user=user)
        report.sessions_locked = Session.objects.filter(owner=user, locked=False).update(locked=True)
        report.memory_flagged = memory_flag_subject_left(username=user.get_username(), by=by)
    for task in Task.objects.filter(kind=workflow.KIND, initiator=user).exclude(state__in=workflow.AGENT_DONE):
        _cancel(task, by=by, report=report)
    return report


def user_erase(*, user, by) -> EraseReport:
    """Offboard if still active, then delete their own memory, redact their sessions' turns, delete
    their in-page notices and blank the mail to them in the outbox (rows stay, so nothing is
    ever sent twice; what was still queued goes unsent)."""
    _require_admin(by)
    report = EraseReport(user.get_username())
    if user.is_active:
        report.offboarded = user_offboard(user=user, by=by)
    own = MemoryEntry.objects.filter(scope=Scope.USER, subject=user.get_username()).exclude(
        status=MemoryEntry.Status.DELETED).values_list("pk", flat=True)
    for pk in list(own):
        memory_delete(entry=pk, by=by, reason="the person's data was erased")
        report.memory_deleted += 1
    with transaction.atomic():
        # Agent turns in their sessions quote them too, so every turn of those sessions goes.
        report.turns_redacted = turns_redact(owner=user, text=REDACTED)
        Session.objects.filter(owner=user).update(title="", summary="")
        report.notices_deleted = Notice.objects.filter(recipient=user).delete()[1].get(Notice._meta.label, 0)
        report.mail_redacted = _mail_redact(user)
    return report


def _mail_redact(user) -> int:
    """Mail to them: unsent is withdrawn (a conditional delete, so a dispatcher that already
    claimed it keeps it), the rest keeps its Message-ID and status but loses its words."""
    if not user.email:
        return 0
    to_them = Notification.objects.filter(to__iexact=user.email)
    withdrawn = to_them.filter(status=Notification.Status.QUEUED).delete()[0]
    return withdrawn + to_them.exclude(subject=REDACTED).update(subject=REDACTED, body=REDACTED)


def _cancel(task, *, by, report: OffboardReport):
    if task.state not in workflow.CANCELLABLE:
        report.tasks_left[str(task.pk)] = f"in state {task.state!r}, which cannot be cancelled; review it"
        return
    try:
        services.request_cancel(task_id=task.pk, user=by,
                                reason=say("offboarded", person=report.username, by=by.get_username()))
        report.tasks_cancelled.append(str(task.pk))
    except DomainError as refused:
        report.tasks_left[str(task.pk)] = str(refused)


def _require_admin(by):
    if by is None or not by.is_active or not by.is_superuser:
        raise NotPermitted(said=say("offboard_admin_only"))

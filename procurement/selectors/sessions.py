"""Which chat sessions a person may read or write in (DESIGN §2, §9). A session id is not a
credential: every lookup names the caller. Not visible: 404."""
from agentstate.errors import NotFound
from agentstate.ids import is_uuid
from agentstate.models import Session
from agentstate.said import say

from procurement import workflow


def sessions_of(user):
    """The caller's own open conversations, most recent first; one whose request was a draft she
    discarded is gone with it (as the draft is from her requests)."""
    return (Session.objects.filter(owner=user, locked=False)
            .exclude(task__state__in=workflow.TERMINAL, task__purchase_request__isnull=True)
            .select_related("task__purchase_request").prefetch_related("task__purchase_request__lines"))


def session_for(user, session_id) -> Session:
    """A session its owner may read (unless locked when they left); admins may read any."""
    sessions = Session.objects.prefetch_related("turns")
    if not user.is_superuser:
        sessions = sessions.filter(owner=user, locked=False)
    session = sessions.filter(pk=session_id).first() if is_uuid(session_id) else None
    if session is None:
        raise NotFound(said=say("no_such", thing="session"))
    return session


def session_to_write(user, session_id) -> Session:
    """A session the caller may chat in: her own, not locked (an admin's own locked one too)."""
    session = (Session.objects.filter(pk=session_id, owner=user).select_related("task").first()
               if is_uuid(session_id) else None)
    if session is None or not may_post(user, session):
        raise NotFound(said=say("no_such", thing="session"))
    return session


def may_post(user, session: Session) -> bool:
    # Someone else's session, or one locked when its owner left, does not exist for the caller.
    return session.owner_id == user.pk and (not session.locked or user.is_superuser) and user.is_active


def task_conversations(task):
    """The requester's open conversations about a task, most recent first (her page lists them)."""
    # With its task: each reads closed once the task ended (templatetags.labels.session_status).
    return (Session.objects.filter(task=task, owner_id=task.initiator_id, locked=False).select_related("task")
            .order_by("-updated_at"))


def own_open_session(user, session_id) -> Session | None:
    """One of the caller's own open sessions (to attach a request to), or None."""
    return Session.objects.filter(pk=session_id, owner=user, locked=False).first()

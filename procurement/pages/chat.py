"""The requester's pages: their chat sessions, and one chat beside its task's live panel."""
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from agentstate.errors import DomainError, NotFound
from agentstate.models import Session

from .. import selectors
from ..sentences import refusal
from .tasks import task_context


def _session(user, session_id) -> Session:
    try:
        return selectors.session_to_write(user, session_id)
    except NotFound:
        raise Http404("No such session.") from None


@login_required
def sessions(request):
    mine = selectors.sessions_of(request.user)[:100]
    return render(request, "procurement/sessions.html", {"sessions": mine})


@login_required
@require_POST
def session_new(request):
    session = Session.objects.create(owner=request.user)
    return redirect("chat-page", session.pk)


@login_required
def chat_page(request, session_id):
    session = _session(request.user, session_id)
    return render(request, "procurement/chat.html", _context(request.user, session))


@login_required
@require_POST
def chat_message(request, session_id):
    from ..chat.runtime import chat_turn

    session = _session(request.user, session_id)
    seen = session.turns.count()
    status, error = 200, ""
    try:
        chat_turn(session=session, user=request.user, text=request.POST.get("text", ""))
    except DomainError as exc:
        status, error = exc.http_status, refusal(exc)
    session.refresh_from_db()
    if not request.htmx:
        if error:
            return render(request, "procurement/chat.html", _context(request.user, session) | {"error": error},
                          status=status)
        return redirect("chat-page", session.pk)
    context = _context(request.user, session, new_from=seen) | {"error": error}
    return render(request, "procurement/chat.html#exchange", context, status=status)


def _context(user, session: Session, new_from: int = 0) -> dict:
    turns = list(session.turns.all())
    context = {"session": session, "turns": turns, "new_turns": turns[new_from:]}
    if session.task_id:
        task = selectors.task_timeline(session.task)
        if selectors.shows_beside_chat(user, task):
            context |= task_context(user, task)
    return context

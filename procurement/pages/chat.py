"""The requester's pages: their chat sessions, and one chat beside its task's live panel."""
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils import dateformat, timezone
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext, ngettext
from django.views.decorators.http import require_POST

from agentstate.errors import DomainError, NotFound
from agentstate.models import Session

from .. import selectors
from ..models import PurchaseRequest
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
    context = {"session": session, "turns": turns, "new_turns": turns[new_from:], "digest": digest_words(session)}
    if session.task_id:
        task = selectors.task_timeline(session.task)
        if selectors.shows_beside_chat(user, task):
            context |= task_context(user, task)
    return context


def digest_words(session: Session) -> str:
    """What a compacted conversation's earlier turns were (agentstate.retention), in words: how
    many, over which days, and the requests they touched; their own words are no longer shown."""
    digest = session.digest or {}
    if not digest.get("turns"):
        return ""
    numbers = sorted(PurchaseRequest.objects.filter(task_id__in=digest.get("tasks") or [])
                     .values_list("number", flat=True))
    first, last = (dateformat.format(timezone.localtime(parse_datetime(digest[k])), "Y-m-d")
                   for k in ("first_at", "last_at"))
    text = ngettext("%(n)d earlier message (%(first)s – %(last)s) is summarised.",
                    "%(n)d earlier messages (%(first)s – %(last)s) are summarised.",
                    digest["turns"]) % {"n": digest["turns"], "first": first, "last": last}
    if numbers:
        text += " " + gettext("Requests it touched: %(numbers)s.") % {"numbers": ", ".join(numbers)}
    return text

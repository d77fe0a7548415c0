"""The requester's pages: their chat sessions, and one chat beside its task's live panel."""
import math

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils import dateformat, timezone
from django.utils.dateparse import parse_datetime
from django.utils.translation import get_language, gettext, ngettext
from django.views.decorators.http import require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers

from agentstate.errors import DomainError, NotFound
from agentstate.models import Session

from procurement import selectors
from procurement.api.throttles import chat_wait
from procurement.chat.runtime import conversation_language
from procurement.models import PurchaseRequest
from procurement.words import refusal
from procurement.pages.chat_forms import ChatMessageForm
from procurement.pages.tasks import task_context
from procurement.chat.runtime import chat_turn


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
@require_http_methods(["GET", "POST"])
def session_new(request):
    """POST starts a conversation; a GET (a typed or bookmarked address) goes to the conversation
    list, whose button starts one, rather than a bare 405."""
    if request.method != "POST":
        return redirect("chat-sessions")
    session = Session.objects.create(owner=request.user)
    return redirect("chat-page", session.pk)


@login_required
def chat_page(request, session_id):
    session = _session(request.user, session_id)
    return render(request, "procurement/chat.html", _context(request.user, session))


@login_required
@require_POST
@vary_on_headers("HX-Request")
def chat_message(request, session_id):
    """One turn from the page: throttled like the API's chat (same rate, same count per person),
    checked by the same rules, then the same chat_turn."""
    session = _session(request.user, session_id)
    seen = session.turns.count()
    wait = chat_wait(request)
    form = ChatMessageForm(request.POST, lang=conversation_language(session) or _page_lang())
    status, error = 200, ""
    if wait is not None:
        status, error = 429, gettext("You are sending messages faster than the agent takes them. Wait %(n)d seconds, "
                               "then send this one again.") % {"n": math.ceil(wait)}
    elif not form.is_valid():
        status, error = 400, " ".join(form.errors["text"])
    else:
        try:
            chat_turn(session=session, user=request.user, text=form.cleaned_data["text"])
        except DomainError as exc:
            status, error = exc.http_status, refusal(exc)
    session.refresh_from_db()
    if not request.htmx and not error:
        return redirect("chat-page", session.pk)
    if request.htmx:
        response = render(request, "procurement/chat.html#exchange",
                          _context(request.user, session, new_from=seen) | {"error": error}, status=status)
    else:
        response = render(request, "procurement/chat.html",
                          _context(request.user, session) | {"error": error, "form": form}, status=status)
    if wait is not None:
        response["Retry-After"] = str(math.ceil(wait))
    return response


def _page_lang() -> str:
    """The page's language as the chat's language code ("zh" or "en")."""
    return "zh" if (get_language() or "").startswith("zh") else "en"


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

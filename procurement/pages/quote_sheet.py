"""Quote sheets on the pages: attaching one in the chat, and downloading the exact version a
request read (only for people who may see the request; anyone else gets 404). A file whose
content the retention pass removed answers 410 with a page saying so."""
import io
import math

from django import forms
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, HttpResponseForbidden
from django.shortcuts import redirect, render
from django.utils.translation import get_language, gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers

from agentstate.artifacts.services import ArtifactPruned, artifact_read, artifact_version_of
from agentstate.errors import DomainError, NotFound
from agentstate.models import Session

from procurement.words.phrases import chat_lang
from procurement import selectors
from procurement.api.throttles import chat_wait
from procurement.infra.limits import MAX_CHAT_CHARS
from procurement.chat.attach import chat_attach
from procurement.words import refusal
from procurement.pages.chat import _context, _session
from procurement.pages.tasks import task_context


class AttachForm(forms.Form):
    file = forms.FileField(label=_("Quote sheet (Excel .xlsx or CSV)"), allow_empty_file=True)
    text = forms.CharField(label=_("Message (optional)"), required=False, max_length=MAX_CHAT_CHARS)


@login_required
@require_POST
@vary_on_headers("HX-Request")
def chat_attachment(request, session_id):
    session = _session(request.user, session_id)
    seen = session.turns.count()
    form = AttachForm(request.POST, request.FILES)
    status, error = 200, ""
    wait = chat_wait(request)  # an attachment is a chat turn: the chat's rate and counter
    if wait is not None:
        status, error = 429, gettext("You are sending messages faster than the agent takes them. Wait %(n)d "
                                     "seconds, then send this one again.") % {"n": math.ceil(wait)}
    elif not form.is_valid():
        status, error = 400, " ".join(e for errors in form.errors.values() for e in errors)
    else:
        upload = form.cleaned_data["file"]
        try:
            chat_attach(session=session, user=request.user, content=upload.read(), filename=upload.name,
                        content_type=upload.content_type or "", text=form.cleaned_data["text"], lang=chat_lang())
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


@login_required
@require_POST
def task_quote_sheet(request, task_id):
    """From the request's page: the sheet goes into the request's conversation, where the agent
    asks its questions; the page then opens that conversation."""
    try:
        task = selectors.task_for(request.user, task_id)
    except NotFound:
        raise Http404("No such task.")
    if task.initiator_id != request.user.pk:
        return HttpResponseForbidden(gettext("Only the requester attaches quotes to a request."))
    session = selectors.task_conversations(task).first()
    if session is None:
        session = Session.objects.create(owner=request.user, task=task)
    form = AttachForm(request.POST, request.FILES)
    status, error = 400, ""
    if not form.is_valid():
        error = " ".join(e for errors in form.errors.values() for e in errors)
    else:
        upload = form.cleaned_data["file"]
        try:
            chat_attach(session=session, user=request.user, content=upload.read(), filename=upload.name,
                        content_type=upload.content_type or "", text=form.cleaned_data["text"], lang=chat_lang())
            return redirect("chat-page", session.pk)
        except DomainError as exc:
            status, error = exc.http_status, refusal(exc)
    context = task_context(request.user, selectors.task_timeline(task)) | {"error": error}
    return render(request, "procurement/task.html", context, status=status)


@login_required
@require_GET
def artifact_download(request, task_id, version_id):
    try:
        task = selectors.task_for(request.user, task_id)
        read = ((task.data.get("quote_sheet") or {}).get("file") or {}).get("version_id")
        version = artifact_version_of(task, version_id, referenced=[read] if read else [])
        content = artifact_read(version)
    except NotFound:
        raise Http404("No such file.")
    except ArtifactPruned:
        return render(request, "procurement/file_removed.html", {"task": task, "version": version}, status=410)
    response = FileResponse(io.BytesIO(content), as_attachment=True, filename=version.filename,
                            content_type=version.content_type or "application/octet-stream")
    response["X-Content-SHA256"] = version.sha256
    return response

"""Governed memory pages (DESIGN §8): a filtered list, an entry with its history as a diff and
the tasks that used it; correct, confirm and delete (after a preview of what goes with it).

Reads go through the memory selectors and the registered policy, like the API; writes call
one memory service each. Not readable: 404. Readable but not yours to change: 403."""
import difflib
import re

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import Count, Exists, Max, OuterRef
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.html import escape, format_html
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers

from agentstate.errors import DomainError, NotFound, NotPermitted
from agentstate.memory import policy
from agentstate.memory.deletion import memory_delete, memory_delete_preview
from agentstate.memory.models import MAX_CONTENT, Kind, MemoryEntry, MemoryVersion, Scope
from agentstate.memory.services import memory_confirm, memory_correct
from agentstate.said import say

from procurement.selectors import memory as selectors
from procurement.infra.limits import MAX_REASON_CHARS
from procurement.words import refusal, refusal_errors
from procurement.words import render as render_said
from procurement.pages.memory_forms import CorrectForm, DeleteForm, MemoryFilterForm, VersionForm, first_error

PER_PAGE = 50
MAX_REASON = MAX_REASON_CHARS
MAX_TASKS_SHOWN = 50
FILTERS = ("scope", "subject", "kind", "status")
LISTED_STATUSES = [s for s in MemoryEntry.Status.values if s != MemoryEntry.Status.DELETED]
VStatus = MemoryVersion.Status
ENTRY = "procurement/memory_entry.html"
PREVIEW = f"{ENTRY}#delete-preview"


# -- list ------------------------------------------------------------------------------------

@login_required
@vary_on_headers("HX-Request")
def memory_list(request):
    form = MemoryFilterForm(request.GET)
    valid = form.is_valid()
    chosen = {name: (form.cleaned_data.get(name) or "").strip() if valid else "" for name in FILTERS}
    context = {"chosen": chosen, "scopes": Scope.values, "kinds": Kind.values, "statuses": LISTED_STATUSES}
    status = 200
    if not valid:  # the form's own words, in her language
        status = 400
        context |= {"error": first_error(form), "field_errors": []}
    else:
        try:
            rows = selectors.memory_entries_for(request.user, **chosen).annotate(
                has_pending=Exists(MemoryVersion.objects.filter(entry=OuterRef("pk"), status=VStatus.PENDING)))
            context["page"] = Paginator(rows, PER_PAGE).get_page(form.cleaned_data.get("page"))
        except DomainError as exc:
            status = exc.http_status
            context |= {"error": refusal(exc), "field_errors": _messages(exc)}
    return render(request, _template(request, "procurement/memory_list.html", "results"), context, status=status)


# -- one entry -------------------------------------------------------------------------------

@login_required
@vary_on_headers("HX-Request")
def memory_entry(request, entry_id):
    entry = _entry(request.user, entry_id)
    return render(request, _template(request, ENTRY, "panel"), entry_context(request.user, entry))


@login_required
@require_POST
def memory_correct_view(request, entry_id):
    entry = _entry(request.user, entry_id)
    if selectors.govern_refusal(request.user, entry):
        return _refused(request, entry, NotPermitted(said=selectors.GOVERN_REFUSAL))
    form = CorrectForm(request.POST)
    typed = {"typed_content": form.data.get("content", ""), "typed_reason": form.data.get("reason", "").strip()}
    if not form.is_valid():
        return _answer(request, entry, error=first_error(form), status=400, extra=typed)
    try:
        entry = memory_correct(entry=entry.pk, by=request.user, content=form.cleaned_data["content"],
                               reason=form.cleaned_data["reason"], expected_version=form.cleaned_data["version"])
    except DomainError as exc:
        return _refused(request, entry, exc, extra=typed)
    return _answer(request, entry, notice=_("Corrected: this is now version %(v)d.") % {"v": entry.version})


@login_required
@require_POST
def memory_confirm_view(request, entry_id):
    entry = _entry(request.user, entry_id)
    if selectors.govern_refusal(request.user, entry):
        return _refused(request, entry, NotPermitted(said=selectors.GOVERN_REFUSAL))
    form = VersionForm(request.POST)
    if not form.is_valid():
        return _answer(request, entry, error=first_error(form), status=400)
    try:
        entry = memory_confirm(entry=entry.pk, by=request.user, expected_version=form.cleaned_data["version"])
    except DomainError as exc:
        return _refused(request, entry, exc)
    return _answer(request, entry, notice=_("Confirmed: version %(v)d is in use.") % {"v": entry.version})


@login_required
@require_http_methods(["GET", "POST"])
@vary_on_headers("HX-Request")
def memory_delete_view(request, entry_id):
    """GET: what a deletion would take with it, and the form to confirm. POST: delete."""
    entry = _entry(request.user, entry_id)
    if selectors.govern_refusal(request.user, entry):
        error = _("You may read this entry but not delete it.")
        if request.method == "GET" and request.htmx:
            return render(request, PREVIEW, {"entry": entry, "error": error}, status=403)
        return _answer(request, entry, error=error, status=403)
    if request.method == "GET":
        preview = memory_delete_preview(entry.pk, by=request.user)
        if request.htmx:
            return render(request, PREVIEW, {"entry": entry, "preview": preview})
        return render(request, ENTRY, entry_context(request.user, entry) | {"preview": preview})
    return _delete(request, entry, DeleteForm(request.POST))


def _delete(request, entry, form: DeleteForm):
    if not form.is_valid():
        extra = {"preview": memory_delete_preview(entry.pk, by=request.user),
                 "typed_delete_reason": form.data.get("reason", "").strip()}
        return _answer(request, entry, error=first_error(form), status=400, extra=extra)
    try:
        report = memory_delete(entry=entry.pk, by=request.user, reason=form.cleaned_data["reason"])
    except DomainError as exc:
        return _refused(request, entry, exc)
    entry.refresh_from_db()  # the tombstone: no content left to show
    return render(request, _template(request, ENTRY, "panel"), {"entry": entry, "deleted": report})


def entry_context(user, entry) -> dict:
    rules = policy.current()
    history = list(selectors.memory_history(entry))
    return {
        "entry": entry, "source": _source(user, entry), "may_change": rules.may_confirm(user, entry),
        "pending": _pending(entry, history), "history": _history(history),
        "max_content": MAX_CONTENT, "max_reason": MAX_REASON, **_uses(user, entry),
    }


# -- diffs -----------------------------------------------------------------------------------

# Words and the spaces between them; each CJK character on its own, since Chinese has no spaces.
CJK = "\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef"
TOKENS = re.compile(rf"\s+|[{CJK}]|[^\s{CJK}]+")


def render_diff(old: str, new: str):
    """`new` against `old`, words removed in <del> and added in <ins>; every text escaped."""
    before, after = TOKENS.findall(old or ""), TOKENS.findall(new or "")
    parts = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes():
        if op == "equal":
            parts.append(escape("".join(after[j1:j2])))
            continue
        if op in ("delete", "replace"):
            parts.append(format_html("<del>{}</del>", "".join(before[i1:i2])))
        if op in ("insert", "replace"):
            parts.append(format_html("<ins>{}</ins>", "".join(after[j1:j2])))
    return mark_safe("".join(parts))


def _history(versions: list) -> list[dict]:
    """Newest first, each with its diff against the version it replaced (or was offered on)."""
    chain = sorted((v for v in versions if v.status in (VStatus.CURRENT, VStatus.SUPERSEDED)), key=lambda v: v.version)
    by_number = {v.version: v for v in chain}
    rows = []
    for v in versions:
        if v.status == VStatus.PENDING:
            continue
        base = by_number.get(v.version - 1)
        rows.append({"version": v, "first": base is None and v.status != VStatus.REJECTED,
                     "diff": render_diff(base.content if base else "", v.content)})
    return sorted(rows, key=lambda row: (row["version"].version, row["version"].created_at), reverse=True)


def _pending(entry, versions: list) -> dict | None:
    pending = next((v for v in versions if v.status == VStatus.PENDING), None)
    if pending is not None:
        return {"version": pending, "diff": render_diff(entry.content, pending.content)}
    return None


# -- provenance and uses ---------------------------------------------------------------------

def _source(user, entry) -> dict:
    source = {"kind": entry.source_kind}
    if entry.source_kind == "session" and entry.source_session_id:
        session = entry.source_session
        source["session"] = session
        source["turn"] = entry.source_turn
        if session.owner_id == user.pk and not session.locked:
            source["href"] = reverse("chat-page", args=[session.pk])
        elif user.is_superuser:
            source["href"] = reverse("api:session-detail", args=[session.pk])  # the turns, for admins
    elif entry.source_kind in ("admin", "proposal"):
        source["by"] = entry.created_by
    return source


def _uses(user, entry) -> dict:
    """Tasks that used the entry, newest use first; only those the viewer may see are named."""
    uses = selectors.memory_uses(entry)
    named = ("task_id", "task__state", "task__purchase_request__number")  # REQ-2026-…, not an id
    per_task = list(uses.filter(task__isnull=False).values(*named).annotate(
        times=Count("id"), last=Max("at"), latest_version=Max("entry_version")).order_by("-last"))
    visible = selectors.visible_task_ids(user, [row["task_id"] for row in per_task])
    shown = [row for row in per_task if row["task_id"] in visible]
    return {"used_in": shown[:MAX_TASKS_SHOWN], "used_in_more": max(0, len(shown) - MAX_TASKS_SHOWN),
            "used_elsewhere": len(per_task) - len(shown), "uses_without_task": uses.filter(task__isnull=True).count()}


# -- helpers ---------------------------------------------------------------------------------

def _entry(user, entry_id) -> MemoryEntry:
    try:
        readable = selectors.entry_for(user, entry_id)
    except NotFound:
        raise Http404("No such memory entry.")
    return MemoryEntry.objects.select_related("confirmed_by", "created_by", "source_session__owner",
                                              "source_turn").get(pk=readable.pk)


def _template(request, page: str, partial: str) -> str:
    # A history restore wants the whole page back, not the fragment.
    if request.htmx and not request.htmx.history_restore_request:
        return f"{page}#{partial}"
    return page


def _messages(exc: DomainError) -> list[str]:
    return [message for messages in refusal_errors(exc).values() for message in messages]


def _refused(request, entry, exc: DomainError, extra=None):
    if isinstance(exc, NotFound):
        raise Http404("No such memory entry.")
    # Refused by the policy: she may read the entry, and she is told so, whatever the engine said.
    message = render_said(say("may_only_read_entry")) if isinstance(exc, NotPermitted) else refusal(exc)
    return _answer(request, entry, error=message, field_errors=_messages(exc), status=exc.http_status, extra=extra)


def _answer(request, entry, *, notice="", error="", field_errors=(), status=200, extra=None):
    """htmx gets the refreshed panel; a plain form post is redirected (or shown its error)."""
    if not error and not request.htmx:
        return redirect("memory-entry", entry.pk)
    entry.refresh_from_db()
    context = entry_context(request.user, entry) | {"notice": notice, "error": error,
                                                     "field_errors": list(field_errors)} | (extra or {})
    return render(request, _template(request, ENTRY, "panel"), context, status=status)

"""The request's page: the request as it stands now, what it waits for, its conversations, and
for the requester the forms to answer its open question, change it or cancel it. Admins also
see the engine's internals (transition table, checkpoints) under details."""
from decimal import Decimal

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST
from django.views.decorators.vary import vary_on_headers

from agentstate.errors import DomainError, NotFound, NotPermitted
from agentstate.kinds import get_kind
from agentstate.said import say

from procurement import selectors, workflow
from procurement.purchase import services
from procurement.words.labels import is_agent
from procurement.words.people import remember
from procurement.purchase.requests import named_in, request_now
from procurement.words import refusal, refusal_errors
from procurement.words import render as render_said
from procurement.selectors.grants import watcher_add, watcher_remove, watchers_of
from procurement.pages.receipt_forms import close_form_for, receive_form_for
from procurement.receiving.services import goods_receipt_record, purchase_order_close_short
from procurement.pages.request_forms import CancelForm, ChangeRequestForm, PanelPollForm, WatcherForm, line_formset, line_formset_more
from procurement.pages.travel_context import travel_context

PAGE, PANEL, ACTIONS = "procurement/task.html", "procurement/task.html#panel", "procurement/task.html#actions"


def _task(user, task_id):
    try:
        return selectors.task_timeline(selectors.task_for(user, task_id))
    except NotFound:
        raise Http404("No such task.")


def task_context(user, task, *, change=None, lines=None, watch=None, receive=None, close=None) -> dict:
    kind = get_kind(task.kind)
    now = request_now(task)
    remember([event.actor for event in task.events.all() if not is_agent(event.actor)] + named_in([now]))
    is_requester = selectors.is_requester(user, task)
    can_amend = is_requester and task.state in workflow.AMENDABLE and now.number is not None
    if can_amend and change is None:
        change = ChangeRequestForm(initial={"version": task.version, "justification": now.justification,
                                            "budget": now.budget})
        lines = line_formset(lines=_requested_lines(task))
    events = list(task.events.all())
    return {
        "task": task, "now": now, "erp_requisition": (task.data.get("requisition") or {}).get("id"),
        "events": events, "receipts": list(task.receipts.all()),
        "in_review_for": selectors.why_in_review(task.pk, events) if task.state == workflow.NEEDS_REVIEW else None,
        "approvals": list(task.approvals.all()), "checkpoints": list(task.checkpoints.all()),
        "transitions": kind.transitions,
        "path": workflow.path_steps(task.state, [event.to_state for event in events]),
        "is_requester": is_requester,
        "conversations": _conversations(task) if is_requester else [],
        # Keep polling while anything can still change without the viewer doing something; a
        # half-filled answer form is never swapped away under her (the form sits outside the panel).
        "live": task.state not in workflow.TERMINAL or bool(task.step),
        "can_amend": can_amend, "answering": can_amend and task.state == workflow.AWAITING_INPUT,
        "can_cancel": is_requester and task.state in workflow.CANCELLABLE,
        "change": change, "lines": lines, "cancel": CancelForm(),
        **travel_context(user, task),
        "watchers": watchers_of(task) if is_requester else [], "watch": watch or WatcherForm(),
        "receive": receive or receive_form_for(user, task),
        "close": close or close_form_for(user, task),
        "closed_short": _closed_short(events),
    }


def _closed_short(events) -> dict | None:
    """A request closed short: the budget its close released (NT$), for the page's line."""
    event = next((e for e in reversed(events) if e.event == "close_short"), None)
    if event is None:
        return None
    return {"released": Decimal(str((event.data or {}).get("released") or "0")), "at": event.at}


@login_required
@vary_on_headers("HX-Request")
def task_page(request, task_id):
    """The page; for htmx the live panel (204 while the version it shows is still current, so
    nothing flickers), or the requester's forms, which reload whenever the panel moves on."""
    task = _task(request.user, task_id)
    if not request.htmx:
        return render(request, PAGE, task_context(request.user, task))
    poll = PanelPollForm(request.GET)
    wanted = poll.cleaned_data if poll.is_valid() else {}
    if wanted.get("part") == "actions":
        return render(request, ACTIONS, task_context(request.user, task))
    if wanted.get("seen") == task.version:
        return HttpResponse(status=204)
    response = render(request, PANEL, task_context(request.user, task))
    if wanted.get("seen"):
        response["HX-Trigger"] = "task-moved"
    return response


@login_required
@require_POST
@vary_on_headers("HX-Request")
def task_cancel(request, task_id):
    task = _task(request.user, task_id)
    refused = selectors.change_refusal(request.user, task, cancel=True)
    if refused:
        return _answer(request, task, refusal(NotPermitted(said=refused)), 403)
    form = CancelForm(request.POST)
    if not form.is_valid():
        return _answer(request, task, " ".join(m for ms in form.errors.values() for m in ms), 400)
    try:
        services.request_cancel(task_id=task.pk, user=request.user, reason=form.cleaned_data["reason"])
    except DomainError as exc:
        return _answer(request, task, refusal(exc), exc.http_status)
    return _answer(request, task)


@login_required
@require_POST
@vary_on_headers("HX-Request")
def task_amend(request, task_id):
    """A change, or the answer to the open question: both revise the request and send it back
    through the agent to approval."""
    task = _task(request.user, task_id)
    refused = selectors.change_refusal(request.user, task)
    if refused:
        return _answer(request, task, refusal(NotPermitted(said=refused)), 403)
    if "add_line" in request.POST:  # what she typed kept, and room for more items; nothing is sent
        context = task_context(request.user, selectors.task_timeline(task), lines=line_formset_more(request.POST),
                               change=ChangeRequestForm(initial=request.POST.dict()))
        return render(request, ACTIONS if request.htmx else PAGE, context)
    change, lines = ChangeRequestForm(request.POST), line_formset(request.POST)
    if not (change.is_valid() and lines.is_valid()):
        return _answer(request, task, _("Please correct the marked fields."), 400, change=change, lines=lines)
    revised = _revision(task, change.cleaned_data, lines.lines())
    if not revised:
        change.add_error(None, _("Nothing was sent: write your reply, or change an item, the purpose or the budget "
                                 "cap.") if task.state == workflow.AWAITING_INPUT else
                         _("Nothing was changed: change an item, the purpose or the budget cap."))
        return _answer(request, task, "", 400, change=change, lines=lines)
    try:
        services.request_amend(task_id=task.pk, user=request.user,
                               expected_version=change.cleaned_data["version"], **revised)
    except DomainError as exc:
        return _answer(request, task, refusal(exc), exc.http_status, change=change, lines=lines)
    return _answer(request, task)


@login_required
@require_POST
@vary_on_headers("HX-Request")
def task_watchers(request, task_id):
    """The requester adds a colleague who may read the request (and act on nothing), or removes one."""
    task = _task(request.user, task_id)
    refused = selectors.share_refusal(request.user, task)
    if refused:
        return _answer(request, task, refusal(NotPermitted(said=refused)), 403)
    form = WatcherForm(request.POST)
    if not form.is_valid():
        return _answer(request, task, _("Please correct the marked fields."), 400, watch=form)
    change = watcher_remove if form.cleaned_data["remove"] else watcher_add
    try:
        change(task=task, by=request.user, username=form.cleaned_data["username"])
    except DomainError as exc:
        for message in refusal_errors(exc).get("username", []):
            form.add_error("username", message)
        return _answer(request, task, "" if form.errors else refusal(exc), exc.http_status, watch=form)
    return _answer(request, task)


@login_required
@require_POST
@vary_on_headers("HX-Request")
def task_receive(request, task_id):
    """What arrived, per PO line (驗收): the requester or a member of her department."""
    task = _task(request.user, task_id)
    try:
        selectors.task_to_receive(request.user, str(task_id))
    except DomainError as exc:
        return _answer(request, task, refusal(exc), exc.http_status)
    form = receive_form_for(request.user, task, request.POST)
    if form is None:
        return _answer(request, task, render_said(say("receipt_not_open")), 409)
    if not form.is_valid() or not form.lines():
        if form.is_valid():
            form.add_error(None, render_said(say("receipt_no_lines")))
        return _answer(request, task, render_said(say("receipt_invalid")), 400, receive=form)
    try:
        goods_receipt_record(task_id=task.pk, user=request.user, lines=form.lines(), note=form.cleaned_data["note"])
    except DomainError as exc:
        form.show_refusal(exc)
        return _answer(request, task, refusal(exc), exc.http_status, receive=form)
    return _answer(request, task)


@login_required
@require_POST
@vary_on_headers("HX-Request")
def task_close_short(request, task_id):
    """Close the rest short (the supplier cannot deliver it): a manager of the department or
    accounts payable, with a reason, at the version she saw."""
    task = _task(request.user, task_id)
    try:
        selectors.task_to_close_short(request.user, str(task_id))
    except DomainError as exc:
        return _answer(request, task, refusal(exc), exc.http_status)
    form = close_form_for(request.user, task, request.POST)
    if form is None:
        return _answer(request, task, render_said(say("close_nothing_open")), 409)
    if not form.is_valid():
        return _answer(request, task, _("Please correct the marked fields."), 400, close=form)
    try:
        purchase_order_close_short(task_id=task.pk, user=request.user, reason=form.cleaned_data["reason"],
                                   expected_version=form.cleaned_data["version"])
    except DomainError as exc:
        for message in refusal_errors(exc).get("reason", []):
            form.add_error("reason", message)
        return _answer(request, task, refusal(exc), exc.http_status, close=form)
    return _answer(request, task)


def _revision(task, cleaned: dict, lines: list[dict]) -> dict:
    """Only what differs from the request as it is, so an unchanged field is not rewritten."""
    request = task.purchase_request
    revised = {}
    if lines != _requested_lines_json(task):
        revised["lines"] = lines
    if cleaned["justification"] != request.justification:
        revised["justification"] = cleaned["justification"]
    if cleaned["budget"] is not None and cleaned["budget"] != request.budget:
        revised["budget"] = cleaned["budget"]
    if cleaned.get("answer", "").strip() and task.state == workflow.AWAITING_INPUT:
        revised["answer"] = cleaned["answer"].strip()
    return revised


def _requested_lines(task):
    request = getattr(task, "purchase_request", None)
    return list(request.lines.all()) if request else []


def _requested_lines_json(task) -> list[dict]:
    return [{"description": line.description, "quantity": line.quantity} for line in _requested_lines(task)]


def _conversations(task) -> list:
    return list(selectors.task_conversations(task))


def _answer(request, task, error: str = "", status: int = 200, **forms):
    """htmx gets the requester's forms again (with the error and the input as typed) and the panel
    is told to catch up; a plain post gets the page, or a redirect to it when all went well."""
    if status == 200 and not request.htmx:
        return redirect("task-page", task.pk)
    context = task_context(request.user, selectors.task_timeline(task), **forms) | {"action_error": error}
    response = render(request, ACTIONS if request.htmx else PAGE, context, status=status)
    if request.htmx and status == 200:
        response["HX-Trigger"] = "task-moved"
    return response

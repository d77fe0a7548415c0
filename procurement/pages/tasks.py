"""The task page: state on the transition diagram, timeline, receipts, checkpoints; amend and cancel."""
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from agentstate.errors import DomainError, NotFound
from agentstate.kinds import get_kind

from .. import selectors, services, workflow
from ..requests import request_now
from ..sentences import refusal


def _task(user, task_id):
    try:
        return selectors.task_timeline(services.task_for(user, task_id))
    except NotFound:
        raise Http404("No such task.")


def task_context(user, task) -> dict:
    kind = get_kind(task.kind)
    request = getattr(task, "purchase_request", None)
    return {
        "task": task, "request_lines": list(request.lines.all()) if request else [],
        "now": request_now(task),
        "events": list(task.events.all()), "receipts": list(task.receipts.all()),
        "approvals": list(task.approvals.all()), "checkpoints": list(task.checkpoints.all()),
        "states": kind.states, "transitions": kind.transitions,
        "is_requester": task.initiator_id == user.pk,
        # Keep polling while anything can still change without the viewer doing something.
        "live": task.state not in workflow.TERMINAL or bool(task.step),
        "can_amend": task.state in workflow.AMENDABLE, "can_cancel": task.state in workflow.CANCELLABLE,
    }


@login_required
def task_page(request, task_id):
    task = _task(request.user, task_id)
    template = "procurement/task.html#panel" if request.htmx else "procurement/task.html"
    return render(request, template, task_context(request.user, task))


@login_required
@require_POST
def task_cancel(request, task_id):
    task = _task(request.user, task_id)
    try:
        services.request_cancel(task_id=task.pk, user=request.user)
    except DomainError as exc:
        return _answer(request, task, refusal(exc), exc.http_status)
    return _answer(request, task)


@login_required
@require_POST
def task_amend(request, task_id):
    task = _task(request.user, task_id)
    if not request.POST.get("version", "").isdigit():
        return _answer(request, task, _("Reload: the form did not say which version you amended."), 400)
    try:
        lines = _lines_from(request.POST)
    except ValueError as exc:
        return _answer(request, task, str(exc), 400)
    try:
        services.request_amend(task_id=task.pk, user=request.user, lines=lines,
                               expected_version=int(request.POST["version"]),
                               justification=request.POST.get("justification") or None)
    except DomainError as exc:
        return _answer(request, task, refusal(exc), exc.http_status)
    return _answer(request, task)


def _lines_from(post) -> list[dict]:
    lines = []
    for description, quantity in zip(post.getlist("description"), post.getlist("quantity")):
        if not description.strip():
            continue
        if not quantity.isdigit() or not 1 <= int(quantity) <= 10_000:
            raise ValueError(_("Quantity for “%(item)s” must be a whole number from 1 to 10,000.")
                             % {"item": description.strip()})
        lines.append({"description": description.strip()[:200], "quantity": int(quantity)})
    if not lines:
        raise ValueError(_("A request needs at least one line."))
    return lines


def _answer(request, task, error: str = "", status: int = 200):
    """htmx gets the refreshed panel (with the error, if any); a plain form post gets the page."""
    if not error and not request.htmx:
        return redirect("task-page", task.pk)
    context = task_context(request.user, selectors.task_timeline(task)) | {"error": error}
    template = "procurement/task.html#panel" if request.htmx else "procurement/task.html"
    return render(request, template, context, status=status)

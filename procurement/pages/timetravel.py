"""The request page's checkpoints and the four ways back (DESIGN §13): pause and resume for the
requester (and admins); replay, rewind and fork for admins, each button saying in one sentence what
it will and will not do. A rewind shows its list of effects first and asks to confirm; a replay is
shown beside what happened; a fork links both ways. Each view parses a form, calls one service
(procurement.history.timetravel) and shows the page again, or goes to where the person is now."""
from django import forms
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST

from agentstate.errors import DomainError, NotPermitted, said

from procurement import selectors
from procurement.history import timetravel
from procurement.words import refusal
from procurement.pages.tasks import _task as visible, task_context

PAGE = "procurement/task.html"
MAX_ID = 2**63 - 1


class CheckpointForm(forms.Form):
    checkpoint = forms.IntegerField(min_value=1, max_value=MAX_ID, error_messages={
        "required": _("Pick a checkpoint first."), "invalid": _("Pick a checkpoint first.")})
    reason = forms.CharField(required=False, max_length=500)  # told to the requester


class RewindForm(CheckpointForm):
    confirm = forms.BooleanField(required=False)
    version = forms.IntegerField(required=False, min_value=1, max_value=2**31 - 1)


class ForkForm(CheckpointForm):
    supplier = forms.CharField(required=False, max_length=200)


def _page(request, task, status=200, **extra):
    task = selectors.task_timeline(selectors.task_for(request.user, task.pk))
    return render(request, PAGE, task_context(request.user, task) | extra, status=status)


def _refused(request, task, exc: DomainError, **extra):
    return _page(request, task, exc.http_status, travel_error=refusal(exc), **extra)


def _invalid(request, task, form):
    return _page(request, task, 400, travel_error=" ".join(m for ms in form.errors.values() for m in ms))


def _not_admin() -> NotPermitted:
    return said(NotPermitted(gettext("Only an admin may replay, rewind or fork a request.")))


def _task(request, task_id):
    return visible(request.user, task_id)


def _travel(request, task_id, service, form_class=None, *, admins_only=True, answer=None):
    """Every button of the panel in one shape:
    1. the task as this person may see it (404 otherwise);
    2. replay, rewind and fork are for admins: refused with the reason before the form is read;
    3. the form (400 with what is wrong), whose fields are the service's arguments;
    4. one service; a refusal is shown on the request page with its status, and `answer` turns what
       the service returns into the response (by default, the request page afresh)."""
    task = _task(request, task_id)
    if admins_only and not selectors.may_travel(request.user, task):
        return _refused(request, task, _not_admin())
    form = form_class(request.POST) if form_class else None
    if form is not None and not form.is_valid():
        return _invalid(request, task, form)
    try:
        done = service(user=request.user, task_id=task.pk, **(form.cleaned_data if form else {}))
    except DomainError as exc:
        return _refused(request, task, exc)
    return (answer or _to_task_page)(request, task, done)


def _to_task_page(request, task, done):
    return redirect("task-page", task.pk)


def _replay_shown(request, task, replay):
    return _page(request, task, replay=replay, picked=replay.checkpoint.id)


def _rewind(*, user, task_id, checkpoint, confirm, version, reason=""):
    """Unconfirmed, the list of what a rewind would undo (nothing changes); confirmed, the rewind."""
    if not confirm:
        return timetravel.task_rewind_preview(user=user, task_id=task_id, checkpoint=checkpoint)
    timetravel.task_rewind(user=user, task_id=task_id, checkpoint=checkpoint, expected_version=version,
                           reason=reason)
    return None


def _rewind_shown(request, task, plan):
    if plan is None:
        return _to_task_page(request, task, plan)
    return _page(request, task, rewind_plan=plan, picked=plan.checkpoint.id)


def _to_fork(request, task, fork):
    return redirect("task-page", fork.pk)


@login_required
@require_POST
def task_replay(request, task_id):
    return _travel(request, task_id, timetravel.task_replay, CheckpointForm, answer=_replay_shown)


@login_required
@require_POST
def task_rewind(request, task_id):
    return _travel(request, task_id, _rewind, RewindForm, answer=_rewind_shown)


@login_required
@require_POST
def task_fork(request, task_id):
    return _travel(request, task_id, timetravel.task_fork, ForkForm, answer=_to_fork)


@login_required
@require_POST
def task_pause(request, task_id):
    return _travel(request, task_id, timetravel.task_pause, admins_only=False)


@login_required
@require_POST
def task_resume(request, task_id):
    return _travel(request, task_id, timetravel.task_resume, admins_only=False)

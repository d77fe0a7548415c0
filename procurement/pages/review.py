"""The work queue page (DESIGN §14): tasks in `needs_review` with why each is there and the
receipts in doubt, and the four actions as forms (procurement.history.review). One URL serves the page
and, for htmx, the fragment; cancel shows what it will and will not undo before it runs."""
from django import forms
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import render
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_http_methods
from django.views.decorators.vary import vary_on_headers

from agentstate.errors import DomainError, NotFound, NotPermitted

from procurement.history import review
from procurement import selectors
from procurement.policy import last_step
from procurement.words import refusal

PAGE = "procurement/review.html"
ACTIONS = {"reconcile": review.review_reconcile, "record-outcome": review.review_record_outcome,
           "retry": review.review_retry, "cancel": review.review_cancel}


class ReviewActionForm(forms.Form):
    version = forms.IntegerField(min_value=1, widget=forms.HiddenInput)
    reason = forms.CharField(label=_("Why"), max_length=review.MAX_REASON,
                             widget=forms.Textarea(attrs={"rows": 2}),
                             error_messages={"required": _("Say why: the reason is kept in the request's history.")})
    external_id = forms.CharField(label=_("ERP reference you looked up"), max_length=review.MAX_EXTERNAL_ID,
                                  required=False)
    approver = forms.CharField(label=_("Who decides it"), max_length=150, required=False)

    def __init__(self, *args, action: str = "", **kwargs):
        super().__init__(*args, **kwargs)
        self.action = action
        if action == "record-outcome":
            self.fields["external_id"].required = True
            self.fields["external_id"].error_messages["required"] = _("Enter the ERP reference you looked up.")


@login_required
@vary_on_headers("HX-Request")
def review_queue(request):
    if not selectors.uses_review_queue(request.user):
        raise Http404("No such page.")
    rows = _rows(request.user)
    template = f"{PAGE}#queue" if request.htmx else PAGE
    return render(request, template, {"rows": rows})


@login_required
@require_http_methods(["GET", "POST"])
@vary_on_headers("HX-Request")
def review_action(request, task_id, action):
    """GET (cancel only): the preview. POST: run the action and show the row as it is now."""
    if not selectors.uses_review_queue(request.user) or action not in ACTIONS or (
            request.method == "GET" and action != "cancel"):
        raise Http404("No such action.")
    try:
        task = selectors.review_task_for(user=request.user, task_id=task_id)
    except NotFound:
        raise Http404("No such task.")
    except NotPermitted as exc:
        return _answer(request, task_id, error=refusal(exc), status=403)
    if request.method == "GET":
        return _answer(request, task.pk, preview=review.review_cancel_preview(user=request.user, task_id=task.pk)[1])
    form = ReviewActionForm(request.POST, action=action)
    if not form.is_valid():
        return _answer(request, task.pk, form=form, failed=action, status=400)
    data = form.cleaned_data
    extra = {"external_id": data["external_id"]} if action == "record-outcome" else {}
    if action == "retry" and data["approver"]:
        extra = {"approver": data["approver"]}
    try:
        _task, outcome = ACTIONS[action](user=request.user, task_id=task.pk, expected_version=data["version"],
                                         reason=data["reason"], **extra)
    except NotFound:
        raise Http404("No such task.")
    except DomainError as exc:
        return _answer(request, task.pk, error=refusal(exc), form=form, failed=action, status=exc.http_status)
    return _answer(request, task.pk, notice=outcome)


def _answer(request, task_id, *, status: int = 200, **context):
    """htmx: the task's row as it is now (gone from the queue once it left review), with the
    message; a plain form post: the whole queue with it."""
    rows = _rows(request.user)
    context |= {"rows": rows, "focus": str(task_id)}
    if request.htmx:
        row = next((r for r in rows if str(r.task.pk) == str(task_id)), None)
        return render(request, f"{PAGE}#row", context | {"row": row, "task_id": task_id}, status=status)
    return render(request, PAGE, context, status=status)


def _rows(user):
    """The queue's rows, each stopped at its approval route offering an admin whom to name."""
    rows = selectors.review_rows(selectors.review_tasks_for(user))
    for row in rows:
        row.approvers = last_step.candidates(row.task, chooser=user) if last_step.choosable(row.task, user) else []
    return rows

"""Manager pages: the inbox and the approval page that shows exactly what a click will do."""
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import render
from django.views.decorators.http import require_POST

from agentstate.errors import Conflict, DomainError, NotFound

from .. import selectors, services


@login_required
def inbox(request):
    approvals = list(selectors.approvals_pending_for(request.user))
    return render(request, "procurement/inbox.html", {"approvals": approvals})


@login_required
def approval_page(request, approval_id):
    approval = _approval(request.user, approval_id)
    previous = selectors.previous_scope(approval)
    return render(request, "procurement/approval.html", {
        "approval": approval, "scope": approval.scope, "task": approval.task,
        "comparison": approval.task.data.get("award", {}).get("comparison", []),
        "previous": previous, "changes": selectors.scope_changes(previous and previous["scope"], approval.scope),
    })


@login_required
@require_POST
def decide(request, approval_id):
    approval = _approval(request.user, approval_id)
    context = {"approval": approval}
    status = 200
    try:
        state_version = int(request.POST.get("state_version", ""))
    except ValueError:
        state_version = None
    decision = request.POST.get("decision", "")
    try:
        if state_version is None:
            raise DomainError("The form did not say which version you saw; reload the page.")
        services.approval_decide(approval_id=approval.pk, user=request.user, decision=decision,
                                 state_version=state_version, scope_hash=request.POST.get("scope_hash") or "",
                                 comment=request.POST.get("comment", ""))
        approval.refresh_from_db()
        context["decided"] = approval
    except NotFound:
        raise Http404("No such approval.")
    except DomainError as exc:
        status = exc.http_status
        context |= {"error": str(exc), "stale": isinstance(exc, Conflict),
                    "current_version": exc.extra.get("current_version")}
        if context["stale"]:
            context |= selectors.changes_since(approval)
    template = "procurement/approval.html#decision-result" if request.htmx else "procurement/decision.html"
    return render(request, template, context, status=status)


def _approval(user, approval_id):
    try:
        return selectors.approval_for_decider(user, approval_id)
    except NotFound:
        raise Http404("No such approval.")

"""Manager pages: the inbox (with exports) and the approval page that shows exactly what a click
will do, why it came to this person, and, once decided, who decided what."""
from decimal import Decimal

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers

from agentstate.errors import Conflict, DomainError, NotFound, NotPermitted

from procurement.words import labels
from procurement import selectors
from procurement.purchase import services
from procurement.purchase.budget import budget_outlook
from procurement.words.people import approvers_words, person_label, remember
from procurement.policy.chain import withdrawn
from procurement.policy.deciding import step_decider, step_people
from procurement.policy.rules import amount_words
from procurement.policy.shown import chain_lines
from procurement.purchase.requests import active_stand_ins, request_now
from procurement.words import refusal
from procurement.words.money import ntd
from procurement.pages import inbox as inbox_rows
from procurement.invoicing.exceptions import is_invoice_exception
from procurement.invoicing.selectors import deliveries_by_line
from procurement.invoicing.variance_words import variance_words

DECIDED = ("approved", "rejected", "returned")


@login_required
@require_GET
@vary_on_headers("HX-Request")
def inbox(request):
    form = inbox_rows.InboxFilter(request.GET)
    filters = form.filters()
    approvals = selectors.inbox_approvals(request.user, **filters, first=inbox_rows.COUNT_LIMIT + 1)
    page = inbox_rows.InboxPaginator(approvals, inbox_rows.PER_PAGE).get_page(request.GET.get("page"))
    context = {"form": form, "filters": filters, "page": page, "rows": inbox_rows.rows(page.object_list, request.user),
               "departments": list(selectors.inbox_departments(request.user)),
               "tabs": form.fields["tab"].choices, "count_limit": f"{inbox_rows.COUNT_LIMIT:,}"}
    template = "procurement/inbox.html#rows" if request.htmx else "procurement/inbox.html"
    return render(request, template, context)


@login_required
@require_GET
def inbox_export(request, fmt):
    if fmt not in ("csv", "xlsx"):
        raise Http404("No such format.")
    filters = inbox_rows.InboxFilter(request.GET).filters()
    rows = inbox_rows.rows(selectors.inbox_approvals(request.user, **filters, first=inbox_rows.EXPORT_LIMIT)
                           [:inbox_rows.EXPORT_LIMIT], request.user)
    filename = f"approvals-{filters['tab']}-{timezone.localdate():%Y%m%d}"
    return (inbox_rows.export_csv if fmt == "csv" else inbox_rows.export_xlsx)(rows, filename)


@login_required
@require_GET
def approval_page(request, approval_id):
    approval = _approval(request.user, approval_id)
    return render(request, "procurement/approval.html", approval_context(request.user, approval))


def approval_context(user, approval) -> dict:
    """Everything the approval page shows. Safe for every status and for a task between an
    amendment and its re-award (no award, no requisition): it reads the approval's own scope."""
    task = approval.task
    remember((approval.rule or {}).get("usernames", []))
    purchase = getattr(task, "purchase_request", None)
    previous = selectors.previous_scope(approval)
    reason = selectors.approval_route_reason(approval, selectors.manager_limits([approval]))
    award = task.data.get("award") or {}
    same_award = award.get("total") == approval.scope.get("total") and award.get("supplier") == (
        approval.scope.get("supplier") or {}).get("name")
    return {
        "approval": approval, "scope": approval.scope, "task": task, "purchase": purchase,
        "department_name": (labels.department_label(purchase.department) if purchase
                            else approval.scope.get("department")),
        "reason": reason, "reason_words": inbox_rows.route_words(reason),
        **relatives_context(approval),
        "requester_prices": requester_price_lines(approval.scope),
        "routed_to": routed_to_words(approval),
        "over_cap": bool(purchase and purchase.budget is not None
                         and Decimal(approval.scope.get("total") or 0) > purchase.budget),
        "comparison": award.get("comparison", []) if same_award else [],
        "previous": previous,
        "changes": selectors.scope_changes(previous and previous["scope"], approval.scope),
        "said": selectors.said_since(approval, previous["state_version"] if previous else 0,
                                     purpose=previous is not None),
        "decided": approval if approval.status in DECIDED else None,
        "state_now": state_now(approval) if approval.status in DECIDED else "",
        "withdrawn": withdrawn(approval),
        "po_number": (task.data.get("purchase_order") or {}).get("id", ""),
        "current_approval": None if approval.status == "pending" else selectors.current_approval(approval),
        "may_decide": selectors.on_route(user, approval),
        "form": DecisionForm(),
        "outlook": budget_outlook(department_code=task.tenant, task_id=task.pk,
                                  amount=Decimal(approval.scope["total"]))
        if approval.status == "pending" and not is_invoice_exception(approval) else None,
    } | chain_context(user, approval) | invoice_exception_context(approval)


def state_now(approval) -> str:
    """Where the request stands now, in the words its own page uses: 「部分到貨（2/3）」 after the PO,
    not the bare state 「已下單」 (RequestNow.state_label)."""
    return request_now(approval.task).state_label


def routed_to_words(approval) -> str:
    """Whom the approval was routed to, named as every page names waiting approvers: while it
    waits, with whoever stands in for them today (never the requester)."""
    people = (approval.rule or {}).get("usernames", [])
    requester = approval.task.initiator.get_username()
    stand_ins = (tuple(pair for pair in active_stand_ins(people) if pair[1] != requester)
                 if approval.status == "pending" else ())
    return approvers_words(people, stand_ins)


def invoice_exception_context(approval) -> dict:
    """An invoice's match exception: the variance in plain words, in the reader's language."""
    if not is_invoice_exception(approval):
        return {"invoice_exception": False}
    return {"invoice_exception": True,
            "variance_lines": [variance_words(v) for v in approval.scope.get("exceptions", [])],
            "deliveries": deliveries_by_line(approval.task)}


def relatives_context(approval) -> dict:
    """The other open requests of its fork family, while this approval waits (selectors.forks)."""
    relatives = selectors.live_relatives(approval.task) if approval.status == "pending" else []
    return {"relatives": relatives, "relatives_cancellable": all(r.cancellable for r in relatives)}


def requester_price_lines(scope: dict) -> list[dict]:
    """Each price the requester gave that won the award, in words, and whether it is past the
    sheet's tolerance (procurement.purchase.given)."""
    lines = []
    for given in scope.get("requester_prices", []):
        parts = {"item": given["description"], "price": ntd(Decimal(given["unit_price"])),
                 "who": person_label(given["given_by"]), "was": ntd(Decimal(given["sheet_unit_price"]))}
        said = (_("%(item)s: %(price)s a unit, changed by %(who)s from the quote sheet's %(was)s.") % parts
                if given["how"] == "changed" else
                _("%(item)s: %(price)s a unit, from %(who)s's own quote sheet.") % parts)
        if given.get("median"):
            difference = Decimal(given["difference"])
            said += " " + _("The catalogue median is %(median)s: %(sign)s%(difference)s (%(sign)s%(percent)d%%).") % {
                "median": ntd(Decimal(given["median"])), "sign": "+" if difference >= 0 else "−",
                "difference": ntd(abs(difference)), "percent": abs(given["percent"])}
        else:
            said += " " + _("The catalogue has no price for it to compare.")
        lines.append({"words": said, "past_tolerance": given.get("past_tolerance", False)})
    return lines


def chain_context(user, approval) -> dict:
    """The chain block (procurement/_approval_chain.html): the frozen policy version and rule, each
    step, and for a delegate whom their click stands in for."""
    rule = approval.rule or {}
    acting_for = ""
    if approval.chain and approval.status == "pending" and user.pk not in step_people(approval):
        refusal, behalf = step_decider(user, approval)
        if not refusal and behalf:
            acting_for = person_label(get_user_model().objects.filter(pk=behalf).first())
    amounts = rule.get("policy_amounts")
    # The rule in words (its department and amounts), not its name: admins name rules in one language.
    words = (f"{_department_words(approval, rule.get('department', ''))} · {amount_words(amounts)}" if amounts else "")
    current = approval.chain[approval.step] if approval.chain and approval.status == "pending" else {}
    # The requester standing in for someone on her own request's chain is no stand-in for it.
    requester = approval.task.initiator.get_username()
    stand_ins = tuple(pair for pair in active_stand_ins(current.get("usernames", [])) if pair[1] != requester)
    # Someone who approved an earlier step of a chain still pending reads that, not "not routed to you".
    mine = (next((d for d in approval.decisions.all() if user.pk in (d.decided_by_id, d.on_behalf_of_id)), None)
            if approval.chain and approval.status == "pending" else None)
    chain = chain_lines(approval, stand_ins)
    # A step before the last orders nothing: the page says so before the click, and who comes next.
    later = chain[approval.step + 1:] if approval.chain and approval.status == "pending" else []
    return {"chain": chain, "policy_version": rule.get("policy_version"),
            "policy_rule": words, "acting_for": acting_for,
            "my_step": {"number": mine.step + 1, "at": mine.at} if mine is not None else None,
            "next_step": {"number": approval.step + 1, "of": len(chain), "who": later[0]["who"]} if later else None}


def _department_words(approval, code: str) -> str:
    """The rule's department by name (工程部), from the request when it is the same department."""
    department = getattr(getattr(approval.task, "purchase_request", None), "department", None)
    if department is not None and department.code == code:
        return labels.department_label(department)
    return labels.department_code_label(code)


class DecisionForm(forms.Form):
    decision = forms.ChoiceField(choices=[("approve", gettext_lazy("Approve")), ("reject", gettext_lazy("Reject")),
                                          ("return", gettext_lazy("Return for revision"))])
    state_version = forms.IntegerField(min_value=1, error_messages={
        "invalid": gettext_lazy("The form did not say which version you saw; reload the page."),
        "required": gettext_lazy("The form did not say which version you saw; reload the page.")})
    scope_hash = forms.CharField(required=False, max_length=64)
    comment = forms.CharField(required=False, max_length=2000, widget=forms.Textarea(attrs={"rows": 2}))
    other_request = forms.ChoiceField(required=False, choices=[("", ""), ("cancel", ""), ("keep", "")])

    def clean(self):
        data = super().clean()
        if data.get("decision") == "reject" and not data.get("comment", "").strip():
            self.add_error("comment", _("A comment is required to reject: say why."))
        if data.get("decision") == "return" and not data.get("comment", "").strip():
            self.add_error("comment", _("A comment is required to return it: say what should change."))
        return data

    def messages(self) -> list[str]:
        return [message for errors in self.errors.values() for message in errors]


@login_required
@require_POST
@vary_on_headers("HX-Request")
def decide(request, approval_id):
    approval = _approval(request.user, approval_id)
    form = DecisionForm(request.POST)
    context, status = {"approval": approval, "may_decide": True, **relatives_context(approval),
                       **invoice_exception_context(approval)}, 200
    refused = selectors.decide_refusal(request.user, approval)
    if refused:
        context |= {"error": refusal(NotPermitted(said=refused)), "may_decide": False}
        status = 403
    elif not form.is_valid():
        context |= {"error": " ".join(form.messages())}
        status = 400
    else:
        try:
            data = form.cleaned_data
            services.approval_decide(approval_id=approval.pk, user=request.user, decision=data["decision"],
                                     state_version=data["state_version"], scope_hash=data["scope_hash"],
                                     comment=data["comment"], other_request=data["other_request"])
            approval = selectors.approval_for_decider(request.user, approval.pk)
            if approval.status == "pending":  # one step of a longer chain
                context |= {"approval": approval, "step_recorded": True, "may_decide": False} | chain_context(
                    request.user, approval)
            else:
                context |= {"approval": approval, "decided": approval, "just_decided": True,
                            "state_now": state_now(approval)} | chain_context(request.user, approval)
        except NotFound:
            raise Http404("No such approval.")
        except DomainError as exc:
            status = exc.http_status
            context |= {"error": refusal(exc), "stale": isinstance(exc, Conflict),
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

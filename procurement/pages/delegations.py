"""The delegation page (代理人): name who decides for you while you are away, for a range of
dates; see and end your delegations, and those naming you."""
from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_http_methods, require_POST

from agentstate.errors import DomainError, NotFound

from procurement.words import refusal_errors
from procurement.words.people import person_label
from procurement.policy.delegation import delegation_create, delegation_delete, delegation_errors, delegations_of
from procurement.selectors.roles import approvers, uses_delegations


# A date input reads and writes ISO dates whatever the page's language ("2026-11-30", not 2026年11月30日).
ISO_DATE = forms.DateInput(format="%Y-%m-%d", attrs={"type": "date"})


class DelegationForm(forms.Form):
    delegate = forms.ModelChoiceField(label=_("Who decides for you"), to_field_name="username",
                                      queryset=get_user_model().objects.none(),
                                      empty_label=_("Choose a person"))
    starts = forms.DateField(label=_("From (first day)"), widget=ISO_DATE)
    ends = forms.DateField(label=_("Until (last day, inclusive)"), widget=ISO_DATE)

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user
        field = self.fields["delegate"]
        field.queryset = get_user_model().objects.filter(is_active=True).order_by("username")
        # Offered: the approvers other than oneself (only they could decide one's approvals). Anyone
        # active stays a valid value, so that posting oneself or a requester is answered with the reason
        # (delegation_errors), not a bare "invalid choice".
        # Each by the name people know them by (「Dave Huang」), not their user name.
        offered = approvers().exclude(pk=user.pk).order_by("username")
        field.widget.choices = [("", field.empty_label)] + [(person.username, person_label(person))
                                                            for person in offered]

    def clean(self):
        data = super().clean()
        errors = delegation_errors(delegator=self.user, delegate=data.get("delegate"), starts=data.get("starts"),
                                   ends=data.get("ends"))
        for field, messages in errors.items():
            for message in messages:
                self.add_error(field, message)
        return data


@login_required
@require_http_methods(["GET", "POST"])
def delegations_page(request):
    if not uses_delegations(request.user):
        raise Http404("No such page.")
    today = timezone.localdate()
    form = DelegationForm(request.POST or None, user=request.user, initial={"starts": today, "ends": today})
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                delegation_create(delegator=request.user, delegate_username=form.cleaned_data["delegate"].username,
                                  starts=form.cleaned_data["starts"], ends=form.cleaned_data["ends"])
                return redirect("delegations")
            except DomainError as exc:
                for field, messages in refusal_errors(exc).items():
                    for message in messages:
                        form.add_error(field if field in form.fields else None, message)
        status = 400
    rows = list(delegations_of(request.user))
    return render(request, "procurement/delegations.html", {
        "form": form, "today": today, "mine": [d for d in rows if d.delegator_id == request.user.pk],
        "for_others": [d for d in rows if d.delegate_id == request.user.pk]}, status=status)


@login_required
@require_POST
def delegation_end(request, delegation_id):
    try:
        delegation_delete(user=request.user, delegation_id=delegation_id)
    except NotFound:
        raise Http404("No such delegation.")
    return redirect("delegations")

"""Django forms for a requester's own request: a new one from her home, a change or an answer
on its page, a cancel. They check the input's shape; the services decide what may happen."""
from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from procurement.words import labels
from procurement.infra.limits import (MAX_DESCRIPTION_CHARS, MAX_JUSTIFICATION_CHARS, MAX_LINES, MAX_QUANTITY, MAX_REASON_CHARS,
                      MAX_SPEC_CHARS, MONEY_DECIMAL_PLACES, MONEY_MAX_DIGITS)
from procurement.models import Department
from procurement.purchase.requests import ALL, FINISHED, OPEN

MAX_VERSION = 2**31 - 1
BLANK_LINES = 2  # empty rows offered for more items


class WatcherForm(forms.Form):
    """A colleague the requester lets read her request (or no longer)."""

    username = forms.CharField(label=_("Colleague's user name"), max_length=150)
    remove = forms.BooleanField(required=False, widget=forms.HiddenInput)


class LineForm(forms.Form):
    """One item. A row left (or made) blank is no line at all: that is how an item is removed."""

    description = forms.CharField(label=_("Item"), required=False, max_length=MAX_DESCRIPTION_CHARS)
    quantity = forms.IntegerField(label=_("Quantity"), required=False, min_value=1, max_value=MAX_QUANTITY)

    def clean(self):
        data = super().clean()
        if data.get("description", "").strip() and data.get("quantity") is None and "quantity" not in self.errors:
            self.add_error("quantity", _("How many? Enter a whole number from 1 to %(max)s.") % {"max": MAX_QUANTITY})
        return data

    def line(self) -> dict | None:
        description = labels.item_of_label(self.cleaned_data.get("description") or "")
        return {"description": description, "quantity": self.cleaned_data["quantity"]} if description else None


class BaseLineFormSet(forms.BaseFormSet):
    def clean(self):
        if any(self.errors):
            return
        if not self.lines():
            raise forms.ValidationError(_("A request needs at least one item."))

    def lines(self) -> list[dict]:
        return [line for form in self.forms if (line := form.line()) is not None]


LineFormSet = forms.formset_factory(LineForm, formset=BaseLineFormSet, extra=BLANK_LINES, max_num=MAX_LINES,
                                    validate_max=True, absolute_max=MAX_LINES + BLANK_LINES)


class NewLineForm(LineForm):
    """An item of a new request, with its spec if she gives one (「27 吋 4K」)."""

    spec = forms.CharField(label=_("Spec (optional)"), required=False, max_length=MAX_SPEC_CHARS)


class BaseNewLineFormSet(BaseLineFormSet):
    def notes(self) -> list[str]:
        """The specs as the chat keeps them: the request's notes, which the PO and the supplier read.
        With more than one item, each spec says which item it is for (「螢幕：27 吋」)."""
        rows = [(form.cleaned_data.get("description", "").strip(), (form.cleaned_data.get("spec") or "").strip())
                for form in self.forms if form.line() is not None]
        return [spec if len(rows) == 1 else f"{item}：{spec}" for item, spec in rows if spec]


NewLineFormSet = forms.formset_factory(NewLineForm, formset=BaseNewLineFormSet, extra=BLANK_LINES, max_num=MAX_LINES,
                                       validate_max=True, absolute_max=MAX_LINES + BLANK_LINES)


def line_formset(data=None, lines=()) -> BaseLineFormSet:
    # Shown in the reader's language (「USB-C 擴充座」); LineForm.line() reads it back as the item.
    initial = [{"description": labels.item_label(line.description), "quantity": line.quantity} for line in lines]
    return LineFormSet(data, initial=initial or None, prefix="lines")


def new_line_formset(data=None) -> BaseNewLineFormSet:
    return NewLineFormSet(data, prefix="lines")


def line_formset_more(data, new=False) -> BaseLineFormSet:
    """"Add an item", without JavaScript: the rows she typed, not checked yet, with blank rows after them.
    `new`: the new-request form's rows, which carry a spec."""
    try:
        typed = min(int(data.get("lines-TOTAL_FORMS") or 0), MAX_LINES)
    except ValueError:
        typed = 0
    names = ("description", "quantity", "spec") if new else ("description", "quantity")
    rows = [{name: data.get(f"lines-{n}-{name}", "") for name in names} for n in range(typed)]
    return (NewLineFormSet if new else LineFormSet)(initial=[row for row in rows if any(row.values())] or None,
                                                     prefix="lines")


def budget_field():
    return forms.DecimalField(label=_("Budget cap, incl. tax (optional)"), required=False, min_value=1,
                              max_digits=MONEY_MAX_DIGITS, decimal_places=MONEY_DECIMAL_PLACES,
                              help_text=_("The most you want to spend, in NT$ including 5% tax."))


def purpose_field():
    return forms.CharField(label=_("Purpose"), max_length=MAX_JUSTIFICATION_CHARS, widget=forms.Textarea(attrs={"rows": 3}),
                           help_text=_("Why it is needed: the approver reads this."),
                           error_messages={"required": _("Say what it is for: the approver reads this.")})


class NewRequestForm(forms.Form):
    """A request without the chat: department, items, purpose, optional cap and need-by date."""

    department = forms.ChoiceField(label=_("Department"))
    justification = purpose_field()
    budget = budget_field()
    needed_by = forms.DateField(label=_("Needed by (optional)"), required=False,
                                widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
                                help_text=_("If nothing is received by then, you are asked once whether it arrived."),
                                error_messages={"invalid": _("Enter a date, for example 2026-03-31.")})

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        departments = list(Department.objects.filter(memberships__user=user).distinct().order_by("code"))
        self.fields["department"].choices = [(dept.code, labels.department_with_code(dept))
                                             for dept in departments]
        if len(departments) == 1:
            self.fields["department"].initial = departments[0].code
        self.fields["needed_by"].widget.attrs["min"] = timezone.localdate().isoformat()

    def clean_needed_by(self):
        day = self.cleaned_data.get("needed_by")
        if day is not None and day < timezone.localdate():
            raise forms.ValidationError(_("That day has passed: give today or a later day, or leave it empty."))
        return day


class ChangeRequestForm(forms.Form):
    """A change to the request, or an answer to its open question: the lines come in a formset."""

    version = forms.IntegerField(widget=forms.HiddenInput, min_value=1, max_value=MAX_VERSION, error_messages={
        "required": _("Reload the page: the form did not say which version you changed.")})
    justification = purpose_field()
    budget = budget_field()
    answer = forms.CharField(label=_("Your reply"), required=False, max_length=MAX_JUSTIFICATION_CHARS,
                             widget=forms.Textarea(attrs={"rows": 3}),
                             help_text=_("Answer the question in your own words; the approver reads it with the "
                                         "request. Change the items, purpose or budget below only if the answer "
                                         "calls for it."))


class CancelForm(forms.Form):
    reason = forms.CharField(label=_("Why (optional)"), required=False, max_length=MAX_REASON_CHARS)


class HomeFilterForm(forms.Form):
    show = forms.ChoiceField(choices=[(OPEN, OPEN), (FINISHED, FINISHED), (ALL, ALL)], required=False)
    page = forms.IntegerField(required=False, min_value=1, max_value=MAX_VERSION)


class PanelPollForm(forms.Form):
    """A poll from the request's page: the version it shows, and which part it wants."""

    seen = forms.IntegerField(required=False, min_value=1, max_value=MAX_VERSION)
    part = forms.ChoiceField(choices=[("panel", "panel"), ("actions", "actions")], required=False)

"""The request page's 驗收 form (its view is pages.tasks.task_receive): per PO line accepted, rejected
and why, and a note; and its close-short form (pages.tasks.task_close_short). The forms check the
input's shape; goods_receipt_record and purchase_order_close_short decide what may be done."""
from django import forms
from django.utils.translation import gettext_lazy

from agentstate.errors import DomainError

from procurement import selectors, workflow
from procurement.models.receiving import RejectReason
from procurement.purchase.progress import progress_of
from procurement.words import refusal_errors
from procurement.receiving.services import close_short_outlook

LIMIT = 10000


class ReceiveForm(forms.Form):
    """One row per PO line still to settle: `accepted_<n>`, `rejected_<n>`, `reason_<n>`; and `note`."""

    note = forms.CharField(label=gettext_lazy("Note"), required=False, max_length=2000, widget=forms.Textarea(
        attrs={"rows": 2}))

    def __init__(self, *args, progress, **kwargs):
        super().__init__(*args, **kwargs)
        self.progress = progress
        reasons = [("", "—"), *RejectReason.choices]
        for line in progress.lines:
            n = line.line
            self.fields[f"accepted_{n}"] = forms.IntegerField(
                label=gettext_lazy("Accepted"), required=False, min_value=-LIMIT, max_value=LIMIT)
            self.fields[f"rejected_{n}"] = forms.IntegerField(
                label=gettext_lazy("Rejected"), required=False, min_value=0, max_value=LIMIT)
            self.fields[f"reason_{n}"] = forms.ChoiceField(label=gettext_lazy("Why"), required=False, choices=reasons)

    def rows(self):
        return [(line, self[f"accepted_{line.line}"], self[f"rejected_{line.line}"], self[f"reason_{line.line}"])
                for line in self.progress.lines]

    def lines(self) -> list[dict]:
        data, found = self.cleaned_data, []
        for line in self.progress.lines:
            n = line.line
            accepted, rejected = data.get(f"accepted_{n}") or 0, data.get(f"rejected_{n}") or 0
            if accepted or rejected:
                found.append({"line": n, "accepted": accepted, "rejected": rejected, "reason": data.get(f"reason_{n}")})
        return found

    def show_refusal(self, exc: DomainError) -> None:
        """Field errors from the service ("lines.0.accepted") on the row they concern."""
        lines = self.lines()
        for key, messages in refusal_errors(exc).items():
            parts = key.split(".")
            name = f"{parts[2]}_{lines[int(parts[1])]['line']}" if len(parts) == 3 and parts[1].isdigit() else None
            for message in messages:
                self.add_error(name if name in self.fields else None, message)


def receive_form_for(user, task, data=None) -> ReceiveForm | None:
    """The form, for who may receive on a task waiting for its goods; None otherwise."""
    if task.state != workflow.CONFIRMED or not selectors.may_receive(user, task):
        return None
    return ReceiveForm(data, progress=progress_of(task))


class CloseShortForm(forms.Form):
    """Close the rest of the order short (the supplier cannot deliver it): why, and the version the
    person saw, so a request that moved since is refused (purchase_order_close_short decides)."""

    version = forms.IntegerField(min_value=1, max_value=2**31 - 1, widget=forms.HiddenInput)
    reason = forms.CharField(label=gettext_lazy("Why the rest will not be delivered"), max_length=500,
                             error_messages={"required": gettext_lazy("Say why the rest is closed.")},
                             widget=forms.TextInput(attrs={"autocomplete": "off"}))

    def __init__(self, *args, outlook, **kwargs):
        super().__init__(*args, **kwargs)
        self.open_lines, self.released = outlook


def close_form_for(user, task, data=None) -> CloseShortForm | None:
    """The form, for a manager of the department or accounts payable (selectors.may_close_short, the
    API's rule) on a request with something still to deliver; None otherwise."""
    if task.state != workflow.CONFIRMED or not selectors.may_close_short(user, task):
        return None
    outlook = close_short_outlook(task)
    if not outlook[0]:
        return None
    return CloseShortForm(data, outlook=outlook, initial={"version": task.version})

"""Django forms for the memory pages: what the list's filters and the entry's correct, confirm
and delete buttons may carry. Domain rules (content limits, who may) stay in the services."""
from django import forms
from django.utils.translation import gettext_lazy as _

from procurement.infra.limits import MAX_REASON_CHARS

MAX_VERSION = 2**31 - 1


class MemoryFilterForm(forms.Form):
    """The list's filters; unknown values are the selector's to refuse, with the choices."""

    scope = forms.CharField(required=False, max_length=20)
    subject = forms.CharField(required=False, max_length=150)
    kind = forms.CharField(required=False, max_length=20)
    status = forms.CharField(required=False, max_length=20)
    page = forms.IntegerField(required=False, min_value=1, max_value=MAX_VERSION)


class VersionForm(forms.Form):
    """The version the person saw: a click on an entry changed since is refused (409)."""

    version = forms.IntegerField(required=False, min_value=1, max_value=MAX_VERSION)


class CorrectForm(VersionForm):
    content = forms.CharField(required=False, strip=False)
    reason = forms.CharField(max_length=MAX_REASON_CHARS, error_messages={
        "required": _("Say why you are correcting it: the reason is kept in the history."),
        "max_length": _("Keep the reason under %(limit_value)d characters.")})


class DeleteForm(forms.Form):
    reason = forms.CharField(max_length=MAX_REASON_CHARS, error_messages={
        "required": _("Say why it is deleted: the reason stays on the tombstone."),
        "max_length": _("Keep the reason under %(limit_value)d characters.")})


def first_error(form: forms.Form) -> str:
    return next(str(message) for messages in form.errors.values() for message in messages)

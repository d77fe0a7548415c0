"""Input checks shared by every write: all problems at once, as field messages, nothing stored."""
from django.utils import timezone

from ..errors import DomainError
from . import policy
from .models import MAX_CONTENT, Kind, Scope, Sensitivity


def _choice(errors, field, value, choices):
    if value not in choices.values:
        errors[field] = [f"Unknown {field} {value!r}; choose one of: {', '.join(choices.values)}."]


def check_content(errors: dict, content) -> str:
    text = (content or "").strip() if isinstance(content, str) else ""
    if not text:
        errors["content"] = ["Content is required."]
    elif len(text) > MAX_CONTENT:
        errors["content"] = [f"Content is {len(text)} characters; the limit is {MAX_CONTENT}."]
    return text


def check_validity(errors: dict, valid_from, valid_until, *, now=None):
    now = now or timezone.now()
    if valid_until is None:
        return
    if valid_until <= (valid_from or now):
        errors["valid_until"] = ["valid_until must be after valid_from."]
    elif valid_until <= now:
        errors["valid_until"] = ["valid_until is already past: the entry would never be used."]


def raise_if(errors: dict, message: str = "Invalid memory entry."):
    if errors:
        raise DomainError(message, errors=errors)


def check_new_entry(*, scope, subject, kind, content, sensitivity, valid_from, valid_until) -> str:
    """Checks the shape of a new entry (the subject's existence is checked after permission,
    so that a refusal does not reveal which usernames exist). Returns the cleaned content."""
    errors = {}
    _choice(errors, "scope", scope, Scope)
    _choice(errors, "kind", kind, Kind)
    _choice(errors, "sensitivity", sensitivity, Sensitivity)
    if not isinstance(subject, str) or len(subject) > 150:
        errors["subject"] = ["Subject must be a username, a department code, or blank for the organisation."]
    text = check_content(errors, content)
    check_validity(errors, valid_from, valid_until)
    raise_if(errors)
    return text


def check_subject(scope, subject):
    if not policy.current().subject_exists(scope, subject):
        what = {"user": "user", "department": "department"}.get(scope)
        message = (f"No {what} {subject!r}." if what else "The organisation scope takes a blank subject.")
        raise DomainError(message, errors={"subject": [message]})

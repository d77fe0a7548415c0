"""`{{ task.state|state_label }}` and friends: codes shown as words (procurement.labels)."""
from django import template

from procurement import labels

register = template.Library()


@register.filter
def state_label(state) -> str:
    return labels.label(labels.STATE_LABELS, state)


@register.filter
def state_meaning(state) -> str:
    return labels.label(labels.STATE_MEANINGS, state)


@register.filter
def receipt_label(status) -> str:
    return labels.label(labels.RECEIPT_LABELS, status)


@register.filter
def approval_label(status) -> str:
    return labels.label(labels.APPROVAL_LABELS, status)


@register.filter
def operation_label(operation) -> str:
    return labels.label(labels.OPERATION_LABELS, operation)

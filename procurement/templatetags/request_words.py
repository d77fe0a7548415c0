"""`{{ now.waiting_on|waiting_text:user }}`: what a request waits for, in words for that reader."""
from django import template

register = template.Library()


@register.filter
def waiting_text(waiting_on, viewer=None) -> str:
    return waiting_on.text(viewer) if waiting_on else ""

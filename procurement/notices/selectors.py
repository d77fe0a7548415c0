"""Reads of a person's notices: their own only, newest first."""
from ..models import Notice


def notices_for(user):
    return Notice.objects.filter(recipient=user).order_by("-created_at", "-id")


def notices_unread_count(user) -> int:
    if not user.is_authenticated:
        return 0
    return Notice.objects.filter(recipient=user, read_at__isnull=True).count()

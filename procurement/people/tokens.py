"""API tokens that expire and can be revoked (DESIGN §15). One token per person (DRF's Token);
it stops working API_TOKEN_TTL_HOURS after it was made."""
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from rest_framework.authtoken.models import Token


def token_expires_at(token: Token) -> datetime:
    return token.created + timedelta(hours=settings.API_TOKEN_TTL_HOURS)


def token_expired(token: Token) -> bool:
    return timezone.now() >= token_expires_at(token)


def token_issue(*, user) -> Token:
    """A fresh token for `user`; any earlier one stops working."""
    with transaction.atomic():
        Token.objects.filter(user=user).delete()
        return Token.objects.create(user=user)


def tokens_revoke(*, user) -> int:
    """Every token of `user` stops working now; how many there were."""
    deleted, _ = Token.objects.filter(user=user).delete()
    return deleted

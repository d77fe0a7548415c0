"""API tokens that expire and can be revoked (DESIGN §15), with django-rest-knox: a person holds one
per client, each named; signing in from one client leaves the others working. Each stops working
API_TOKEN_TTL_HOURS after it was made."""
from datetime import datetime

from procurement.models import ApiToken


def token_expires_at(token: ApiToken) -> datetime:
    return token.expiry


def token_issue(*, user, name: str = "") -> tuple[ApiToken, str]:
    """A new token for `user`'s client `name`: the row, and the key (shown this once, kept only as
    a digest). Their other tokens keep working."""
    return ApiToken.objects.create(user=user, name=name[:100])


def token_revoke(*, token: ApiToken) -> None:
    """This token stops working now."""
    ApiToken.objects.filter(pk=token.pk).delete()


def tokens_revoke(*, user) -> int:
    """Every token of `user` stops working now; how many there were."""
    deleted, _ = ApiToken.objects.filter(user=user).delete()
    return deleted

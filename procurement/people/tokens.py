"""API tokens that expire and can be revoked (DESIGN §15), with django-rest-knox: a person holds one
per client, each named; signing in from one client leaves the others working. Each stops working
API_TOKEN_TTL_HOURS after it was made. A person sees her own tokens that still work and revokes
any of them; each is known by its token_key (the key's first characters, kept in the clear by
knox to find the row), never by its digest."""
import re
from datetime import datetime

from django.db.models import Q, QuerySet
from django.utils import timezone

from agentstate.errors import NotFound
from agentstate.said import say

from procurement.models import ApiToken

# What a token_key looks like (knox: TOKEN_PREFIX, empty here, and 15 hex digits of the key).
TOKEN_ID = re.compile(r"[0-9a-f]{15}")


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


def tokens_of(user) -> QuerySet[ApiToken]:
    """`user`'s tokens that still work, the newest first."""
    live = Q(expiry__isnull=True) | Q(expiry__gt=timezone.now())
    return ApiToken.objects.filter(live, user=user).order_by("-created", "token_key")


def token_revoke_own(*, user, token_id: str) -> None:
    """`user`'s token known as `token_id` (its token_key) stops working now. Someone else's token,
    one past its expiry or an unknown id are all answered alike (NotFound), so ids cannot be probed."""
    rows = tokens_of(user).filter(token_key=token_id) if TOKEN_ID.fullmatch(token_id or "") else ApiToken.objects.none()
    if not rows.delete()[0]:
        raise NotFound(said=say("no_such_token"))

"""API authentication: a person's tokens, one per client (django-rest-knox, `Authorization: Token
<key>`); one past its expiry is refused with words that say so. Kept apart from views: DRF imports
it while it builds its own views."""
from hmac import compare_digest

from django.utils import timezone
from django.utils.translation import gettext as _
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.plumbing import build_bearer_security_scheme_object
from knox.auth import TokenAuthentication
from knox.crypto import hash_token
from knox.settings import CONSTANTS
from rest_framework import exceptions

from procurement.models import ApiToken


class ApiTokenAuthentication(TokenAuthentication):
    def authenticate_credentials(self, token):
        key = token.decode("utf-8", "replace")
        expired = ApiToken.objects.filter(token_key=key[:CONSTANTS.TOKEN_KEY_LENGTH], expiry__lte=timezone.now())
        if any(compare_digest(hash_token(key), row.digest) for row in expired):
            raise exceptions.AuthenticationFailed(_("The token has expired; sign in again for a new one."))
        return super().authenticate_credentials(token)


class ApiTokenScheme(OpenApiAuthenticationExtension):
    """The schema says `Authorization: Token <key>`, as it did for DRF's token."""
    target_class = ApiTokenAuthentication
    name = "tokenAuth"

    def get_security_definition(self, auto_schema):
        return build_bearer_security_scheme_object(header_name="Authorization", token_prefix="Token")

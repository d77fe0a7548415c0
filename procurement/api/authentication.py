"""API authentication: DRF's token, refused once past its lifetime (procurement/tokens.py).
Kept apart from views: DRF imports it while it builds its own views."""
from django.utils.translation import gettext as _
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication

from procurement.people.tokens import token_expired


class ExpiringTokenAuthentication(TokenAuthentication):
    def authenticate_credentials(self, key):
        user, token = super().authenticate_credentials(key)
        if token_expired(token):
            raise exceptions.AuthenticationFailed(_("The token has expired; sign in again for a new one."))
        return user, token

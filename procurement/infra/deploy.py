"""Checks for a deployment (DESIGN §11, §15): a server never starts on the embedded secret key."""
from django.conf import settings
from django.core.checks import Error, register
from django.core.exceptions import ImproperlyConfigured

MISSING_KEY = ("SECRET_KEY is not set. Set it to a long random string in the environment "
               "(python -c 'import secrets; print(secrets.token_urlsafe(50))'); only DEBUG=true runs without it.")


def require_secret_key() -> None:
    if not settings.DEBUG and not settings.SECRET_KEY_FROM_ENV:
        raise ImproperlyConfigured(MISSING_KEY)


@register(deploy=True)
def secret_key_from_environment(app_configs, **kwargs):
    """`check --deploy`: the key must come from the environment, never the embedded default."""
    if settings.SECRET_KEY_FROM_ENV:
        return []
    return [Error(MISSING_KEY, id="procurement.E001")]

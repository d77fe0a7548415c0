"""Sign-in with the company directory over OIDC (mozilla-django-oidc), beside local accounts
(DESIGN §9).

Off unless OIDC_RP_CLIENT_ID and the provider's authorization, token and JWKS endpoints are set.
A person is created on her first sign-in. The id token is checked for signature (RS256 by the
provider's JWKS), audience (our client id), issuer (when OIDC_OP_ISSUER is set) and expiry; any
failure signs nobody in and creates nothing. Directory groups map to department roles through
OIDC_GROUP_MAP; at every sign-in the roles the map governs are set to what the groups give, so
someone removed from a group loses its role. Roles the map does not mention (and admins) stay
local. The standard `locale` claim ("zh-TW", "zh-Hant", "en-US") gives a person's language when
she has none saved yet, so her first mail is in it; her own choice in the page header wins."""
import logging
from decimal import Decimal

import jwt
import requests
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured, SuspiciousOperation
from django.db import transaction
from django.http import Http404
from django.utils.translation import get_supported_language_variant
from mozilla_django_oidc.auth import OIDCAuthenticationBackend
from mozilla_django_oidc.views import OIDCAuthenticationCallbackView, OIDCAuthenticationRequestView

from procurement.people.language import user_language_remember
from procurement.models import Department, Membership

log = logging.getLogger(__name__)
ROLES = (Membership.Role.REQUESTER, Membership.Role.MANAGER, Membership.Role.DIRECTOR)


def enabled() -> bool:
    return bool(settings.OIDC_RP_CLIENT_ID and settings.OIDC_OP_AUTHORIZATION_ENDPOINT
                and settings.OIDC_OP_TOKEN_ENDPOINT and settings.OIDC_OP_JWKS_ENDPOINT)


def group_map() -> dict[str, list[dict]]:
    """OIDC_GROUP_MAP as {group: [{"department": code or None, "role", "approval_limit"}]}; a group
    may give one role or a list of them. A bad entry stops sign-in with a clear configuration error."""
    mapped = {}
    for group, entries in (settings.OIDC_GROUP_MAP or {}).items():
        for entry in entries if isinstance(entries, list) else [entries]:
            if not isinstance(entry, dict) or entry.get("role") not in ROLES:
                raise ImproperlyConfigured(f"OIDC_GROUP_MAP[{group!r}]: each entry needs a role, one of "
                                           f"{', '.join(ROLES)}; got {entry!r}.")
            mapped.setdefault(group, []).append({"department": entry.get("department") or None, "role": entry["role"],
                                                 "approval_limit": Decimal(str(entry.get("approval_limit") or 0))})
    return mapped


# Chinese as written in Taiwan, Hong Kong and Macau reads Traditional; other Chinese (zh-CN,
# zh-Hans, a bare "zh") is not guessed at.
TRADITIONAL = ("zh-tw", "zh-hk", "zh-mo", "zh-hant")


def language_from_locale(locale) -> str | None:
    """The site language for an OIDC `locale` claim (BCP 47, "zh-TW", "zh_Hant_TW"), or None."""
    if not isinstance(locale, str) or not locale.strip():
        return None
    tag = locale.strip().replace("_", "-").lower()
    if tag.startswith("zh"):
        return "zh-hant" if tag.startswith(TRADITIONAL) else None
    try:
        return get_supported_language_variant(tag.split("-")[0])
    except LookupError:
        return None


def roles_sync(user, groups) -> None:
    """Set the roles the group map governs to those `groups` give; leave every other membership."""
    mapped = group_map()
    governed = {(e["department"], e["role"]) for entries in mapped.values() for e in entries}
    wanted = {(e["department"], e["role"]): e["approval_limit"]
              for group in groups if group in mapped for e in mapped[group]}
    departments = {d.code: d for d in Department.objects.filter(code__in={code for code, _ in wanted if code})}
    with transaction.atomic():
        for membership in Membership.objects.filter(user=user).select_related("department"):
            key = (membership.department.code if membership.department_id else None, membership.role)
            if key in governed and key not in wanted:
                membership.delete()
        for (code, role), limit in wanted.items():
            if code and code not in departments:
                log.warning("OIDC_GROUP_MAP names department %s, which does not exist", code)
                continue
            Membership.objects.update_or_create(user=user, department=departments.get(code), role=role,
                                                defaults={"approval_limit": limit})


class DirectoryBackend(OIDCAuthenticationBackend):
    def authenticate(self, request, **kwargs):
        if not enabled() or request is None:
            return None
        try:
            return super().authenticate(request, **kwargs)
        except (SuspiciousOperation, jwt.PyJWTError, requests.RequestException, KeyError, ValueError) as exc:
            log.warning("directory sign-in refused: %s", exc)
            return None

    def _verify_jws(self, payload, key):
        # The library leaves the audience unchecked; here every claim that matters is.
        if jwt.get_unverified_header(payload).get("alg") != self.OIDC_RP_SIGN_ALGO:
            raise SuspiciousOperation("The id token is not signed with the expected algorithm.")
        return jwt.decode(payload, key, algorithms=[self.OIDC_RP_SIGN_ALGO], audience=self.OIDC_RP_CLIENT_ID,
                          issuer=settings.OIDC_OP_ISSUER or None, options={"require": ["exp", "iat", "aud", "sub"]})

    def get_userinfo(self, access_token, id_token, payload):
        # The id token's claims are signed and checked; a userinfo endpoint is optional.
        if settings.OIDC_OP_USER_ENDPOINT:
            return {**payload, **super().get_userinfo(access_token, id_token, payload)}
        return payload

    def get_username(self, claims):
        wanted = (claims.get("preferred_username") or "").strip()
        if wanted and len(wanted) <= 150 and not self.UserModel.objects.filter(username=wanted).exists():
            return wanted
        return super().get_username(claims)

    def create_user(self, claims):
        user = super().create_user(claims)
        user.first_name, user.last_name = claims.get("given_name", "")[:150], claims.get("family_name", "")[:150]
        user.save(update_fields=["first_name", "last_name"])
        return self.update_user(user, claims)

    def update_user(self, user, claims):
        groups = claims.get(settings.OIDC_GROUPS_CLAIM) or []
        roles_sync(user, [g for g in groups if isinstance(g, str)])
        language = language_from_locale(claims.get("locale"))
        if language:
            user_language_remember(user=user, language=language)
        return user


class SignInView(OIDCAuthenticationRequestView):
    def get(self, request):
        if not enabled():
            raise Http404("Directory sign-in is not configured.")
        return super().get(request)


class CallbackView(OIDCAuthenticationCallbackView):
    def get(self, request):
        if not enabled():
            raise Http404("Directory sign-in is not configured.")
        try:
            return super().get(request)
        except SuspiciousOperation as exc:  # a state we never issued: refused like any other failure
            log.warning("directory sign-in refused: %s", exc)
            return self.login_failure()

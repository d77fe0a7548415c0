"""Each person's language: chosen in the page header, kept on their account, and used for
their pages (on any browser they sign in from), their mail and their in-page notices."""
from django import forms
from django.conf import settings
from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver
from django.views.decorators.http import require_POST
from django.views.i18n import set_language

from procurement.models import UserPreference


class LanguageForm(forms.Form):
    language = forms.ChoiceField(choices=settings.LANGUAGES)


def language_of(user) -> str:
    """The language to write to `user` in: their choice, else the site's default."""
    if user is None or not getattr(user, "pk", None):
        return settings.LANGUAGE_CODE
    chosen = UserPreference.objects.filter(user_id=user.pk).values_list("language", flat=True).first()
    return chosen or settings.LANGUAGE_CODE


def languages_of(users) -> dict:
    """language_of for each of `users` in one query: {user's pk: language}."""
    pks = [user.pk for user in users if user is not None and getattr(user, "pk", None)]
    chosen = dict(UserPreference.objects.filter(user_id__in=pks).values_list("user_id", "language")) if pks else {}
    return {pk: chosen.get(pk) or settings.LANGUAGE_CODE for pk in pks}


def user_language_remember(*, user, language: str) -> bool:
    """Keep `language` as `user`'s language only if they have none saved (the one they read pages
    or write the chat in, so that notices and mail follow it); a choice made in the header is never
    overwritten. True when it was saved now."""
    if language not in dict(settings.LANGUAGES) or not getattr(user, "pk", None):
        return False
    _, created = UserPreference.objects.get_or_create(user_id=user.pk, defaults={"language": language})
    return created


CHAT_LANGUAGES = {"zh": "zh-hant", "en": "en"}


def user_language_set(*, user, language: str) -> UserPreference:
    preference, _ = UserPreference.objects.update_or_create(user=user, defaults={"language": language})
    return preference


@require_POST
def language_switch(request):
    """Django's set_language (cookie, redirect to `next`), and the choice kept on the account."""
    response = set_language(request)
    form = LanguageForm(request.POST)
    if form.is_valid() and request.user.is_authenticated:
        user_language_set(user=request.user, language=form.cleaned_data["language"])
    return response


@receiver(user_logged_in)
def _language_at_login(sender, request, user, **kwargs):
    if request is not None:
        request.language_from_account = True


class UserLanguageMiddleware:
    """At sign-in, the person's saved language becomes this browser's language cookie (the browser
    may remember someone else's choice, or none), which LocaleMiddleware then reads on every
    request: no query per page."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        _remember_page_language(request)  # before the view: signed in by the session, not an API token
        response = self.get_response(request)
        if getattr(request, "language_from_account", False) and request.user.is_authenticated:
            chosen = UserPreference.objects.filter(user=request.user).values_list("language", flat=True).first()
            if chosen:
                response.set_cookie(settings.LANGUAGE_COOKIE_NAME, chosen, max_age=settings.LANGUAGE_COOKIE_AGE,
                                    path=settings.LANGUAGE_COOKIE_PATH, secure=settings.LANGUAGE_COOKIE_SECURE,
                                    httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
                                    samesite=settings.LANGUAGE_COOKIE_SAMESITE)
        return response


SESSION_KEY = "language_kept_for"


def _remember_page_language(request) -> None:
    """A signed-in person without a saved language gets the one their pages are read in, when
    their browser asked for one (language cookie or Accept-Language), so their notices and mail
    are written in it too. Once per session: the session remembers it was done, no query after."""
    user = getattr(request, "user", None)
    session = getattr(request, "session", None)
    if user is None or not user.is_authenticated or session is None or session.get(SESSION_KEY) == user.pk:
        return
    asked = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME) or request.META.get("HTTP_ACCEPT_LANGUAGE")
    if not asked:
        return
    user_language_remember(user=user, language=getattr(request, "LANGUAGE_CODE", ""))
    session[SESSION_KEY] = user.pk

"""Sign-in lockout (django-axes): the backend that counts failures, the sign-in forms, and what
a locked-out account is told (AXES_LOCKOUT_CALLABLE): JSON for the API, a page for the browser; 429 either
way, with when to try again."""
from axes.backends import AxesStandaloneBackend
from django import forms
from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.views import LoginView
from django.http import JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from .inputguard import wants_json


def lockout_response(request, original_response=None, credentials=None):
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    message = _("Too many failed sign-ins for this account: it is locked for %(minutes)d minutes. "
                "Try again later, or ask an admin to unlock it.") % {"minutes": minutes}
    if wants_json(request):
        return JsonResponse({"detail": message}, status=429)
    return render(request, "registration/locked_out.html", {"message": message}, status=429)


class AxesBackend(AxesStandaloneBackend):
    """Counts and locks sign-ins that come in over HTTP. A sign-in without a request (the test
    client's login, a shell) is no one at the door, so it passes on to the next backend."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)


class UsernameLengthChecked:
    """Django's sign-in forms set the username's max_length without checking it; an endless
    username would reach the lockout's own table (255 characters) and fail there. Checked here,
    it is a wrong login like any other."""

    def clean_username(self):
        username = self.cleaned_data["username"]
        if len(username) > self.fields["username"].max_length:
            raise forms.ValidationError(self.error_messages["invalid_login"], code="invalid_login",
                                        params={"username": self.username_field.verbose_name})
        return username


class SignInForm(UsernameLengthChecked, AuthenticationForm):
    pass


class AdminSignInForm(UsernameLengthChecked, AdminAuthenticationForm):
    pass


class SignInView(LoginView):
    """The sign-in page: a local account, and the company directory's button when it is configured."""

    authentication_form = SignInForm

    def get_context_data(self, **kwargs):
        from . import oidc

        return super().get_context_data(**kwargs) | {
            "directory": oidc.enabled(), "directory_refused": self.request.GET.get("directory") == "refused"}

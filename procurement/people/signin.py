"""Sign-in lockout (django-axes): the backend that counts failures, the handler that locks a user
name at one address and, at a higher count, the address itself, the client's address behind the
proxies, the sign-in forms, and what a locked-out sign-in is told (AXES_LOCKOUT_CALLABLE): JSON
for the API, a page for the browser; 429 either way, saying what is locked and for how long."""
import ipaddress

from axes.backends import AxesStandaloneBackend
from axes.handlers.database import AxesDatabaseHandler
from django.db.models import Sum
from django import forms
from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.views import LoginView
from django.http import JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from procurement.infra.inputguard import wants_json
from procurement.people import oidc


def client_address(request):
    """The address a sign-in came from (AXES_CLIENT_IP_CALLABLE). Behind AXES_PROXY_COUNT proxies
    the client is the entry that many places from the right of X-Forwarded-For, the one the
    outermost proxy of ours wrote; anything left of it is what the client claimed and is not
    believed. With no proxy, or a header shorter than that or not an address there, it is the
    connection's own address."""
    count = settings.AXES_IPWARE_PROXY_COUNT
    forwarded = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
    forwarded = [part for part in forwarded if part]
    if count and len(forwarded) >= count:
        try:
            return str(ipaddress.ip_address(forwarded[-count]))
        except ValueError:
            pass
    return request.META.get("REMOTE_ADDR")


class PairAndAddressHandler(AxesDatabaseHandler):
    """AXES_LOCKOUT_PARAMETERS holds two counts: the user name at this address, and the address
    alone. The first locks at AXES_FAILURE_LIMIT, the second at the higher
    AXES_ADDRESS_FAILURE_LIMIT, so guessing one person's password from elsewhere does not lock
    the owner out, and one address trying many names is stopped without stopping everyone.
    django-axes compares one number with one limit: this answers the pair's count, or the limit
    itself once the address has reached its own; request.axes_locked_by says which is locked."""

    def get_failures(self, request, credentials=None):
        pair, address = (attempts.aggregate(n=Sum("failures_since_start"))["n"] or 0
                         for attempts in self.get_user_attempts(request, credentials))
        if address >= settings.AXES_ADDRESS_FAILURE_LIMIT:
            request.axes_locked_by = "address"
            return settings.AXES_FAILURE_LIMIT
        request.axes_locked_by = "pair"
        return pair

    def reset_user_attempts(self, request, credentials=None):
        """A right password clears its own user name's failures at this address, not the
        address's count: one valid account must not reset an address that guesses others."""
        pair = self.filter_user_attempts(request, credentials)[0]
        count, _ = pair.delete()
        return count


def lockout_response(request, original_response=None, credentials=None):
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    if getattr(request, "axes_locked_by", "pair") == "address":
        title = _("Sign-ins from this address locked")
        message = _("Too many failed sign-ins from this address: every sign-in from here is locked "
                    "for %(minutes)d minutes. Try again later, or ask an admin to unlock it.")
    else:
        title = _("Sign-in with this user name locked")
        message = _("Too many failed sign-ins with this user name from this address: it is locked "
                    "here for %(minutes)d minutes. Try again later, or ask an admin to unlock it.")
    message = message % {"minutes": minutes}
    if wants_json(request):
        return JsonResponse({"detail": message}, status=429)
    return render(request, "registration/locked_out.html", {"title": title, "message": message}, status=429)


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
        return super().get_context_data(**kwargs) | {
            "directory": oidc.enabled(), "directory_refused": self.request.GET.get("directory") == "refused"}

"""Words the admin shows from Django, django-axes and DRF's tokens that their own catalogues leave
in English for zh-Hant (django-axes has no Chinese at all, and Django's newest admin strings are
not translated yet), and the app that names django-axes' tables on the admin index.

Listed here so makemessages keeps them in this product's catalogue, which Django searches
before any app's (settings.LOCALE_PATHS): an administrator reading Chinese sees 「登入嘗試」, not
"Access attempts". Nothing imports the list; the msgids must stay exactly as the libraries write them.
"""
from axes.apps import AppConfig as AxesAppConfig
from django.utils.translation import gettext_lazy as _
from django.utils.translation import gettext_noop

BORROWED = [
    # django-axes: its tables, their columns, its filter and its action
    gettext_noop("access attempt"), gettext_noop("access attempts"), gettext_noop("Access Attempt"),
    gettext_noop("access attempt expiration"), gettext_noop("access attempt expirations"),
    gettext_noop("access failure"), gettext_noop("access failures"), gettext_noop("access log"),
    gettext_noop("access logs"), gettext_noop("Access lock out"), gettext_noop("Attempt Remaining"),
    gettext_noop("Attempt Time"), gettext_noop("Clean up expired attempts"), gettext_noop("Expires At"),
    gettext_noop("Failed Logins"), gettext_noop("Form Data"), gettext_noop("GET Data"), gettext_noop("HTTP Accept"),
    gettext_noop("IP Address"), gettext_noop("Locked Out"), gettext_noop("Logout Time"), gettext_noop("Meta Data"),
    gettext_noop("Not set"), gettext_noop("POST Data"), gettext_noop("Path"), gettext_noop("Session key hash (sha256)"),
    gettext_noop("The time when access attempt expires and is no longer valid."), gettext_noop("User Agent"),
    # DRF's API tokens
    gettext_noop("Auth Token"), gettext_noop("Token"), gettext_noop("Tokens"), gettext_noop("Created"),
    # Django admin's date drill-down
    gettext_noop("Filter by %(field_name)s"),
]


class AxesConfig(AxesAppConfig):
    """django-axes as it is, with a name on the admin index in the reader's language (its own
    AppConfig has none, so the index would say "Axes")."""
    verbose_name = _("Sign-in protection")

"""URL map: pages, the REST API v1 and health."""
from django.contrib import admin
from django.contrib.auth.views import LoginView
from django.urls import include, path

from .health import healthz
from .language import language_switch
from .signin import AdminSignInForm, SignInForm

admin.site.login_form = AdminSignInForm

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/v1/", include("procurement.api.urls")),
    path("healthz", healthz, name="healthz"),
    path("accounts/login/", LoginView.as_view(authentication_form=SignInForm), name="login"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("i18n/setlang/", language_switch, name="set_language"),
    path("", include("procurement.pages.urls")),
]

"""URL map: pages, the REST API v1 and health."""
from django.contrib import admin
from django.urls import include, path

from procurement.infra.health import healthz
from procurement.people.language import language_switch
from procurement.people.signin import AdminSignInForm, SignInView

admin.site.login_form = AdminSignInForm

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/v1/", include("procurement.api.urls")),
    path("healthz", healthz, name="healthz"),
    path("accounts/login/", SignInView.as_view(), name="login"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("oidc/", include("mozilla_django_oidc.urls")),
    path("i18n/setlang/", language_switch, name="set_language"),
    path("", include("procurement.pages.urls")),
]

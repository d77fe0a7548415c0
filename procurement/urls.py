"""URL map: pages, the REST API v1 and health."""
from django.contrib import admin
from django.urls import path

from .health import healthz

urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
]

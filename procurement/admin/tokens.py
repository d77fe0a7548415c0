"""People's API tokens, one per client: who holds which, when each expires; deleting one revokes
it. Keys are never shown (only a digest is kept)."""
from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from procurement.models import ApiToken


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("holder", "name", "made", "expires")
    search_fields = ("user__username", "name", "token_key")
    fields = readonly_fields = ("holder", "name", "made", "expires")

    @admin.display(description=_("person"), ordering="user__username")
    def holder(self, token):
        return token.user

    @admin.display(description=_("made"), ordering="created")
    def made(self, token):
        return token.created

    @admin.display(description=_("expires"), ordering="expiry")
    def expires(self, token):
        return token.expiry

    def has_add_permission(self, request):
        return False  # made by signing in at the token endpoint, or `manage.py drf_create_token`

    def has_change_permission(self, request, obj=None):
        return False

"""Match tolerances in the admin: every saved change or deletion publishes a new version; the
versions are history, read only. A PO keeps the tolerances it was issued under."""
from django.contrib import admin
from django.utils.translation import gettext as _

from procurement.models.tolerance import TolerancePolicy, ToleranceRule
from procurement.policy.tolerances import tolerances_publish


@admin.register(ToleranceRule)
class ToleranceRuleAdmin(admin.ModelAdmin):
    list_display = ["name", "figure", "supplier", "category", "amount", "percent", "combine"]
    list_filter = ["figure"]
    list_select_related = ["supplier"]

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        self._published(request)

    def delete_model(self, request, obj):
        super().delete_model(request, obj)
        self._published(request)

    def delete_queryset(self, request, queryset):
        super().delete_queryset(request, queryset)
        self._published(request)

    def _published(self, request):
        policy = tolerances_publish(by=request.user)
        self.message_user(request, _("Match tolerances v%(version)s are now in force; purchase orders already issued "
                                     "keep the tolerances they were issued under.") % {"version": policy.version})


@admin.register(TolerancePolicy)
class TolerancePolicyAdmin(admin.ModelAdmin):
    list_display = ["version", "created_by", "created_at"]
    readonly_fields = ["version", "rules", "created_by", "created_at"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

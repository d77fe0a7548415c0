"""Admin pages for the procurement tables: plain lists for people who need to look."""
from django.contrib import admin

from .models import (BudgetReservation, Department, Membership, Notification, PurchaseRequest, Quote, RequestLine,
                     Supplier)


@admin.register(Department)
class DepartmentAdmin(admin.ModelAdmin):
    list_display = ["code", "name", "cost_centre", "budget_total", "budget_reserved", "manager"]
    search_fields = ["code", "name"]


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ["user", "department", "role", "approval_limit"]
    list_filter = ["role", "department"]


@admin.register(Supplier)
class SupplierAdmin(admin.ModelAdmin):
    list_display = ["name", "tax_id", "email"]
    search_fields = ["name", "tax_id"]


@admin.register(Quote)
class QuoteAdmin(admin.ModelAdmin):
    list_display = ["item", "supplier", "unit_price", "currency", "valid_until", "lead_time_days"]
    list_filter = ["item", "supplier"]


class RequestLineInline(admin.TabularInline):
    model = RequestLine
    extra = 0


@admin.register(PurchaseRequest)
class PurchaseRequestAdmin(admin.ModelAdmin):
    list_display = ["number", "department", "requester", "budget", "created_at"]
    list_filter = ["department"]
    search_fields = ["number", "requester__username"]
    readonly_fields = ["number"]
    inlines = [RequestLineInline]


@admin.register(RequestLine)
class RequestLineAdmin(admin.ModelAdmin):
    list_display = ["request", "position", "description", "quantity", "unit_price"]


@admin.register(BudgetReservation)
class BudgetReservationAdmin(admin.ModelAdmin):
    list_display = ["department", "task", "amount", "status", "created_at", "released_at"]
    list_filter = ["status", "department"]


@admin.register(Notification)
class NotificationAdmin(admin.ModelAdmin):
    """The outbox, to look at: a send marked `uncertain` is for a person to check, never resent by itself."""
    list_display = ["created_at", "kind", "to", "subject", "status", "sent_at", "task"]
    list_filter = ["status", "kind"]
    search_fields = ["to", "subject", "message_id"]
    readonly_fields = ["message_id", "task", "kind", "to", "subject", "body", "status", "created_at", "updated_at",
                       "sent_at"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

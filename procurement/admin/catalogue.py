"""The catalogue's words in the admin: items with the words people use for them, the accessory
words, and suppliers' other names. The chat hears what is saved here in its next message."""
from django.contrib import admin

from procurement.models import AccessoryWord, CatalogueItem, ItemAlias, SupplierAlias


class ItemAliasInline(admin.TabularInline):
    model = ItemAlias
    extra = 1


@admin.register(CatalogueItem)
class CatalogueItemAdmin(admin.ModelAdmin):
    list_display = ["name", "category"]
    ordering = ["name"]
    list_filter = ["category"]
    search_fields = ["name", "aliases__words"]
    inlines = [ItemAliasInline]


@admin.register(ItemAlias)
class ItemAliasAdmin(admin.ModelAdmin):
    list_display = ["words", "item", "language"]
    ordering = ["item__name", "words"]
    list_filter = ["language", "item"]
    list_select_related = ["item"]
    search_fields = ["words", "item__name"]


@admin.register(AccessoryWord)
class AccessoryWordAdmin(admin.ModelAdmin):
    list_display = ["words", "language"]
    ordering = ["words"]
    list_filter = ["language"]
    search_fields = ["words"]


@admin.register(SupplierAlias)
class SupplierAliasAdmin(admin.ModelAdmin):
    list_display = ["words", "supplier", "language"]
    ordering = ["supplier__name", "words"]
    list_filter = ["language"]
    list_select_related = ["supplier"]
    search_fields = ["words", "supplier__name"]

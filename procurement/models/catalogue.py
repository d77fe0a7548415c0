"""The words the hearing knows the catalogue by: the items people buy and the words they use for
them (「筆電」, "notebook"), the things bought *for* an item that are not the item ("monitor arm",
「筆電包」), and the other names a supplier goes by. Kept as data, so an item or an alias added in
the admin is understood in the next chat message. No default ordering: the hearing reads them
all in one union query (procurement.purchase.catalogue), which a Meta ordering would break."""
from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy


class WordLanguage(models.TextChoices):
    EN = "en", pgettext_lazy("language", "English")
    ZH = "zh", pgettext_lazy("language", "Chinese")


class CatalogueItem(models.Model):
    name = models.CharField(max_length=100, unique=True, verbose_name=_("name"),
                            help_text=_('Canonical item name, as quotes name it, e.g. "Laptop", "USB-C dock".'))
    category = models.CharField(max_length=100, blank=True, verbose_name=_("category"))

    class Meta:
        app_label = "procurement"
        verbose_name = _("catalogue item")
        verbose_name_plural = _("catalogue items")

    def __str__(self):
        return self.name


class ItemAlias(models.Model):
    item = models.ForeignKey(CatalogueItem, on_delete=models.CASCADE, related_name="aliases", verbose_name=_("item"))
    words = models.CharField(max_length=100, verbose_name=_("words"),
                             help_text=_('What people call it, e.g. "notebook", 「筆電」. English words also match '
                                         'their plurals.'))
    language = models.CharField(max_length=2, choices=WordLanguage.choices, verbose_name=_("language"))

    class Meta:
        app_label = "procurement"
        verbose_name = _("item alias")
        verbose_name_plural = _("item aliases")
        constraints = [models.UniqueConstraint(fields=["item", "words"], name="item_alias_once")]

    def __str__(self):
        return self.words


class AccessoryWord(models.Model):
    """A thing bought for an item ("arm", 「保護貼」): a message naming one is asked about, never
    read as the item itself."""
    words = models.CharField(max_length=100, unique=True, verbose_name=_("words"))
    language = models.CharField(max_length=2, choices=WordLanguage.choices, verbose_name=_("language"))

    class Meta:
        app_label = "procurement"
        verbose_name = _("accessory word")
        verbose_name_plural = _("accessory words")

    def __str__(self):
        return self.words


class SupplierAlias(models.Model):
    supplier = models.ForeignKey("procurement.Supplier", on_delete=models.CASCADE, related_name="aliases",
                                 verbose_name=_("supplier"))
    words = models.CharField(max_length=200, verbose_name=_("words"),
                             help_text=_("Another name the supplier goes by, e.g. its Chinese name."))
    language = models.CharField(max_length=2, choices=WordLanguage.choices, verbose_name=_("language"))

    class Meta:
        app_label = "procurement"
        verbose_name = _("supplier alias")
        verbose_name_plural = _("supplier aliases")
        constraints = [models.UniqueConstraint(fields=["supplier", "words"], name="supplier_alias_once")]

    def __str__(self):
        return self.words

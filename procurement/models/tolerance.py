"""Match tolerances as policy data (DESIGN §16): how far an invoice's figures may be off the PO
and still match, per supplier or category. Admins edit rules; every saved change is copied
whole into a new TolerancePolicy version, and the tolerances a PO is issued under are frozen on
it, so a later edit does not change a PO already out."""
from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy


class TolerancePolicy(models.Model):
    """One version of the tolerances: the rules exactly as they were when an admin saved a change."""

    version = models.PositiveIntegerField(_("version"), unique=True)
    rules = models.JSONField(_("rules"), help_text=_("The rules of this version, as saved."))
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+", verbose_name=_("saved by"))
    created_at = models.DateTimeField(_("saved at"), auto_now_add=True)

    class Meta:
        app_label = "procurement"
        ordering = ["-version"]
        verbose_name = _("match tolerance version")
        verbose_name_plural = _("match tolerance versions")

    def __str__(self):
        return str(_("Match tolerances v%(version)s") % {"version": self.version})


class ToleranceRule(models.Model):
    class Figure(models.TextChoices):
        QUANTITY = "quantity", pgettext_lazy("match check", "quantity (units)")
        PRICE = "price", pgettext_lazy("match check", "unit price (NT$ per unit)")
        TAX = "tax", pgettext_lazy("match check", "business tax (NT$)")
        TOTAL = "total", pgettext_lazy("match check", "header against lines (NT$)")

    class Combine(models.TextChoices):
        OR = "or", pgettext_lazy("tolerance combined", "either is enough (or)")
        AND = "and", pgettext_lazy("tolerance combined", "both must hold (and)")

    name = models.CharField(_("name"), max_length=100, unique=True)
    supplier = models.ForeignKey("procurement.Supplier", null=True, blank=True, on_delete=models.PROTECT,
                                 verbose_name=_("supplier"), help_text=_("Empty: any supplier."))
    category = models.CharField(_("category"), max_length=100, blank=True,
                                help_text=_('An item as quoted, e.g. "Monitor". Empty: any category.'))
    figure = models.CharField(_("figure checked"), max_length=10, choices=Figure.choices)
    amount = models.DecimalField(_("within (absolute)"), max_digits=14, decimal_places=2, null=True, blank=True,
                                 help_text=_("In the figure's own unit: units for quantity, NT$ for the others. "
                                             "Empty: no absolute allowance."))
    percent = models.DecimalField(_("within (%)"), max_digits=6, decimal_places=2, null=True, blank=True,
                                  help_text=_("Percent of the expected figure. Empty: no percentage allowance."))
    combine = models.CharField(_("combined by"), max_length=3, choices=Combine.choices, default=Combine.OR)

    class Meta:
        app_label = "procurement"
        ordering = ["figure", "supplier__name", "category"]
        verbose_name = _("match tolerance")
        verbose_name_plural = _("match tolerances")
        constraints = [
            models.UniqueConstraint(fields=["supplier", "category", "figure"], name="tolerance_one_per_scope",
                                    nulls_distinct=False),
            models.CheckConstraint(condition=(Q(amount__isnull=True) | Q(amount__gte=0))
                                   & (Q(percent__isnull=True) | Q(percent__gte=0)), name="tolerance_not_negative"),
        ]

    def __str__(self):
        return self.name

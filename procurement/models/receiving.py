"""Goods receipts: what a person found in the delivery, per PO line. Rows are written once and never
changed; a return is a new receipt with a negative accepted quantity."""
import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy


class RejectReason(models.TextChoices):
    DAMAGED = "damaged", pgettext_lazy("goods rejected because", "damaged")
    WRONG_ITEM = "wrong_item", pgettext_lazy("goods rejected because", "wrong item")
    OTHER = "other", pgettext_lazy("goods rejected because", "other")


class GoodsReceipt(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False, verbose_name=_("ID"))
    task = models.ForeignKey("agentstate.Task", on_delete=models.PROTECT, related_name="goods_receipts",
                             verbose_name=_("task"))
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+",
                                   verbose_name=_("recorded by"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    note = models.TextField(blank=True, max_length=2000, verbose_name=_("note"))

    class Meta:
        app_label = "procurement"
        verbose_name = _("goods receipt")
        verbose_name_plural = _("goods receipts")
        ordering = ["created_at", "pk"]

    def __str__(self):
        return f"{self.task_id} {self.created_at:%Y-%m-%d %H:%M}"


class GoodsReceiptLine(models.Model):
    receipt = models.ForeignKey(GoodsReceipt, on_delete=models.CASCADE, related_name="lines",
                                verbose_name=_("goods receipt"))
    line = models.PositiveIntegerField(help_text=_("The PO line, counted from 0."), verbose_name=_("line"))
    accepted = models.IntegerField(help_text=_("Negative for a return (退貨)."), verbose_name=_("accepted"))
    rejected = models.PositiveIntegerField(default=0, verbose_name=_("rejected"))
    reason = models.CharField(max_length=12, choices=RejectReason.choices, blank=True, verbose_name=_("reason"))

    class Meta:
        app_label = "procurement"
        verbose_name = _("goods receipt line")
        verbose_name_plural = _("goods receipt lines")
        ordering = ["receipt", "line"]
        constraints = [
            models.UniqueConstraint(fields=["receipt", "line"], name="goods_receipt_line_once"),
            # A rejection or a return says why.
            models.CheckConstraint(condition=Q(rejected=0, accepted__gte=0) | ~Q(reason=""),
                                   name="goods_receipt_line_reason_given"),
        ]

    def __str__(self):
        return f"line {self.line}: +{self.accepted} / -{self.rejected}"

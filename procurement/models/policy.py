"""The approval policy's tables. Admins edit rules and their steps; every saved change is
copied whole into a new ApprovalPolicy version, which is what routing reads and what an
approval names. Delegations say who stands in for whom, and when."""
from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy


def _money(**kwargs):
    return models.DecimalField(max_digits=14, decimal_places=2, **kwargs)


class ApprovalPolicy(models.Model):
    """One version of the policy: the rules exactly as they were when an admin saved a change."""

    version = models.PositiveIntegerField(_("version"), unique=True)
    rules = models.JSONField(_("rules"), help_text=_("The rules of this version, as saved."))
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+", verbose_name=_("saved by"))
    created_at = models.DateTimeField(_("saved at"), auto_now_add=True)

    class Meta:
        ordering = ["-version"]
        verbose_name = _("approval policy version")
        verbose_name_plural = _("approval policy versions")

    def __str__(self):
        return str(_("Approval policy v%(version)s") % {"version": self.version})


class Role(models.TextChoices):
    """Roles a step may name; they are department roles (procurement.models.Membership.Role)."""
    MANAGER = "manager", pgettext_lazy("approval role", "manager")
    DIRECTOR = "director", pgettext_lazy("approval role", "director")
    FINANCE = "finance", pgettext_lazy("approval role", "finance")


NEXT_STEP = "next"
BACKUP_CHOICES = [*Role.choices, (NEXT_STEP, pgettext_lazy("approval role", "the next step's approvers"))]


class PolicyRule(models.Model):
    """When a request matches (department, category, supplier, amount 含稅), its approval chain."""

    name = models.CharField(_("name"), max_length=100, unique=True)
    department = models.ForeignKey("procurement.Department", null=True, blank=True, on_delete=models.PROTECT,
                                   verbose_name=_("department"), help_text=_("Empty: any department."))
    category = models.CharField(_("category"), max_length=100, blank=True,
                                help_text=_('An item as quoted, e.g. "Laptop"; the rule matches when any line is '
                                            'one. Empty: any category.'))
    supplier = models.ForeignKey("procurement.Supplier", null=True, blank=True, on_delete=models.PROTECT,
                                 verbose_name=_("supplier"), help_text=_("Empty: any supplier."))
    amount_over = _money(verbose_name=_("amount over (NT$, incl. tax)"), null=True, blank=True,
                         help_text=_("The rule applies to totals above this amount. Empty: from NT$0."))
    amount_up_to = _money(verbose_name=_("amount up to (NT$, incl. tax)"), null=True, blank=True,
                          help_text=_("…and up to this amount, inclusive. Empty: no upper limit."))

    class Meta:
        ordering = ["department__code", "category", "supplier__name", "amount_over"]
        verbose_name = _("approval rule")
        verbose_name_plural = _("approval rules")
        constraints = [models.CheckConstraint(
            condition=(Q(amount_over__isnull=True) | Q(amount_up_to__isnull=True)
                       | Q(amount_up_to__gt=models.F("amount_over"))),
            name="policy_rule_amounts_ordered")]

    def __str__(self):
        return self.name


class PolicyStep(models.Model):
    class Mode(models.TextChoices):
        ANY = "any", _("any one of them")
        ALL = "all", _("all of them")

    rule = models.ForeignKey(PolicyRule, on_delete=models.CASCADE, related_name="steps", verbose_name=_("rule"))
    position = models.PositiveSmallIntegerField(_("order"))
    role = models.CharField(_("role"), max_length=10, choices=Role.choices, blank=True,
                            help_text=_("The department role that decides this step; or name a person."))
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                             related_name="+", verbose_name=_("person"))
    mode = models.CharField(_("who must approve"), max_length=3, choices=Mode.choices, default=Mode.ANY)
    within_limit = models.BooleanField(_("within their own limit"), default=False,
                                       help_text=_("The approver's own approval limit must cover the total."))
    escalate_after = models.DurationField(_("escalate after"), null=True, blank=True,
                                          help_text=_('Waiting longer than this, the step is offered to the backup, '
                                                      'e.g. "1 00:00:00" for a day. Empty: never.'))
    backup_role = models.CharField(_("backup"), max_length=10, choices=BACKUP_CHOICES, blank=True,
                                   help_text=_("Who the step is offered to when it waits too long."))

    class Meta:
        ordering = ["rule", "position"]
        verbose_name = _("approval step")
        verbose_name_plural = _("approval steps")
        constraints = [
            models.UniqueConstraint(fields=["rule", "position"], name="policy_step_position_unique"),
            models.CheckConstraint(condition=(Q(role="") & Q(user__isnull=False)) | (~Q(role="") & Q(user__isnull=True)),
                                   name="policy_step_role_or_person"),
        ]

    def __str__(self):
        return f"{self.rule} #{self.position}"


class DelegationQuerySet(models.QuerySet):
    def active(self, on=None):
        """Delegations in force on that date (today, Asia/Taipei): they end by themselves."""
        day = on or timezone.localdate()
        return self.filter(starts__lte=day, ends__gte=day, delegator__is_active=True, delegate__is_active=True)


class Delegation(models.Model):
    """代理人: while it runs, `delegate` may decide what is routed to `delegator`, on their behalf."""

    delegator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="delegations",
                                  verbose_name=_("stands in for"))
    delegate = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="stand_ins",
                                 verbose_name=_("delegate"))
    starts = models.DateField(_("from"))
    ends = models.DateField(_("until (inclusive)"))
    created_at = models.DateTimeField(auto_now_add=True)

    objects = DelegationQuerySet.as_manager()

    class Meta:
        ordering = ["delegator", "starts"]
        verbose_name = _("delegation")
        verbose_name_plural = _("delegations")
        constraints = [
            models.CheckConstraint(condition=Q(ends__gte=models.F("starts")), name="delegation_ends_after_start"),
            models.CheckConstraint(condition=~Q(delegate=models.F("delegator")), name="delegation_not_to_oneself"),
        ]
        indexes = [models.Index(fields=["delegate", "ends"], name="delegation_delegate_idx"),
                   # Today's delegations, read once per request: those not ended yet, however long the history.
                   models.Index(fields=["ends", "starts"], name="delegation_running_idx")]

    def __str__(self):
        return f"{self.delegate} for {self.delegator}, {self.starts}–{self.ends}"

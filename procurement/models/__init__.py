"""The procurement domain's tables: who belongs where and may approve how much, who sells
what at which price, what was requested, and which budget is held for it."""
import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import translation
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext, pgettext_lazy
from guardian.models import UserObjectPermissionBase

from procurement.models.taxid import validate_tax_id


def money(**kwargs):
    """Money is TWD, exact to the cent, up to a trillion."""
    return models.DecimalField(max_digits=14, decimal_places=2, **kwargs)



# The demo's departments by their names in the reader's language; any other name shows as stored.
DEPARTMENT_NAMES = {("ENG", "Engineering"): pgettext_lazy("department", "Engineering"),
                    ("OPS", "Operations"): pgettext_lazy("department", "Operations")}


def department_label(department) -> str:
    """A department (a Department, or anything with `code` and `name`) by its name in the reader's
    language: 「工程部」 / "Engineering" for the demo's ENG, any other name as stored; "" for none."""
    if department is None:
        return ""
    code, name = getattr(department, "code", ""), getattr(department, "name", "") or ""
    return str(DEPARTMENT_NAMES.get((code, name), name)) or code


def department_with_code(department) -> str:
    """A department named and coded as its reader writes it: 「工程部（ENG）」, "Engineering (ENG)"."""
    return pgettext("a department and its code", "%(name)s (%(code)s)") % {
        "name": department_label(department), "code": getattr(department, "code", "")}


class Department(models.Model):
    code = models.CharField(max_length=20, unique=True, help_text=_('Short code, e.g. "ENG".'), verbose_name=_("code"))
    name = models.CharField(max_length=100, verbose_name=_("name"))
    cost_centre = models.CharField(max_length=30, help_text=_('e.g. "ENG-01".'), verbose_name=_("cost centre"))
    budget_total = money(help_text=_("The year's budget, TWD, tax-inclusive."), verbose_name=_("budget"))
    budget_reserved = money(default=0, help_text=_("Sum of live reservations."), verbose_name=_("reserved"))
    manager = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                related_name="managed_departments", verbose_name=_("manager"))

    class Meta:
        verbose_name = _("department")
        verbose_name_plural = _("departments")
        ordering = ["code"]
        constraints = [
            models.CheckConstraint(condition=Q(budget_reserved__gte=0), name="department_reserved_not_negative"),
        ]

    def __str__(self):
        return department_with_code(self)

    @property
    def budget_available(self):
        return self.budget_total - self.budget_reserved


class Membership(models.Model):
    class Role(models.TextChoices):
        REQUESTER = "requester", pgettext_lazy("department role", "requester")
        MANAGER = "manager", pgettext_lazy("department role", "manager")
        DIRECTOR = "director", pgettext_lazy("department role", "director")
        FINANCE = "finance", pgettext_lazy("department role", "finance")
        ADMIN = "admin", pgettext_lazy("department role", "admin")
        ACCOUNTS_PAYABLE = "accounts_payable", pgettext_lazy("department role", "accounts payable")

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships",
                             verbose_name=_("person"))
    department = models.ForeignKey(Department, null=True, blank=True, on_delete=models.CASCADE,
                                   related_name="memberships", help_text=_("Empty means all departments."),
                                   verbose_name=_("department"))
    role = models.CharField(max_length=20, choices=Role.choices, verbose_name=_("role"))
    approval_limit = money(default=0, help_text=_("Highest tax-inclusive total this member may approve."),
                           verbose_name=_("approval limit"))

    class Meta:
        verbose_name = _("membership")
        verbose_name_plural = _("memberships")
        ordering = ["user", "department", "role"]
        # Two partial constraints, because NULL departments would never collide in one.
        constraints = [
            models.UniqueConstraint(fields=["user", "department", "role"], condition=Q(department__isnull=False),
                                    name="membership_unique_in_department"),
            models.UniqueConstraint(fields=["user", "role"], condition=Q(department__isnull=True),
                                    name="membership_unique_all_departments"),
        ]

    def __str__(self):
        where = str(self.department) if self.department_id else _("all departments")
        return _("%(person)s: %(role)s, %(where)s") % {"person": self.user, "role": self.get_role_display(),
                                                     "where": where}


class Supplier(models.Model):
    name = models.CharField(max_length=200, unique=True, verbose_name=_("name"))
    tax_id = models.CharField(_("tax ID (統一編號)"), max_length=8, unique=True, validators=[validate_tax_id])
    email = models.EmailField(blank=True, verbose_name=_("email"))

    class Meta:
        verbose_name = _("supplier")
        verbose_name_plural = _("suppliers")
        ordering = ["name"]

    def __str__(self):
        return self.name


class Quote(models.Model):
    supplier = models.ForeignKey(Supplier, on_delete=models.CASCADE, related_name="quotes", verbose_name=_("supplier"))
    item = models.CharField(max_length=100, help_text=_('Canonical item name, e.g. "Laptop", "USB-C dock".'),
                            verbose_name=_("item"))
    unit_price = money(help_text=_("Untaxed (未稅) unit price."), verbose_name=_("unit price"))
    currency = models.CharField(max_length=3, default="TWD", verbose_name=_("currency"))
    valid_until = models.DateField(verbose_name=_("valid until"))
    lead_time_days = models.PositiveIntegerField(verbose_name=_("lead time (days)"))

    class Meta:
        verbose_name = _("quote")
        verbose_name_plural = _("quotes")
        ordering = ["item", "unit_price"]
        constraints = [
            models.UniqueConstraint(fields=["supplier", "item"], name="quote_unique_supplier_item"),
            models.CheckConstraint(condition=Q(unit_price__gte=0), name="quote_price_not_negative"),
        ]

    def __str__(self):
        return f"{self.item} from {self.supplier}: {self.currency} {self.unit_price}"


class PurchaseRequest(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False, verbose_name=_("ID"))
    task = models.OneToOneField("agentstate.Task", on_delete=models.PROTECT, related_name="purchase_request",
                                verbose_name=_("task"))
    number = models.CharField(max_length=20, unique=True, editable=False,
                              help_text=_('What people call it, e.g. "REQ-2026-00042"; given when the request is '
                                          'confirmed.'),
                              verbose_name=_("request number"))
    department = models.ForeignKey(Department, on_delete=models.PROTECT, related_name="purchase_requests",
                                   verbose_name=_("department"))
    requester = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                                  related_name="purchase_requests", verbose_name=_("requester"))
    justification = models.TextField(blank=True, verbose_name=_("justification"))
    budget = money(null=True, blank=True, help_text=_("The requester's own cap, tax-inclusive, if they gave one."),
                   verbose_name=_("budget cap"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("purchase request")
        verbose_name_plural = _("purchase requests")
        ordering = ["-created_at"]

    def __str__(self):
        return f"{self.number} ({self.department.code})"


class RequestCounter(models.Model):
    """The last request number given out in a year (Asia/Taipei): REQ-<year>-<last>."""
    year = models.PositiveSmallIntegerField(primary_key=True)
    last = models.PositiveIntegerField(default=0)

    def __str__(self):
        return f"{self.year}: {self.last}"


class RequestLine(models.Model):
    request = models.ForeignKey(PurchaseRequest, on_delete=models.CASCADE, related_name="lines",
                                verbose_name=_("purchase request"))
    position = models.PositiveIntegerField(verbose_name=_("line"))
    description = models.CharField(max_length=200, verbose_name=_("item"))
    quantity = models.PositiveIntegerField(verbose_name=_("quantity"))
    unit_price = money(null=True, blank=True, help_text=_("The requester's estimate, untaxed; optional."),
                       verbose_name=_("unit price"))

    class Meta:
        verbose_name = _("request line")
        verbose_name_plural = _("request lines")
        ordering = ["request", "position"]
        constraints = [
            models.UniqueConstraint(fields=["request", "position"], name="request_line_position_unique"),
            models.CheckConstraint(condition=Q(quantity__gte=1), name="request_line_quantity_positive"),
        ]

    def __str__(self):
        return f"{self.quantity} × {self.description}"


class BudgetReservation(models.Model):
    class Status(models.TextChoices):
        # reserved: counted against the department (budget_reserved); held: a soft hold until
        # approval (BUDGET_HOLD=soft), counted against nobody.
        RESERVED = "reserved", pgettext_lazy("budget reservation", "reserved")
        HELD = "held", pgettext_lazy("budget reservation", "held until approval")
        RELEASED = "released", pgettext_lazy("budget reservation", "released")

    department = models.ForeignKey(Department, on_delete=models.PROTECT, related_name="reservations",
                                   verbose_name=_("department"))
    task = models.ForeignKey("agentstate.Task", on_delete=models.PROTECT, related_name="budget_reservations",
                             verbose_name=_("task"))
    amount = money(verbose_name=_("amount"))
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.RESERVED, verbose_name=_("status"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    released_at = models.DateTimeField(null=True, blank=True, verbose_name=_("released at"))

    class Meta:
        verbose_name = _("budget reservation")
        verbose_name_plural = _("budget reservations")
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["task"], condition=Q(status__in=["reserved", "held"]),
                                    name="one_live_reservation_per_task"),
            models.CheckConstraint(condition=Q(amount__gte=0), name="reservation_amount_not_negative"),
        ]

    def __str__(self):
        return f"{self.department.code} {self.amount} for {self.task_id} [{self.status}]"


class Notification(models.Model):
    """The email outbox: written in the transaction that decides to notify, sent at most once.

    Email has no idempotency key, so a send whose outcome is unclear is marked `uncertain`
    and never repeated blindly (DESIGN §6)."""

    class Status(models.TextChoices):
        QUEUED = "queued", pgettext_lazy("mail status", "queued")
        SENDING = "sending", pgettext_lazy("mail status", "sending")
        SENT = "sent", pgettext_lazy("mail status", "sent")
        UNCERTAIN = "uncertain", pgettext_lazy("mail status", "uncertain: check before sending again")
        SUPERSEDED = "superseded", pgettext_lazy("mail status", "not sent: a newer mail replaced it")

    message_id = models.CharField(max_length=200, unique=True, verbose_name=_("message ID"))
    task = models.ForeignKey("agentstate.Task", on_delete=models.PROTECT, related_name="notifications",
                             verbose_name=_("task"), null=True, blank=True)
    kind = models.CharField(max_length=30, blank=True, help_text=_("The notice kind (templates/notices/<kind>.txt)."),
                            verbose_name=_("kind"))
    to = models.EmailField(verbose_name=_("to"))
    subject = models.CharField(max_length=200, verbose_name=_("subject"))
    body = models.TextField(verbose_name=_("body"))
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED, verbose_name=_("status"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))
    sent_at = models.DateTimeField(null=True, blank=True, verbose_name=_("sent at"))
    # Mail that a newer one replaces while it waits (an approval step's, as versions follow each
    # other): one group per person and step; held until `send_after`, then sent (infra.outbox).
    coalesce_key = models.CharField(max_length=200, blank=True, db_index=True, verbose_name=_("coalesced as"))
    send_after = models.DateTimeField(null=True, blank=True, verbose_name=_("held until"))

    class Meta:
        verbose_name = _("mail")
        verbose_name_plural = _("mail")
        ordering = ["created_at"]

    def __str__(self):
        return f"{self.subject} → {self.to} [{self.status}]"


class UserPreference(models.Model):
    """What a person chose for themselves: the language of their pages, mail and notices."""
    user = models.OneToOneField(settings.AUTH_USER_MODEL, primary_key=True, on_delete=models.CASCADE,
                                related_name="preference")
    language = models.CharField(max_length=10, choices=settings.LANGUAGES)

    def __str__(self):
        return f"{self.user} prefers {self.language}"


class NoticeSource(models.Model):
    """One row per thing that was turned into notices (a task event, an approval's reminder):
    written in the transaction that writes its notices, so each is handled exactly once."""
    key = models.CharField(max_length=200, unique=True)
    event = models.OneToOneField("agentstate.TaskEvent", null=True, blank=True, on_delete=models.CASCADE,
                                 related_name="notice_source")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return self.key


class Notice(models.Model):
    """An in-page notice for one person: the same words as their mail, in their language."""
    recipient = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notices")
    kind = models.CharField(max_length=30)
    task = models.ForeignKey("agentstate.Task", on_delete=models.PROTECT, related_name="notices", null=True,
                             blank=True, help_text="The request it is about; none for a delegation's notices.")
    text = models.TextField(help_text="In the recipient's language when it was written.")
    texts = models.JSONField(default=dict, blank=True, help_text="The same notice in each of the site's languages.")
    url = models.CharField(max_length=500, help_text="Absolute link to what the notice is about.")
    key = models.CharField(max_length=200, unique=True)
    read_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["recipient", "-created_at"]),
            models.Index(fields=["recipient"], name="notice_unread_idx", condition=Q(read_at__isnull=True)),
        ]

    def __str__(self):
        return f"{self.kind} for {self.recipient_id} on {self.task_id}"

    @property
    def read(self) -> bool:
        return self.read_at is not None

    def text_in(self, language: str | None = None) -> str:
        """The notice in `language` (default: the one the reader reads now). Someone who first
        reads pages after the notice was written (so it was written in the site's default) reads it
        in the language of their pages; a notice written before texts were kept reads as written."""
        return self.texts.get(language or translation.get_language()) or self.text


class TaskGrant(UserObjectPermissionBase):
    """A person's object permission on one task (django-guardian, by direct foreign key so a list
    joins it by an indexed key): the requester on her request, a watcher she added."""
    content_object = models.ForeignKey("agentstate.Task", on_delete=models.CASCADE, related_name="grants")

    class Meta(UserObjectPermissionBase.Meta):
        indexes = [models.Index(fields=["user", "permission"])]


class ApprovalGrant(UserObjectPermissionBase):
    """A person's object permission on one approval (django-guardian): each approver it was routed
    to, and a delegate, whose grant ends at `until`."""
    content_object = models.ForeignKey("agentstate.Approval", on_delete=models.CASCADE, related_name="grants")
    until = models.DateTimeField(null=True, blank=True, help_text=_("Empty: for as long as the approval lives."))

    class Meta(UserObjectPermissionBase.Meta):
        indexes = [models.Index(fields=["user", "permission"])]


# The approval policy and delegations live in their own package; importing them here registers them.
from procurement.models.policy import ApprovalPolicy, Delegation, PolicyRule, PolicyStep  # noqa: E402,F401
# Supplier invoices, likewise.
from procurement.models.invoicing import SupplierInvoice, SupplierInvoiceLine  # noqa: E402,F401


# Receiving's tables live with their package (procurement.receiving); imported here so Django finds them.
from procurement.models.receiving import GoodsReceipt, GoodsReceiptLine  # noqa: E402,F401
# Match tolerances (DESIGN §16), versioned like the approval policy.
from procurement.models.tolerance import TolerancePolicy, ToleranceRule  # noqa: E402,F401

# API tokens, one per client (django-rest-knox's token model, with a name).
from procurement.models.tokens import ApiToken  # noqa: E402,F401

# The catalogue's words (items, aliases, accessories, supplier aliases), which the hearing reads.
from procurement.models.catalogue import AccessoryWord, CatalogueItem, ItemAlias, SupplierAlias  # noqa: E402,F401

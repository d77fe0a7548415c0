"""Admin pages for the procurement tables: plain lists for people who need to look; and the
actions that change a purchase task in the admin, each a transition with who and why."""
from types import SimpleNamespace

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.db.models import F, OuterRef, Subquery
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop

from django.contrib.auth import get_user_model
from django.contrib.auth.admin import GroupAdmin as DjangoGroupAdmin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.contrib.auth.models import Group

from agentstate.admin import TaskAdmin as EngineTaskAdmin
from agentstate.codewords import coded_filter, column, task_column, use_labels
from agentstate.errors import DomainError, StaleVersion
from agentstate.models import Task

from procurement.words import labels
from procurement.people import offboarding
from procurement.history import review
from procurement.purchase import services
from procurement import words, workflow
from procurement.models import (BudgetReservation, Department, Membership, Notification, PurchaseRequest, Quote, RequestLine,
                     Supplier, UserPreference)


def _department_of_code(code: str) -> str:
    return labels.department_label(Department.objects.filter(code=code).first()) or code


admin.site.site_header = gettext_lazy("Purchasing admin")
admin.site.site_title = gettext_lazy("Purchasing admin")
# Django's blank choice (the action picker's first line) has no Traditional Chinese in Django's own
# catalogue; naming it here gives it words in ours.
gettext_noop("- Select an option -")

# The engine's tables show their codes in this app's words (agentstate.codewords).
use_labels(state=labels.STATE_LABELS, step=labels.STEP_LABELS, event=labels.EVENT_LABELS,
           receipt=labels.RECEIPT_LABELS, approval=labels.APPROVAL_LABELS, operation=labels.OPERATION_LABELS,
           session=labels.SESSION_LABELS, memory=labels.MEMORY_LABELS, memory_action=labels.MEMORY_ACTION_LABELS,
           kind=labels.TASK_KIND_LABELS, actor=labels.actor_label, item=labels.item_label,
           notice=labels.NOTICE_KIND_LABELS, department=_department_of_code)


@admin.display(description=gettext_lazy("department"), ordering="department__code")
def department_column(obj) -> str:
    """A row's department by its name in the reader's language (「工程部」), as the pages say it."""
    return labels.department_label(obj.department)


department_column.__name__ = "department"


class DepartmentFilter(admin.RelatedFieldListFilter):
    """Departments by their names in the reader's language, not as "ENG Engineering"."""

    def field_choices(self, field, request, model_admin):
        return [(department.pk, labels.department_label(department)) for department in Department.objects.all()]


@admin.register(Department)
class DepartmentAdmin(admin.ModelAdmin):
    list_display = ["code", "name_shown", "cost_centre", "budget_total", "budget_reserved", "manager"]
    search_fields = ["code", "name"]

    @admin.display(description=gettext_lazy("name"), ordering="name")
    def name_shown(self, department):
        return labels.department_label(department)


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ["user", department_column, "role", "approval_limit"]
    list_filter = ["role", ("department", DepartmentFilter)]
    list_select_related = ["user", "department"]


@admin.register(Supplier)
class SupplierAdmin(admin.ModelAdmin):
    list_display = ["name", "tax_id", "email"]
    search_fields = ["name", "tax_id"]


@admin.register(Quote)
class QuoteAdmin(admin.ModelAdmin):
    list_display = [column("item", "item", gettext_lazy("item")), "supplier", "unit_price", "currency", "valid_until",
                    "lead_time_days"]
    list_filter = [("item", coded_filter("item")), "supplier"]
    list_select_related = ["supplier"]


class RequestLineInline(admin.TabularInline):
    model = RequestLine
    extra = 0


@admin.register(PurchaseRequest)
class PurchaseRequestAdmin(admin.ModelAdmin):
    list_display = ["number", department_column, "requester", "budget", "created_at"]
    list_filter = [("department", DepartmentFilter)]
    list_select_related = ["department", "requester"]
    search_fields = ["number", "requester__username"]
    readonly_fields = ["number"]
    inlines = [RequestLineInline]


@admin.register(RequestLine)
class RequestLineAdmin(admin.ModelAdmin):
    list_display = ["request", "position", column("description", "item", gettext_lazy("item")), "quantity",
                    "unit_price"]
    list_select_related = ["request__department"]


@admin.register(BudgetReservation)
class BudgetReservationAdmin(admin.ModelAdmin):
    list_display = [department_column, task_column, "amount", "status", "created_at", "released_at"]
    list_filter = ["status", ("department", DepartmentFilter)]
    list_select_related = ["department", "task"]


@admin.register(Notification)
class NotificationAdmin(admin.ModelAdmin):
    """The outbox, to look at: a send marked `uncertain` is for a person to check, never resent by itself."""
    list_display = ["created_at", column("kind", "notice", gettext_lazy("kind")), "to", "subject", "status", "sent_at",
                    task_column]
    list_filter = ["status", ("kind", coded_filter("notice"))]
    list_select_related = ["task"]
    search_fields = ["to", "subject", "message_id"]
    readonly_fields = ["message_id", "task", "kind", "to", "subject", "body", "status", "created_at", "updated_at",
                       "sent_at"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class SeenVersionField(forms.IntegerField):
    """One chosen task's version as the confirmation page showed it, posted back hidden. Shown again,
    the page carries the version it lists now, never what an earlier page posted."""
    widget = forms.HiddenInput

    def __init__(self, task):
        refused = _("%(task)s: the confirmation page did not say which version you saw; nothing was done. "
                    "Choose the action again.") % {"task": task.pk}
        super().__init__(initial=task.version, error_messages={"required": refused, "invalid": refused})

    def bound_data(self, data, initial):
        return initial


class ReviewReasonForm(forms.Form):
    """The intermediate page of a work-queue action: why, for a recorded outcome the ERP reference,
    and, hidden, the version of each chosen task the page showed (the service refuses one that moved)."""
    reason = forms.CharField(label=gettext_lazy("Why"), max_length=review.MAX_REASON,
                             widget=forms.Textarea(attrs={"rows": 2}))
    external_id = forms.CharField(label=gettext_lazy("ERP reference you looked up"),
                                  max_length=review.MAX_EXTERNAL_ID, required=False)

    def __init__(self, *args, tasks=(), needs_external_id: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        if not needs_external_id:
            del self.fields["external_id"]
        else:
            self.fields["external_id"].required = True
        self.version_fields = {task.pk: f"version-{task.pk}" for task in tasks}
        for task in tasks:
            self.fields[self.version_fields[task.pk]] = SeenVersionField(task)

    def asks_again(self) -> bool:
        """Not yet answered, or the reason (or reference) is wrong: the page is shown (again)."""
        return not self.is_bound or any(name in self.errors for name in ("reason", "external_id"))

    def version_refusals(self) -> list[str]:
        """Why the confirmation is refused as a whole: a task whose version the post does not say."""
        return [message for name in self.version_fields.values() for message in self.errors.get(name, [])]

    def seen_version(self, task) -> int:
        return self.cleaned_data[self.version_fields[task.pk]]


# The work queue's actions (procurement/review.py), offered on tasks in needs_review.
REVIEW_ACTIONS = {
    "review_reconcile": (review.review_reconcile, gettext_lazy("Check the ERP again"),
                         gettext_lazy("The ERP is asked again, by each receipt's key, about what is in doubt; "
                                      "each task goes where the answer sends it, or stays in review with a note.")),
    "review_record_outcome": (review.review_record_outcome, gettext_lazy("Record the outcome"),
                              gettext_lazy("The ERP reference you looked up is recorded on the receipt in doubt, "
                                           "checked by its key where the ERP answers; the task goes on from there.")),
    "review_retry": (review.review_retry, gettext_lazy("Retry the step"),
                     gettext_lazy("The agent runs the failed step again.")),
}


admin.site.unregister(Task)


@admin.register(Task)
class TaskAdmin(EngineTaskAdmin):
    """Read-only like every engine table; its actions fire transitions through the services,
    each asking why on a confirmation page and recording who and why."""

    actions = ["cancel_with_compensation", "review_reconcile", "review_record_outcome", "review_retry"]
    # Few columns, so that the list fits a phone (390 px) beside its actions: the request's number,
    # its state and department in words, who asked, when it last moved.
    list_display = ["request_number", column("state", "state", gettext_lazy("state")), "department",
                    "initiator", "updated_at"]
    list_display_links = ["request_number"]
    list_filter = [("state", coded_filter("state")), ("tenant", coded_filter("department", gettext_lazy("department")))]
    list_select_related = ["initiator"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(
            request_number=F("purchase_request__number"),
            department_name=Subquery(Department.objects.filter(code=OuterRef("tenant")).values("name")[:1]))

    @admin.display(description=gettext_lazy("request number"), ordering="request_number")
    def request_number(self, task):
        """What people call it (REQ-2026-00042); a task without a request by its short id."""
        return task.request_number or str(task.pk)[:8]

    @admin.display(description=gettext_lazy("department"), ordering="tenant")
    def department(self, task):
        return labels.department_label(SimpleNamespace(code=task.tenant, name=task.department_name or task.tenant))

    @admin.action(description=gettext_lazy("Cancel with compensation (asks why first)"), permissions=["view"])
    def cancel_with_compensation(self, request, queryset):
        if not request.user.is_superuser:
            self.message_user(request, _("Only an admin may cancel tasks here."), messages.ERROR)
            return None
        tasks = list(queryset.filter(kind=workflow.KIND).order_by("created_at"))
        form = ReviewReasonForm(request.POST if "apply" in request.POST else None, tasks=tasks)

        def cancel(task):
            services.request_cancel(task_id=task.pk, user=request.user, reason=form.cleaned_data["reason"],
                                    expected_version=form.seen_version(task))
            return _("%(task)s: cancelled; compensation runs next.") % {"task": task.pk}

        return self._ask_then_run(request, tasks, form, cancel, "admin/agentstate/task/cancel.html",
                                  {"title": _("Cancel with compensation")})

    @admin.action(description=gettext_lazy("Work queue: check the ERP again (asks why first)"), permissions=["view"])
    def review_reconcile(self, request, queryset):
        return self._review(request, queryset, "review_reconcile")

    @admin.action(description=gettext_lazy("Work queue: record the outcome (asks for the ERP reference and why)"),
                  permissions=["view"])
    def review_record_outcome(self, request, queryset):
        return self._review(request, queryset, "review_record_outcome")

    @admin.action(description=gettext_lazy("Work queue: retry the step (asks why first)"), permissions=["view"])
    def review_retry(self, request, queryset):
        return self._review(request, queryset, "review_retry")

    def _review(self, request, queryset, action):
        """Asks why on a page listing the tasks at the versions seen; then each goes through its
        service, which checks who may act, the version and the state, and records who and why."""
        service, title, consequence = REVIEW_ACTIONS[action]
        tasks = list(queryset.filter(kind=workflow.KIND, state=workflow.NEEDS_REVIEW).order_by("created_at"))
        if not tasks:
            self.message_user(request, _("None of the chosen tasks is waiting in review."), messages.WARNING)
            return None
        record = action == "review_record_outcome"
        if record and len(tasks) > 1:
            self.message_user(request, _("Record an outcome one task at a time: each has its own ERP reference."),
                              messages.ERROR)
            return None
        form = ReviewReasonForm(request.POST if "apply" in request.POST else None, tasks=tasks,
                                needs_external_id=record)

        def run(task):
            extra = {"external_id": form.cleaned_data["external_id"]} if record else {}
            _after, said = service(user=request.user, task_id=task.pk, expected_version=form.seen_version(task),
                                   reason=form.cleaned_data["reason"], **extra)
            return f"{task.pk}: {said}"

        return self._ask_then_run(request, tasks, form, run, "admin/agentstate/task/review_action.html",
                                  {"title": title, "consequence": consequence, "action": action})

    def _ask_then_run(self, request, tasks, form, run, template, context):
        """The confirmation page (again, until the form is complete), bound to the versions it
        listed: a post missing one refuses the whole. Then `run(task)` for each task, whose own
        service checks who may act, the version and the state, and records who and why; each
        task's outcome, or why it was refused, is said on its own line."""
        if form.asks_again():
            return TemplateResponse(request, template, {
                **self.admin_site.each_context(request), **context, "tasks": tasks, "form": form,
                "opts": self.model._meta, "action_checkbox_name": admin.helpers.ACTION_CHECKBOX_NAME})
        if refusals := form.version_refusals():  # never bound to a version nobody saw
            for refusal in refusals:
                self.message_user(request, refusal, messages.ERROR)
            return None
        for task in tasks:
            try:
                self.message_user(request, run(task))
            except DomainError as refused:
                self.message_user(request, f"{task.pk}: {_refusal_words(refused)}", messages.ERROR)
        return None


def _refusal_words(refused: DomainError) -> str:
    """A refusal as the product says it; a task that moved keeps the services' own words, which
    say in the reader's language where it is now and what moved it (review.what_changed)."""
    return str(refused) if isinstance(refused, StaleVersion) else words.refusal(refused)


class RoleGroupFilter(admin.SimpleListFilter):
    """The user list's group filter, each role group by its name in the reader's language."""
    title = gettext_lazy("group")
    parameter_name = "groups__id__exact"  # the address Django's own groups filter uses

    def lookups(self, request, model_admin):
        return [(group.pk, labels.role_group_label(group.name)) for group in Group.objects.order_by("name")]

    def queryset(self, request, queryset):
        return queryset.filter(groups__id=self.value()) if self.value() else queryset


admin.site.unregister(Group)


@admin.register(Group)
class GroupAdmin(DjangoGroupAdmin):
    """Role groups ("ENG manager") read as their reader says them: 「工程部 · 部門主管」."""
    list_display = ("role_group",)

    @admin.display(description=gettext_lazy("group"), ordering="name")
    def role_group(self, group):
        return labels.role_group_label(group.name)


User = get_user_model()
admin.site.unregister(User)


class LanguageForm(forms.ModelForm):
    language = forms.ChoiceField(label=gettext_lazy("Language"), choices=settings.LANGUAGES)

    class Meta:
        model = UserPreference
        fields = ["language"]


class LanguageInline(admin.StackedInline):
    """The language of a person's pages, mail and notices, set before she ever signs in (someone
    whose first mail must be in Traditional Chinese); she can change it in the page header."""
    model = UserPreference
    form = LanguageForm
    can_delete = False
    verbose_name = verbose_name_plural = gettext_lazy("Language")


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    """Django's user admin plus offboarding and erasure (procurement/offboarding.py), each
    confirmed on a page that says what it does; and the person's language."""

    actions = ["offboard", "erase"]
    inlines = [LanguageInline]
    list_filter = ("is_staff", "is_superuser", "is_active", RoleGroupFilter)
    ACTION_TITLES = {"offboard": gettext_lazy("Offboard"), "erase": gettext_lazy("Erase")}

    @admin.action(description=gettext_lazy("Offboard (account off, tokens revoked, open requests cancelled)"),
                  permissions=["change"])
    def offboard(self, request, queryset):
        return self._confirm(request, queryset, "offboard", offboarding.user_offboard,
                             _("Their account stops and their API tokens are revoked; their conversations become "
                               "readable by admins only; what is remembered about them stops being used; their "
                               "open requests are cancelled."))

    @admin.action(description=gettext_lazy("Erase (offboard, delete their memory, redact what they said)"),
                  permissions=["change"])
    def erase(self, request, queryset):
        return self._confirm(request, queryset, "erase", offboarding.user_erase,
                             _("They are offboarded, everything remembered about them is deleted, every turn of "
                               "their conversations is replaced by “[redacted]”, their notices are deleted and mail "
                               "to them is withdrawn or blanked. This cannot be undone."))

    def _confirm(self, request, queryset, action, service, consequence):
        if "apply" not in request.POST:
            title = _("Confirm: %(action)s") % {"action": self.ACTION_TITLES[action]}
            return TemplateResponse(request, "admin/auth/user/offboard.html", {
                **self.admin_site.each_context(request), "title": title,
                "people": queryset, "consequence": consequence, "action": action, "opts": self.model._meta,
                "action_checkbox_name": admin.helpers.ACTION_CHECKBOX_NAME})
        for person in queryset:
            try:
                service(user=person, by=request.user)
                self.message_user(request, _("%(user)s: done.") % {"user": person.get_username()})
            except DomainError as refused:
                self.message_user(request, f"{person.get_username()}: {_refusal_words(refused)}", messages.ERROR)
        return None

"""Admin for the approval policy: rules with their ordered steps. A change is checked against
every other rule first (overlaps and gaps are refused, naming the rules that collide, in the
admin's language); once saved, the whole policy is frozen into a new version. Old versions stay
readable, for the approvals that name them. Deleting rules is checked the same way: a deletion that
would leave a gap or an overlap is refused on its confirmation page, before anyone clicks."""
from django import forms
from django.contrib import admin, messages
from django.contrib.admin.actions import delete_selected as django_delete_selected
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from agentstate.codewords import column

from procurement.admin.records import DepartmentFilter, department_column
from procurement.models.policy import ApprovalPolicy, Delegation, PolicyRule, PolicyStep
from procurement.policy.rules import (RuleDeletionRefused, collisions, current_rules, policy_publish, policy_rules_delete, removal_check,
                    rule_json)


class PolicyStepForm(forms.ModelForm):
    class Meta:
        model = PolicyStep
        fields = ["position", "role", "user", "mode", "within_limit", "escalate_after", "backup_role"]

    def clean(self):
        data = super().clean()
        if bool(data.get("role")) == bool(data.get("user")):
            raise ValidationError(_("Name either a role or a person for each step, not both and not neither."))
        if data.get("escalate_after") and not data.get("backup_role"):
            self.add_error("backup_role", _("Say who the step is offered to when it waits too long."))
        return data


class PolicyStepInline(admin.TabularInline):
    model = PolicyStep
    form = PolicyStepForm
    extra = 0
    min_num = 1
    validate_min = True


class PolicyRuleForm(forms.ModelForm):
    class Meta:
        model = PolicyRule
        fields = ["name", "department", "category", "supplier", "amount_over", "amount_up_to"]

    def clean(self):
        data = super().clean()
        over, up_to = data.get("amount_over"), data.get("amount_up_to")
        if over is not None and up_to is not None and up_to <= over:
            self.add_error("amount_up_to", _("The upper amount must be above the lower one."))
        if self.errors:
            return data
        proposed = PolicyRule(pk=self.instance.pk, **{k: data.get(k) for k in self._meta.fields})
        others = [r for r in current_rules() if r["name"] != self.instance.name or not self.instance.pk]
        found = collisions(others + [rule_json(proposed, steps=[])])
        mine = [c for c in found if proposed.name in (c.first, c.second)]
        if mine:
            raise ValidationError([c.message() for c in mine])
        return data


@admin.action(permissions=["delete"], description=gettext_lazy("Delete selected %(verbose_name_plural)s"))
def delete_selected(modeladmin, request, queryset):
    """Django's bulk delete, its confirmation page saying what the deletion would do to the policy.
    A deletion refused only at the last moment (another admin's change came first) is answered in words."""
    try:
        with transaction.atomic():
            response = django_delete_selected(modeladmin, request, queryset)
    except RuleDeletionRefused as refused:
        modeladmin.message_user(request, str(refused), messages.ERROR)
        return None
    if isinstance(response, TemplateResponse):
        response.context_data["removal"] = removal_check({rule.name for rule in queryset})
    return response


@admin.register(PolicyRule)
class PolicyRuleAdmin(admin.ModelAdmin):
    form = PolicyRuleForm
    inlines = [PolicyStepInline]
    list_display = ["name", department_column, column("category", "item", gettext_lazy("category")), "supplier",
                    "amount_over", "amount_up_to"]
    list_filter = [("department", DepartmentFilter)]
    list_select_related = ["department", "supplier"]
    actions = [delete_selected]

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        self._published(request, policy_publish(by=request.user))

    def _published(self, request, policy):
        self.message_user(request, _("Approval policy v%(version)s is now in force; open approvals keep the "
                                     "version they opened with.") % {"version": policy.version})

    def get_deleted_objects(self, objs, request):
        """A deletion that would open a gap or an overlap counts as protected, so Django's delete page
        and bulk action offer no "Yes, I'm sure" and delete nothing when posted."""
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        return deleted, counts, perms_needed, [*protected, *removal_check({rule.name for rule in objs}).refusals()]

    def render_delete_form(self, request, context):
        context["removal"] = removal_check({context["object"].name})
        return super().render_delete_form(request, context)

    def delete_view(self, request, object_id, extra_context=None):
        try:
            return super().delete_view(request, object_id, extra_context)
        except RuleDeletionRefused as refused:
            self.message_user(request, str(refused), messages.ERROR)
            return HttpResponseRedirect(request.get_full_path())

    def delete_model(self, request, obj):
        self._delete(request, {obj.name})

    def delete_queryset(self, request, queryset):
        self._delete(request, set(queryset.values_list("name", flat=True)))

    def _delete(self, request, names):
        policy, removal = policy_rules_delete(names=names, by=request.user)
        self._published(request, policy)
        for warning in removal.warnings():
            self.message_user(request, warning, messages.WARNING)


@admin.register(ApprovalPolicy)
class ApprovalPolicyAdmin(admin.ModelAdmin):
    """Versions are history: read, never edited."""
    list_display = ["version", "created_by", "created_at"]
    readonly_fields = ["version", "rules", "created_by", "created_at"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Delegation)
class DelegationAdmin(admin.ModelAdmin):
    list_display = ["delegator", "delegate", "starts", "ends"]
    search_fields = ["delegator__username", "delegate__username"]

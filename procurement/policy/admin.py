"""Admin for the approval policy: rules with their ordered steps. A change is checked against
every other rule first (overlaps and gaps are refused, naming the rules that collide, in the
admin's language); once saved, the whole policy is frozen into a new version. Old versions stay
readable, for the approvals that name them."""
from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from .models import ApprovalPolicy, Delegation, PolicyRule, PolicyStep
from .rules import collisions, current_rules, policy_publish, rule_json


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


@admin.register(PolicyRule)
class PolicyRuleAdmin(admin.ModelAdmin):
    form = PolicyRuleForm
    inlines = [PolicyStepInline]
    list_display = ["name", "department", "category", "supplier", "amount_over", "amount_up_to"]
    list_filter = ["department"]

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        policy = policy_publish(by=request.user)
        self.message_user(request, _("Approval policy v%(version)s is now in force; open approvals keep the "
                                     "version they opened with.") % {"version": policy.version})

    def delete_model(self, request, obj):
        super().delete_model(request, obj)
        policy_publish(by=request.user)

    def delete_queryset(self, request, queryset):
        super().delete_queryset(request, queryset)
        policy_publish(by=request.user)


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

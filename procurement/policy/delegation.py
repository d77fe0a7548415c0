"""Delegation (代理人): a person names who stands in for them, for a range of dates (Asia/Taipei,
both ends included). It ends by itself; deleting it ends it early. Bad input is refused field by
field, in the reader's language, and nothing is written."""
from datetime import date

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from agentstate.errors import DomainError, NotFound
from agentstate.said import say

from procurement.infra.queueing import notify_delegations_on_commit
from procurement.selectors.delegations import forget_delegations
from procurement.selectors.roles import approvers
from procurement.models.policy import Delegation
from django.db.models import Q


def delegation_errors(*, delegator, delegate, starts: date | None, ends: date | None) -> dict[str, list[str]]:
    """What is wrong with this delegation, by field; empty when nothing is."""
    errors: dict[str, list[str]] = {}
    today = timezone.localdate()
    if delegate is not None and delegate.pk == delegator.pk:
        errors.setdefault("delegate", []).append(_("You cannot delegate to yourself."))
    if delegate is not None and not delegate.is_active:
        errors.setdefault("delegate", []).append(_("That person's account is inactive."))
    elif delegate is not None and delegate.pk != delegator.pk and not approvers().filter(pk=delegate.pk).exists():
        errors.setdefault("delegate", []).append(
            _("%(name)s does not decide approvals (no manager, director or finance role), so cannot decide yours; "
              "choose an approver.") % {"name": delegate.get_username()})
    if starts and starts < today:
        errors.setdefault("starts", []).append(_("A delegation cannot start in the past."))
    if ends and ends < today:
        errors.setdefault("ends", []).append(_("A delegation cannot end in the past."))
    if starts and ends and ends < starts:
        errors.setdefault("ends", []).append(_("The last day must not be before the first."))
    if starts and ends and not errors:
        clash = Delegation.objects.filter(delegator=delegator, starts__lte=ends, ends__gte=starts).first()
        if clash is not None:
            errors.setdefault("starts", []).append(
                _("You already have a delegation to %(delegate)s from %(starts)s to %(ends)s; the dates may not "
                  "overlap.") % {"delegate": clash.delegate.get_username(), "starts": clash.starts,
                                 "ends": clash.ends})
    if starts and ends and delegate is not None and not errors:
        # Each standing in for the other on the same day: nobody would decide either's approvals.
        back = Delegation.objects.filter(delegator=delegate, delegate=delegator, starts__lte=ends,
                                         ends__gte=starts).first()
        if back is not None:
            errors.setdefault("delegate", []).append(
                _("%(name)s has delegated to you from %(starts)s to %(ends)s; two people cannot stand in for each "
                  "other on the same days. Choose someone else or other dates.")
                % {"name": delegate.get_username(), "starts": back.starts, "ends": back.ends})
    return errors


def delegation_create(*, delegator, delegate_username: str, starts: date, ends: date) -> Delegation:
    delegate = get_user_model().objects.filter(username=delegate_username).first()
    with transaction.atomic():
        # One delegator's delegations are written one at a time, so two overlapping ones cannot both
        # pass; the delegate's row too (in id order), so two people delegating to each other at the
        # same moment do not both pass either.
        people = [delegator.pk] + ([delegate.pk] if delegate is not None else [])
        list(get_user_model().objects.select_for_update().filter(pk__in=people).order_by("pk"))
        errors = delegation_errors(delegator=delegator, delegate=delegate, starts=starts, ends=ends)
        if delegate is None:
            errors.setdefault("delegate", []).insert(0, _("No such person: %(name)s.") % {"name": delegate_username})
        if errors:
            raise DomainError(said=say("delegation_not_saved"), errors=errors)
        made = Delegation.objects.create(delegator=delegator, delegate=delegate, starts=starts, ends=ends)
        notify_delegations_on_commit()  # the delegate is told
    forget_delegations()
    return made


def delegation_delete(*, user, delegation_id) -> None:
    """End a delegation (only the person who made it, or an admin)."""
    rows = Delegation.objects.filter(pk=delegation_id) if str(delegation_id).isdigit() else Delegation.objects.none()
    if not user.is_superuser:
        rows = rows.filter(delegator=user)
    if not rows.delete()[0]:
        raise NotFound(said=say("no_such_delegation"))
    forget_delegations()


def delegations_of(user):
    """The delegations `user` made, and those naming them as the delegate, the running ones first."""
    return (Delegation.objects.filter(Q(delegator=user) | Q(delegate=user))
            .select_related("delegator", "delegate").order_by("-ends", "pk"))

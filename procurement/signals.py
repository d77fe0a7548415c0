"""Grants that follow records the engine or the admin write (DESIGN §9): an approval's route as
it opens, and a membership's role as a group. The engine knows nothing of procurement, so the
procurement side listens."""
from django.db.models.signals import m2m_changed, post_delete, post_save
from django.dispatch import receiver

from agentstate.models import Approval

from procurement.models import Membership
from procurement.selectors.grants import grant_approval_to, groups_sync, revoke_approval_from


@receiver(m2m_changed, sender=Approval.approvers.through)
def approvers_granted(sender, instance, action, reverse, model, pk_set, **kwargs):
    if reverse or action not in ("post_add", "post_remove"):
        return
    if pk_set:
        (grant_approval_to if action == "post_add" else revoke_approval_from)(instance, pk_set)


@receiver(post_save, sender=Membership)
@receiver(post_delete, sender=Membership)
def role_groups(sender, instance, **kwargs):
    groups_sync(instance.user)

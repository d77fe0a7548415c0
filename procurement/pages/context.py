"""Navigation by role, computed only when a template asks."""
from functools import cached_property

from procurement.models import Membership
from procurement.notices.selectors import notices_unread_count


class Nav:
    def __init__(self, user):
        self.user = user

    @cached_property
    def is_decider(self) -> bool:
        return self.user.is_authenticated and Membership.objects.filter(
            user=self.user, role__in=[Membership.Role.MANAGER, Membership.Role.DIRECTOR]).exists()

    @cached_property
    def unread_notices(self) -> int:
        return notices_unread_count(self.user)


def nav(request):
    return {"nav": Nav(request.user)}

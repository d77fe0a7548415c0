"""Navigation by role, computed only when a template asks."""
from functools import cached_property

from procurement import selectors
from procurement.notices.selectors import notices_unread_count


class Nav:
    def __init__(self, user):
        self.user = user

    @cached_property
    def roles(self) -> set[str]:
        return selectors.roles_held(self.user)

    @cached_property
    def is_decider(self) -> bool:
        return selectors.is_decider(self.user, self.roles)

    @cached_property
    def is_accounts_payable(self) -> bool:
        return selectors.is_accounts_payable(self.user, self.roles)

    @cached_property
    def unread_notices(self) -> int:
        return notices_unread_count(self.user)

    @cached_property
    def may_review(self) -> bool:
        """Admins, directors and managers act on the work queue (the view checks each task again)."""
        return self.user.is_authenticated and self.user.is_active and (
            self.user.is_superuser or bool(self.roles & set(selectors.DECIDING)))


def nav(request):
    return {"nav": Nav(request.user)}

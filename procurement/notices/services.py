"""What a person does with their notices: mark one, or all, as read."""
from django.utils import timezone

from agentstate.errors import NotFound
from agentstate.said import say

from procurement.models import Notice


def notice_mark_read(*, user, notice_id: int) -> Notice:
    """Mark the caller's own notice read (again is harmless); anyone else's does not exist."""
    notice = Notice.objects.filter(pk=notice_id, recipient=user).first()
    if notice is None:
        raise NotFound(said=say("no_such", thing="notice"))
    if notice.read_at is None:
        Notice.objects.filter(pk=notice.pk, read_at__isnull=True).update(read_at=timezone.now())
        notice.refresh_from_db(fields=["read_at"])
    return notice


def notices_mark_all_read(*, user) -> int:
    return Notice.objects.filter(recipient=user, read_at__isnull=True).update(read_at=timezone.now())

"""What a delegate is told: that someone named them their delegate (when it is made), and that they
stand in from today (on its first day, by the recovery pass). Each once, by its source key
(`delegation:<id>:made`, `delegation:<id>:starts`), like every other notice; a delegation made on
its own first day is told once, as made."""
from datetime import timedelta

from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from procurement.models import NoticeSource
from procurement.models.policy import Delegation
from procurement.notices.derive import Delivery, _handle
from procurement.notices.render import absolute, display_name
from procurement.people.language import language_of

BATCH = 200


def delegation_notices(today=None) -> int:
    """Tell delegates of the delegations made lately and of those that start today (or started
    while nobody ran the pass). Returns how many notices were written."""
    today = today or timezone.localdate()
    cutoff = timezone.now() - timedelta(seconds=settings.NOTICE_LOOKBACK_SECONDS)
    running = Delegation.objects.select_related("delegator", "delegate")
    made = list(running.filter(created_at__gte=cutoff, ends__gte=today).order_by("pk")[:BATCH])
    starting = [d for d in running.filter(starts__lte=today, ends__gte=today).order_by("pk")[:BATCH]
                if timezone.localdate(d.created_at) < d.starts]
    wanted = [(f"delegation:{d.pk}:made", d, "delegation_made") for d in made]
    wanted += [(f"delegation:{d.pk}:starts", d, "delegation_started") for d in starting]
    done = set(NoticeSource.objects.filter(key__in=[key for key, _d, _k in wanted]).values_list("key", flat=True))
    return sum(_handle(key, None, lambda d=d, key=key, kind=kind: [_delivery(d, key, kind)])
               for key, d, kind in wanted if key not in done)


def _delivery(delegation: Delegation, key: str, kind: str) -> Delivery:
    context = {"delegator": display_name(delegation.delegator), "starts": delegation.starts,
               "ends": delegation.ends, "today": delegation.starts <= timezone.localdate()}
    return Delivery(kind, None, key, language_of(delegation.delegate), absolute(reverse("delegations")), context,
                    user=delegation.delegate)

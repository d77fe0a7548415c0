"""Email through an outbox: queued in the deciding transaction, sent at most once."""
import logging
import uuid

from django.conf import settings
from django.core.mail import EmailMessage
from django.db.models import Q
from django.utils import timezone

from agentstate import trace

from procurement.infra.queueing import dispatch_at
from procurement.models import Notification

log = logging.getLogger(__name__)


def notification_queue(*, task_id, to: str, subject: str, body: str, key: str, kind: str = "",
                       coalesce: str = "") -> Notification:
    """Queue a message once per `key` (a retry of the deciding step queues nothing new).

    With `coalesce` (one group: a person and an approval step), a newer message replaces the
    group's messages still waiting (`superseded`, never sent), and after one was sent the next
    waits until MAIL_COALESCE_SECONDS after it: as versions follow each other quickly the person
    gets the first at once and then only the latest, not one mail for each."""
    message_id = message_id_of(key)
    existing = Notification.objects.filter(message_id=message_id).first()
    if existing is not None:
        return existing
    send_after = _coalesced(coalesce, message_id) if coalesce else None
    notification, _ = Notification.objects.get_or_create(
        message_id=message_id, defaults={"task_id": task_id, "to": to, "subject": subject, "body": body, "kind": kind,
                                         "coalesce_key": coalesce, "send_after": send_after})
    if send_after is not None:
        dispatch_at(send_after)
    return notification


def notifications_queue(messages: list[dict]) -> None:
    """notification_queue for several messages (each a dict of its arguments) in one insert; a
    key already queued is left as it is. Coalesced ones (`coalesce`) are queued one by one."""
    for m in messages:
        if m.get("coalesce"):
            notification_queue(**m)
    plain = [m for m in messages if not m.get("coalesce")]
    if plain:
        Notification.objects.bulk_create(
            [Notification(message_id=message_id_of(m["key"]), task_id=m["task_id"], to=m["to"], subject=m["subject"],
                          body=m["body"], kind=m.get("kind", "")) for m in plain], ignore_conflicts=True)


def message_id_of(key: str) -> str:
    """The Message-ID of the mail queued under `key`: the same key, the same message."""
    domain = settings.DEFAULT_FROM_EMAIL.rsplit("@", 1)[-1]
    return f"<{uuid.uuid5(uuid.NAMESPACE_URL, key)}@{domain}>"

def _coalesced(group: str, message_id: str):
    """Replace the group's waiting messages; when the new one may go (None: at once)."""
    now = timezone.now()
    window = timezone.timedelta(seconds=settings.MAIL_COALESCE_SECONDS)
    # One group's messages are queued one at a time: two passes do not both keep theirs.
    recent = Q(status=Notification.Status.QUEUED) | Q(created_at__gte=now - window) | Q(sent_at__gte=now - window)
    rows = list(Notification.objects.select_for_update().filter(recent, coalesce_key=group)
                .exclude(message_id=message_id))
    waiting = [n for n in rows if n.status == Notification.Status.QUEUED]
    if waiting and Notification.objects.filter(pk__in=[n.pk for n in waiting], status=Notification.Status.QUEUED
                                               ).update(status=Notification.Status.SUPERSEDED):
        held = [n.send_after for n in waiting]
        return None if None in held else min(held)  # no later than the first of them would have gone
    gone = [n.sent_at or n.updated_at for n in rows if n.status in (Notification.Status.SENDING, Notification.Status.SENT)]
    return max(gone) + window if gone and max(gone) + window > now else None


def outbox_dispatch(*, limit: int = 50, now=None) -> int:
    """Send queued messages that are due. Each is claimed by a conditional update before the send,
    so two dispatchers never send one message twice; a crash mid-send leaves it `sending`."""
    sent = 0
    due = Q(send_after__isnull=True) | Q(send_after__lte=now or timezone.now())
    for pk in Notification.objects.filter(due, status=Notification.Status.QUEUED).values_list("pk", flat=True)[:limit]:
        if not Notification.objects.filter(pk=pk, status=Notification.Status.QUEUED).update(
                status=Notification.Status.SENDING):
            continue
        note = Notification.objects.select_related("task").get(pk=pk)
        try:
            EmailMessage(note.subject, note.body, to=[note.to], headers=mail_headers(note)).send()
        except Exception:
            # The server may have taken it before failing: a person decides whether to resend.
            Notification.objects.filter(pk=pk).update(status=Notification.Status.UNCERTAIN)
            log.exception("sending %s failed; marked uncertain, not resent", note.message_id)
            continue
        Notification.objects.filter(pk=pk).update(status=Notification.Status.SENT, sent_at=timezone.now())
        sent += 1
    return sent


def outbox_mark_stuck(*, older_than_seconds: int) -> int:
    """Messages left `sending` by a crash: we cannot tell if they went, so say so."""
    cutoff = timezone.now() - timezone.timedelta(seconds=older_than_seconds)
    return Notification.objects.filter(Q(status=Notification.Status.SENDING), updated_at__lt=cutoff).update(
        status=Notification.Status.UNCERTAIN)


def mail_headers(note: Notification) -> dict:
    """Message-ID, and the trace of the request the mail is about (W3C `traceparent`, as on its
    ERP calls; `X-Trace-Id` for people reading headers)."""
    headers = {"Message-ID": note.message_id}
    trace_id = note.task.trace_id if note.task_id else ""  # a delegation's mail is about no request
    if trace.is_trace_id(trace_id):
        headers |= {"traceparent": trace.traceparent(trace_id), "X-Trace-Id": trace_id}
    return headers

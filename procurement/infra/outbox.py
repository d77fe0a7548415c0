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
    """Queue a message once per `key` (a retry of the deciding step queues nothing new); with
    `coalesce`, as notifications_queue says."""
    notifications_queue([{"task_id": task_id, "to": to, "subject": subject, "body": body, "key": key, "kind": kind,
                          "coalesce": coalesce}])
    return Notification.objects.get(message_id=message_id_of(key))


def notifications_queue(messages: list[dict]) -> None:
    """Queue several messages (each a dict of notification_queue's arguments) in one insert; a key
    already queued is left as it is.

    With `coalesce` (one group: a person and an approval step), a newer message replaces the
    group's messages still waiting (`superseded`, never sent), and after one was sent the next
    waits until MAIL_COALESCE_SECONDS after it: as versions follow each other quickly the person
    gets the first at once and then only the latest, not one mail for each."""
    if not messages:
        return
    ids = {m["key"]: message_id_of(m["key"]) for m in messages}
    groups = {m["coalesce"] for m in messages if m.get("coalesce")}
    held = _coalesced(groups, set(ids.values())) if groups else {}
    Notification.objects.bulk_create(
        [Notification(message_id=ids[m["key"]], task_id=m["task_id"], to=m["to"], subject=m["subject"], body=m["body"],
                      kind=m.get("kind", ""), coalesce_key=m.get("coalesce", ""),
                      send_after=held.get(m.get("coalesce"))) for m in messages], ignore_conflicts=True)
    if any(held.values()):
        dispatch_at(min(when for when in held.values() if when))


def message_id_of(key: str) -> str:
    """The Message-ID of the mail queued under `key`: the same key, the same message."""
    domain = settings.DEFAULT_FROM_EMAIL.rsplit("@", 1)[-1]
    return f"<{uuid.uuid5(uuid.NAMESPACE_URL, key)}@{domain}>"

def _coalesced(groups: set, message_ids: set) -> dict:
    """Replace the groups' waiting messages; when each group's new one may go (None: at once)."""
    now = timezone.now()
    window = timezone.timedelta(seconds=settings.MAIL_COALESCE_SECONDS)
    # One group's messages are queued one at a time: two passes do not both keep theirs.
    recent = Q(status=Notification.Status.QUEUED) | Q(created_at__gte=now - window) | Q(sent_at__gte=now - window)
    rows = list(Notification.objects.select_for_update().filter(recent, coalesce_key__in=groups)
                .exclude(message_id__in=message_ids))
    waiting = [n for n in rows if n.status == Notification.Status.QUEUED]
    if waiting:
        Notification.objects.filter(pk__in=[n.pk for n in waiting]).update(status=Notification.Status.SUPERSEDED)
    held = {}
    for group in groups:
        replaced = [n.send_after for n in waiting if n.coalesce_key == group]
        gone = [n.sent_at or n.updated_at for n in rows if n.coalesce_key == group
                and n.status in (Notification.Status.SENDING, Notification.Status.SENT)]
        if replaced:  # no later than the first of them would have gone
            held[group] = None if None in replaced else min(replaced)
        else:
            held[group] = max(gone) + window if gone and max(gone) + window > now else None
    return held


# Files a message of a kind carries, made when it is sent (the supplier's purchase order carries its
# PDF): kind -> function(notification) -> [(filename, bytes, mimetype)]. The app registers them
# (procurement.apps), since what makes the files stands above this floor.
ATTACHMENTS: dict = {}


def _attached(note: Notification) -> list:
    make = ATTACHMENTS.get(note.kind)
    if make is None:
        return []
    try:
        return list(make(note))
    except Exception:
        # The body already says everything the file would: the message goes without it rather than not at all.
        log.exception("the attachment of %s could not be made; sent without it", note.message_id)
        return []


def outbox_dispatch(*, limit: int = 50, now=None) -> int:
    """Send queued messages that are due. Each is claimed by a conditional update before the send,
    so two dispatchers never send one message twice; a crash mid-send leaves it `sending`."""
    sent = 0
    due = Q(send_after__isnull=True) | Q(send_after__lte=now or timezone.now())
    # A queued message is never rewritten but for its status: the row read here is the one claimed.
    for note in Notification.objects.filter(due, status=Notification.Status.QUEUED).select_related("task")[:limit]:
        pk = note.pk
        if not Notification.objects.filter(pk=pk, status=Notification.Status.QUEUED).update(
                status=Notification.Status.SENDING):
            continue
        message = EmailMessage(note.subject, note.body, to=[note.to], headers=mail_headers(note))
        for name, content, mimetype in _attached(note):
            message.attach(name, content, mimetype)
        try:
            message.send()
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

"""From the task's event log to notices, by a small idempotent pass.

Each event that concerns a person (approve, reject, return, confirm, expire, request_approval,
entering needs_review, an admin's rewind, fork or replay) is handled once: a `NoticeSource` row keyed by the event is written in
the same transaction as its in-page notices, outbox mail and (for a return) the agent's
question in the requester's chat. Two passes racing on one event: the second one finds the first
holding it (or done) and writes nothing, without waiting for its commit.

The pass runs on commit after the steps and services that fire those events, and again from
the recovery pass as a safety net, so no notice depends on the engine's hot path and none is
sent twice.
"""
import logging
from dataclasses import dataclass, field
from datetime import timedelta
from decimal import Decimal

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction
from django.db.models import F, Q
from django.utils import timezone
from django.utils.functional import lazy
from django.utils.translation import get_language

from agentstate.models import Approval, Task, TaskEvent
from agentstate.said import of_event

from procurement import workflow
from procurement.words.labels import actor_label, items_summary_lazy
from procurement.people.language import language_of, languages_of
from procurement.words.people import approvers_words, on_behalf_words, person_label
from procurement.models import Notice, NoticeSource, Notification
from procurement.infra.outbox import notifications_queue
from procurement.policy.routing import OnlyTheRequester
from procurement.purchase.requests import active_stand_ins, request_now
from procurement.words import render
from procurement.notices.render import (approval_url, chat_url, department_words, display_name, notice_render, request_facts,
                     review_url, scope_summary)
from procurement.notices.returned import notice_post, returned_question_post
from procurement.notices.supplier import SUPPLIER_LANGUAGE, supplier_facts
from procurement.invoicing.variance_words import variance_words
from procurement.notices.travel import TRAVEL_KINDS, travel_context
from procurement.models.policy import Delegation
from agentstate.models import ApprovalDecision

log = logging.getLogger(__name__)

# Decisions and a new approval are told by their event; the outcomes by the state they reach,
# whichever event got there (the agent's confirm, a person's record_outcome or cancel_too_late,
# give_up after the last retry).
EVENT_KINDS = {"approve": "approved", "reject": "rejected", "return": "returned", "request_approval": "approval_new",
               "approve_step": "approval_new", "escalate_approval": "approval_escalated",
               "receive_goods": "goods_received", "invoice_exception": "approval_new", "close_short": "closed_short",
               **TRAVEL_KINDS}
# After the PO, an approval is an invoice exception's (procurement.invoicing.exceptions): its decision is
# accounts payable's and the supplier's business, not news of her request.
INVOICE_DECISIONS = ("approve", "reject", "expire")
STATE_KINDS = {workflow.CONFIRMED: "po_issued", workflow.NEEDS_REVIEW: "needs_review", workflow.EXPIRED: "expired",
               workflow.CANCELLED: "cancelled"}
# The outcomes she hears of in her conversation too (a return is posted there as its question).
CHAT_KINDS = ("approved", "rejected", "po_issued", "expired")
# Notices that ask someone to act, retired once nothing is left to do (_retire_notices).
APPROVER_KINDS = ("approval_new", "approval_reminder", "approval_escalated")
LEAVES_REVIEW = Q(from_state=workflow.NEEDS_REVIEW) & ~Q(to_state=workflow.NEEDS_REVIEW)
CATCH_UP_BATCH = 200
DECISION_EVENTS = ("approve", "reject", "return", "approve_step")


@dataclass
class Delivery:
    kind: str
    task: Task | None  # None: about no request (a delegation)
    key: str
    language: str
    link: str
    context: dict = field(default_factory=dict)
    user: object = None     # an in-page notice for this person, and mail to their address
    email: str = ""         # mail only (the supplier)
    in_chat: bool = False   # told in her conversation about the request too (notices.returned.notice_post)
    coalesce: str = ""      # mail replaced by a newer one of this group while it waits (infra.outbox)


def notices_for_task(task_id) -> int:
    """Handle the task's events nobody turned into notices yet. Returns how many were written."""
    events = list(_unnoticed(task_id=task_id))
    written = sum(_handle_event(event) for event in events)
    # A decision a delegate made: told to the person they stood in for (a decision that moved
    # nothing yet is told by the recovery pass's catch-up).
    if any(event.event in DECISION_EVENTS for event in events):
        written += _decisions_for_others(ApprovalDecision.objects.filter(approval__task_id=task_id))
    return written


def notices_catch_up() -> int:
    """The safety net (recovery pass): recent events of any task that still have no notices."""
    return (sum(_handle_event(event) for event in _unnoticed()[:CATCH_UP_BATCH])
            + _decisions_for_others(ApprovalDecision.objects.all()))


def _decisions_for_others(decisions) -> int:
    """Each decision a delegate made in someone's name, told to that person once (`behalf:<id>`)."""
    cutoff = timezone.now() - timedelta(seconds=settings.NOTICE_LOOKBACK_SECONDS)
    rows = list(decisions.filter(on_behalf_of__isnull=False, at__gte=cutoff)
                .select_related("approval__task__initiator", "decided_by", "on_behalf_of")
                .order_by("pk")[:CATCH_UP_BATCH])
    done = set(NoticeSource.objects.filter(key__in=[f"behalf:{d.pk}" for d in rows]).values_list("key", flat=True))
    return sum(_handle(f"behalf:{d.pk}", None, lambda d=d: [_behalf_delivery(d)])
               for d in rows if f"behalf:{d.pk}" not in done)


def _behalf_delivery(decision: ApprovalDecision) -> Delivery:
    approval = decision.approval
    person = decision.on_behalf_of
    context = request_facts(approval.task) | {
        "summary": scope_summary(approval.scope), "total": Decimal(approval.scope["total"]),
        "delegate": display_name(decision.decided_by), "decision": decision.decision, "comment": decision.comment,
        "step": decision.step + 1, "steps": len(approval.chain or ()) or 1,
    }
    return Delivery("decided_for_you", approval.task, f"behalf:{decision.pk}", language_of(person),
                    approval_url(approval.pk), context, user=person)


def approval_reminders(now=None) -> int:
    """Remind the approvers once when an approval is about to expire (APPROVAL_REMINDER_SECONDS).
    An approval opened with less time than that is not reminded: its first notice says when."""
    now = now or timezone.now()
    window = timedelta(seconds=settings.APPROVAL_REMINDER_SECONDS)
    approvals = list(Approval.objects.filter(status=Approval.Status.PENDING, expires_at__gt=now,
                                             expires_at__lte=now + window, task__kind=workflow.KIND)
                     .select_related("task__initiator"))
    done = set(NoticeSource.objects.filter(key__in=[f"reminder:{a.pk}" for a in approvals])
               .values_list("key", flat=True))
    made = 0
    for approval in approvals:
        key = f"reminder:{approval.pk}"
        if key not in done and approval.expires_at - approval.created_at > window:
            made += _handle(key, None, lambda a=approval: _approver_deliveries(a, key, "approval_reminder"))
    return made


def _unnoticed(*, task_id=None):
    concerns = (Q(event__in=list(EVENT_KINDS)) | (Q(to_state__in=list(STATE_KINDS)) & ~Q(from_state=F("to_state")))
                | LEAVES_REVIEW)
    events = TaskEvent.objects.filter(concerns, task__kind=workflow.KIND, notice_source__isnull=True)
    cutoff = timezone.now() - timedelta(seconds=settings.NOTICE_LOOKBACK_SECONDS)
    if task_id is not None:
        return events.filter(task_id=task_id, at__gte=cutoff).order_by("id")
    # Ids grow with time: the last event before the cutoff, found walking the primary key back
    # from the newest, bounds the scan to the lookback window however long the log is.
    floor = TaskEvent.objects.filter(at__lt=cutoff).order_by("-id").values_list("id", flat=True).first() or 0
    return events.filter(id__gt=floor, at__gte=cutoff).order_by("id")


def _handle_event(event: TaskEvent) -> int:
    return _handle(f"event:{event.pk}", event, lambda: _event_deliveries(event))


def _handle(key: str, event: TaskEvent | None, build) -> int:
    try:
        with transaction.atomic():
            if not _source_claim(key, event):
                log.info("notices for %s are another pass's", key)
                return 0
            deliveries = build()
            notices, mail = [], []
            for delivery in deliveries:
                _deliver(delivery, notices, mail)
            # One insert for the notices and one for the mail, however many people hear of it.
            Notice.objects.bulk_create(notices)
            notifications_queue(mail)
    except IntegrityError:
        log.info("notices for %s were written by another pass", key)
        return 0
    return len(deliveries)


def _source_claim(key: str, event: TaskEvent | None) -> bool:
    """Write the source row, unless another pass wrote it or is writing it now: on PostgreSQL a pass
    never waits for another's commit (a lock on the key, tried, not waited for, held to the end of the
    transaction). Should that one roll back, the recovery pass's catch-up writes what it left."""
    if connection.vendor != "postgresql":
        NoticeSource.objects.create(key=key, event=event)
        return True
    with connection.cursor() as cursor:
        cursor.execute(f"INSERT INTO {NoticeSource._meta.db_table} (key, event_id, created_at) "
                       "SELECT %s, %s, now() WHERE pg_try_advisory_xact_lock(hashtextextended(%s, 0)) "
                       "ON CONFLICT DO NOTHING RETURNING id", [key, event.pk if event is not None else None, key])
        return cursor.fetchone() is not None


def _deliver(d: Delivery, notices: list, mail: list):
    """What `d` tells, added to `notices` (rows to insert) and `mail` (messages to queue); a post
    in her conversation, when it has one, is written at once."""
    if d.user is not None and not d.user.is_active:
        return  # a person who left reads no page and gets no mail (offboarding, erasure)
    context = d.context | {"link": d.link}
    rendered = notice_render(d.kind, d.language, context)
    if d.user is not None:
        # In every site language too: the page shows the one its reader reads then (the mail has gone
        # in the recipient's language, or the site's default when they had none yet).
        texts = {code: (rendered if code == d.language else notice_render(d.kind, code, context)).text
                 for code, _name in settings.LANGUAGES}
        notices.append(Notice(recipient=d.user, kind=d.kind, task=d.task, text=rendered.text, texts=texts,
                              url=d.link, key=f"{d.key}:{d.user.pk}"))
        if d.in_chat:
            notice_post(task=d.task, kind=d.kind, texts=texts, language=d.language)
    to = d.email or (d.user.email if d.user is not None else "")
    if to:
        mail.append({"task_id": d.task.pk if d.task is not None else None, "to": to, "subject": rendered.subject,
                     "body": rendered.body, "key": f"{d.key}:{to}", "kind": d.kind,
                     "coalesce": f"{d.coalesce}:{to}" if d.coalesce else ""})


# -- what each event tells whom ----------------------------------------------------------------

def _retire_notices(event: TaskEvent):
    """Notices that asked someone to act leave the bell (marked read, still listed) once nothing
    is left to do: approval notices after a decision, a new version or the end of the task; the
    work queue's once the request left review, whoever settled it."""
    ends_a_wait = event.from_state == workflow.AWAITING_APPROVAL and event.event != "escalate_approval"
    kinds = [*(APPROVER_KINDS if ends_a_wait or event.event == "request_approval" else ()),
             *(("review_new",) if event.from_state == workflow.NEEDS_REVIEW != event.to_state else ())]
    if kinds:
        Notice.objects.filter(task_id=event.task_id, kind__in=kinds, read_at__isnull=True,
                              created_at__lt=event.at).update(read_at=timezone.now())
    if ends_a_wait:
        # Mail held to be coalesced asks for nothing any more either: it is not sent (a new
        # version's mail replaces its group's held one as it is queued).
        Notification.objects.filter(task_id=event.task_id, kind__in=kinds, status=Notification.Status.QUEUED,
                                    send_after__isnull=False, created_at__lt=event.at).update(
            status=Notification.Status.SUPERSEDED)


def _event_deliveries(event: TaskEvent) -> list[Delivery]:
    # With the request and its department, which every notice about it names (render.request_facts).
    task = Task.objects.select_related("initiator", "purchase_request__department").get(pk=event.task_id)
    key = f"event:{event.pk}"
    _retire_notices(event)
    if event.event not in EVENT_KINDS and event.to_state not in STATE_KINDS:
        return []  # it only left review: nobody is told, the work queue's notices retire
    if event.from_state in (workflow.CONFIRMED, workflow.CLOSED) and event.event in INVOICE_DECISIONS:
        return []
    if event.event in ("request_approval", "approve_step", "escalate_approval", "invoice_exception"):
        # The approval opened at (or followed the task to) this version; it may have moved on since.
        approval = (Approval.objects.filter(task=task, state_version__gte=event.version).order_by("created_at")
                    .first())
        if approval is None or approval.status != Approval.Status.PENDING:
            return []  # already decided, superseded or expired: nothing to ask for any more
        approval.task = task  # read above, with what its notices name
        if event.event == "escalate_approval":
            return _escalation_deliveries(approval, key)
        return _approver_deliveries(approval, key, "approval_new")
    kind = EVENT_KINDS.get(event.event) or STATE_KINDS[event.to_state]
    requester = task.initiator
    if kind in ("cancelled", "goods_received", *TRAVEL_KINDS.values()) and event.actor == requester.get_username():
        return []  # she did it herself
    language = language_of(requester)
    context = request_facts(task)
    link = context["task_url"]
    decided = _decision(task, event)
    if decided is not None:
        context |= {"approver": _decider_words(decided.decided_by, decided.on_behalf_of), "comment": decided.comment,
                    "earlier": _earlier_comments(decided)}
    if kind == "cancelled":
        said = of_event(event)  # what the history says, in her language; a person's own words as written
        context |= {"by": actor_label(event.actor),
                    "reason": render(said, language) if said is not None and not said.is_quoted else event.reason}
    if kind == "closed_short":  # what will not come, why, and the budget it gives back
        closed = _closed_short(task, event)
        context |= {"who": actor_label(event.actor), "reason": closed["reason"],
                    "not_coming": items_summary_lazy(closed["lines"]),
                    "released": Decimal((event.data or {}).get("released") or 0)}
    if kind == "goods_received":  # a colleague of her department received her goods
        context |= {"who": actor_label(event.actor), "standing": _standing_lazy(task)}
    if kind == "needs_review" and OnlyTheRequester.said(event):
        # nobody but the requester could decide a step: say so, in the language each notice is rendered in
        context |= {"why": _render_lazy(of_event(event))}
    if kind in TRAVEL_KINDS.values():
        words, elsewhere = travel_context(task, event)
        context, link = context | words, elsewhere or link
    if kind == "returned":
        comment = decided.comment if decided is not None else event.reason
        session = returned_question_post(task=task, comment=comment, approver=context.get("approver", ""),
                                         number=context["number"], language=language)
        context |= {"comment": comment, "chat_url": chat_url(session.pk)}
    deliveries = [Delivery(kind, task, key, language, link, context, user=requester, in_chat=kind in CHAT_KINDS)]
    if kind == "po_issued":
        deliveries += _supplier_deliveries(task, key, context["po_number"])
    if kind == "closed_short":
        deliveries += _supplier_closed_deliveries(task, key, context["po_number"], closed)
    if kind == "needs_review":
        deliveries += _reviewer_deliveries(task, key, context)
    return deliveries


def _standing(task: Task) -> str:
    return request_now(task).state_label


# Where the request stands, in the language the notice is rendered in: 「部分到貨（2/3）」.
_standing_lazy = lazy(_standing, str)
_render_lazy = lazy(render, str)


def _reviewer_deliveries(task: Task, key: str, context: dict) -> list[Delivery]:
    """The administrators on call: a request waits in the work queue for one of them. (The
    department's managers may act there too; they see it in the queue, not in their bell.)"""
    admins = get_user_model().objects.filter(is_superuser=True, is_active=True).exclude(pk=task.initiator_id)
    link = review_url(task.pk)
    return [Delivery("review_new", task, key, language_of(admin), link, context, user=admin) for admin in admins]


def _earlier_comments(decided: Approval) -> list[dict]:
    """What the approvers of a chain's earlier steps wrote when they approved them: the last
    click's comment is the notice's own, theirs would otherwise reach nobody."""
    decisions = list(decided.decisions.select_related("decided_by", "on_behalf_of"))
    return [{"step": d.step + 1, "approver": _decider_words(d.decided_by, d.on_behalf_of), "comment": d.comment}
            for d in decisions[:-1] if d.comment.strip()]


# 「Dave Huang（代 Bob Wang）」, in the language the notice is rendered in.
_on_behalf_lazy = lazy(on_behalf_words, str)
# Whom a step waited on, in the language the notice is rendered in (" or " is a word).
_approvers_lazy = lazy(approvers_words, str)


def _decider_words(decided_by, on_behalf_of):
    """Who decided, and for whom when a delegate did."""
    if on_behalf_of is None:
        return display_name(decided_by)
    return _on_behalf_lazy(decided_by, on_behalf_of)


def _decision(task: Task, event: TaskEvent) -> Approval | None:
    if event.event not in ("approve", "reject", "return"):
        return None
    return (Approval.objects.filter(task=task, state_version=event.version - 1).exclude(status=Approval.Status.PENDING)
            .select_related("decided_by", "on_behalf_of").first())


def _approver_deliveries(approval: Approval, key: str, kind: str) -> list[Delivery]:
    task = approval.task
    context = request_facts(task) | {
        "summary": scope_summary(approval.scope), "total": Decimal(approval.scope["total"]),
        "expires_at": approval.expires_at, "version": approval.state_version,
        "revision": approval.scope.get("revision"),
    } | _invoice_exception_context(approval.scope)
    step = approval.chain[approval.step] if approval.chain else {}
    if step.get("handed_to"):
        context["own_requester"] = person_label(step["without_requester"])
    elif step.get("in_place_of") or step.get("covers"):
        context["own_requester"] = person_label((step.get("in_place_of") or step["covers"][0])["requester"])
    link = approval_url(approval.pk)
    deciders = _deciders_now(approval)
    languages = languages_of([user for user, _instead_of in deciders])  # one query for them all
    # A new version's approval asks the same person to decide the same step again: their mail for
    # the step is one, the latest version's, however quickly versions follow each other.
    group = f"approval:{task.pk}:{approval.step}" if kind == "approval_new" else ""
    return [Delivery(kind, task, key, languages[user.pk], link, context | {"instead_of": instead_of}, user=user,
                     coalesce=group) for user, instead_of in deciders]


def _approver_context(approval: Approval) -> dict:
    return request_facts(approval.task) | {
        "summary": scope_summary(approval.scope), "total": Decimal(approval.scope["total"]),
        "expires_at": approval.expires_at, "version": approval.state_version,
    }


def _invoice_exception_context(scope: dict) -> dict:
    """An invoice exception's mail says it is one: whose invoice, its total, what does not match (in
    the reader's language, read when the mail is written) and what approving does; not a purchase."""
    if scope.get("kind") != workflow.INVOICE_EXCEPTION:
        return {}
    exceptions = scope.get("exceptions") or []
    return {"invoice_number": scope["invoice"]["number"], "invoice_total": Decimal(scope["invoice_total"]),
            "variance": Decimal(scope["total"]), "po_number": scope.get("purchase_order") or "",
            "supplier": (scope.get("supplier") or {}).get("name", ""),
            "mismatch": lazy(lambda: "；".join(variance_words(v) for v in exceptions)
                             if (get_language() or "").startswith("zh") else
                             "; ".join(variance_words(v) for v in exceptions), str)()}


def _deciders_now(approval: Approval) -> list:
    """(person, whom they stand in for or "") for the people who may decide the waiting step and
    have not decided yet: those on it, and today's delegates of those."""

    decided = set()
    for row in ApprovalDecision.objects.filter(approval=approval).values_list("decided_by_id", "on_behalf_of_id"):
        decided |= set(row)
    people = [u for u in approval.approvers.filter(is_active=True).order_by("pk") if u.pk not in decided]
    # The requester never decides her own request, not even standing in for someone on it.
    stand_ins = (Delegation.objects.active().filter(delegator__in=people)
                 .exclude(delegate_id__in=decided | {approval.task.initiator_id})
                 .select_related("delegate", "delegator").order_by("pk"))
    return [(u, "") for u in people] + [(d.delegate, display_name(d.delegator)) for d in stand_ins]


def _escalation_deliveries(approval: Approval, key: str) -> list[Delivery]:
    """To the people a step was offered to, and to those it waited on."""
    step = approval.chain[approval.step]
    users = {u.pk: u for u in get_user_model().objects.filter(
        pk__in=step.get("user_ids", []) + step.get("offered_ids", []), is_active=True)}
    offered = [users[pk] for pk in step.get("offered_ids", []) if pk in users]
    waited_on = [users[pk] for pk in step.get("user_ids", []) if pk in users]
    context = _approver_context(approval) | {"backups": ", ".join(display_name(u) for u in offered),
                                            "waited_on": _approvers_lazy(waited_on, active_stand_ins(
                                                [u.get_username() for u in waited_on]))}
    link = approval_url(approval.pk)
    return [Delivery("approval_escalated", approval.task, key, language_of(u), link, context | {"offered": pk_in},
                     user=u) for u, pk_in in [(u, True) for u in offered]
            + [(users[pk], False) for pk in step.get("user_ids", []) if pk in users]]


def _approved(task: Task) -> Approval | None:
    """The approval whose scope the purchase order carried."""
    return Approval.objects.filter(task=task, status=Approval.Status.APPROVED).order_by("-decided_at").first()


def _closed_short(task: Task, event: TaskEvent) -> dict:
    """What a close short gave up (the PO's lines, with how many of each will not come, from its event's
    data), why, and the approval whose scope the PO carried."""
    approval = _approved(task)
    lines = approval.scope["lines"] if approval is not None else []
    closed = (event.data or {}).get("open") or {}
    return {"approval": approval, "reason": event.reason.rstrip("。.！!"),
            "lines": [{**lines[int(n)], "quantity": count}
                      for n, count in sorted(closed.items(), key=lambda kv: int(kv[0])) if int(n) < len(lines)]}


def _supplier_closed_deliveries(task: Task, key: str, po_number: str, closed: dict) -> list[Delivery]:
    """The supplier is told what of its purchase order will no longer be taken, and that only what was
    delivered is invoiced: to the addresses the PO went to."""
    if closed["approval"] is None:
        return []
    scope = closed["approval"].scope
    context = {"po_number": po_number, "supplier": scope["supplier"]["name"], "lines": closed["lines"],
               "reason": closed["reason"]} | supplier_facts(task, scope)
    return [Delivery("supplier_closed", task, f"{key}:supplier", SUPPLIER_LANGUAGE, "", context, email=email)
            for email in scope.get("emails", [])]


def _supplier_deliveries(task: Task, key: str, po_number: str) -> list[Delivery]:
    """The purchase order, to the addresses the approved scope names (and only after the ERP
    confirmed it: this runs for the `confirm` event)."""
    approval = _approved(task)
    if approval is None:
        return []
    scope = approval.scope
    context = {"po_number": po_number, "scope": scope, "supplier": scope["supplier"]["name"],
               "lines": scope["lines"], "subtotal": Decimal(scope["subtotal"]), "tax": Decimal(scope["tax"]),
               "total": Decimal(scope["total"]), "department": department_words(scope["department"]),
               "cost_centre": scope["cost_centre"], "requester": display_name(task.initiator)} | supplier_facts(task, scope)
    return [Delivery("supplier_po", task, f"{key}:supplier", SUPPLIER_LANGUAGE, "", context, email=email)
            for email in scope.get("emails", [])]

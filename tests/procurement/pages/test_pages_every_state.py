"""Every page renders for a task in every state of the transition table, and after an amendment
before the re-award, in English and Traditional Chinese, as the requester, the approver and an
admin: never a 5xx; in zh-Hant no raw state code and no English word in the visible text, nor in
the mail they are sent."""
import re
from datetime import timedelta

import pytest
from django.conf import settings
from django.test import Client
from django.urls import NoReverseMatch, reverse
from django.utils import timezone

from agentstate.actors import Actor
from agentstate.approvals import approvals_expire
from agentstate.machine import fire
from agentstate.models import Approval, Session, Task
from agentstate.said import say
from procurement.infra import queueing
from procurement.purchase import services
from procurement.history import timetravel
from procurement import workflow
from procurement.people.language import user_language_set
from procurement.models import Notification, Quote, Supplier

from tests.procurement.page_text import english_words, state_codes, visible_text

pytestmark = pytest.mark.django_db(transaction=True)
HX = {"HTTP_HX_REQUEST": "true"}
WORKER = Actor.runtime("web-1:4242")
LINES = [{"description": "Laptop", "quantity": 2}]
# Pages that do not depend on one task, by URL name; a name not (yet) in the URLconf is skipped.
# Who must be shown what (anything else may be a 403/404, never a 5xx).
MUST_SEE = {("alice", "task"), ("alice", "task panel"), ("alice", "chat"), ("bob", "task"), ("bob", "approval"),
            ("carol", "task"), ("carol", "task panel")}
LIST_PAGES = ["home", "my-requests", "request-new", "chat-sessions", "approval-inbox", "request-list", "requests", "notices", "notice-list",
              "work-queue", "review-queue", "delegations"]
LARGE = [{"description": "Laptop", "quantity": 33}]  # over NT$1,000,000: manager, director, finance


@pytest.fixture
def quiet(monkeypatch):
    """Nothing queued runs: the task stays where the test put it."""
    monkeypatch.setattr(queueing, "advance_now", lambda *args, **kwargs: None)


def submit(demo, lines=LINES):
    return services.request_submit(requester=demo["alice"], department="ENG", justification="new hires",
                                   lines=lines)


def pending(task):
    return Approval.objects.get(task=task, status="pending")


def decide(demo, task, decision, comment=""):
    approval = pending(task)
    services.approval_decide(approval_id=approval.pk, user=demo["bob"], decision=decision,
                             state_version=approval.state_version, scope_hash=approval.scope_hash, comment=comment)


def build_draft(demo, request):
    return services.request_draft_save(requester=demo["alice"], fields={"department": "ENG", "lines": LINES})


def build_received(demo, request):
    request.getfixturevalue("quiet")
    return submit(demo)


def build_processing(demo, request):
    request.getfixturevalue("quiet")
    task = submit(demo)
    return fire(task.pk, "start", actor=WORKER, expected_version=task.version)


def build_asked(demo, request):
    return submit(demo, [{"description": "monitor arm", "quantity": 1}])


def build_awaiting_approval(demo, request):
    return submit(demo)


def build_returned(demo, request):
    task = submit(demo)
    decide(demo, task, "return", "請改成 14 吋的筆電")
    return task


def build_submitted(demo, request):
    task = submit(demo)
    request.getfixturevalue("quiet")
    decide(demo, task, "approve")
    return task


def build_confirmed(demo, request):
    task = submit(demo)
    decide(demo, task, "approve")
    return task


def build_needs_review(demo, request):
    task = build_submitted(demo, request)
    task.refresh_from_db()
    return fire(task.pk, "outcome_unknown", actor=WORKER, expected_version=task.version,
                reason=say("pending_verification", operation="erp.purchase_order.issue", error="timed out after 2 s"))


def build_rejected(demo, request):
    task = submit(demo)
    decide(demo, task, "reject", "預算不夠")
    return task


def build_cancelled(demo, request):
    task = submit(demo)
    services.request_cancel(task_id=task.pk, user=demo["alice"])
    return task


def build_expired(demo, request):
    task = submit(demo)
    Approval.objects.filter(task=task).update(expires_at=timezone.now() - timedelta(minutes=1))
    approvals_expire()
    return task


def build_amended_before_the_re_award(demo, request):
    task = submit(demo)
    task.refresh_from_db()
    request.getfixturevalue("quiet")
    return services.request_amend(task_id=task.pk, user=demo["alice"], expected_version=task.version,
                                  lines=[{"description": "Laptop", "quantity": 3}])


def build_re_awarded(demo, request):
    """Amended and priced again: a new approval whose page says what changed."""
    task = submit(demo)
    task.refresh_from_db()
    return services.request_amend(task_id=task.pk, user=demo["alice"], expected_version=task.version,
                                  lines=[{"description": "Laptop", "quantity": 3}])


def build_paused(demo, request):
    task = build_processing(demo, request)
    return timetravel.task_pause(user=demo["alice"], task_id=task.pk)


def _point(task, cursor):
    return next(c.id for c in timetravel.task_checkpoints(user=task.initiator, task_id=task.pk) if c.cursor == cursor)


def build_rewound(demo, request):
    """Rewound by an admin past its requisition, and through the agent again."""
    task = submit(demo)
    timetravel.task_rewind(user=demo["carol"], task_id=task.pk, checkpoint=_point(task, "award"))
    return task


def build_forked(demo, request):
    """A fork of an ordered request: the new one links back, the original forward."""
    task = build_confirmed(demo, request)
    return timetravel.task_fork(user=demo["carol"], task_id=task.pk, checkpoint=_point(task, "award"))
def build_mid_chain(demo, request):
    """A three-step chain: the manager approved, the director's step waits, finance is to come."""
    task = submit(demo, LARGE)
    decide(demo, task, "approve")
    return task


def build_escalated(demo, request):
    """The manager's step waited past its escalation time and was offered to the director."""
    from procurement.tasks import escalate_approvals

    task = submit(demo, LARGE)
    approval = pending(task)
    approval.chain[0]["since"] = (timezone.now() - timedelta(days=2)).isoformat()
    Approval.objects.filter(pk=approval.pk).update(chain=approval.chain)
    escalate_approvals()
    return task


def build_decided_by_a_delegate(demo, request):
    """bob named carol his delegate; she approved on his behalf."""
    from procurement.policy.delegation import delegation_create

    today = timezone.localdate()
    delegation_create(delegator=demo["bob"], delegate_username="carol", starts=today, ends=today)
    task = submit(demo)
    approval = pending(task)
    services.approval_decide(approval_id=approval.pk, user=demo["carol"], decision="approve",
                             state_version=approval.state_version, scope_hash=approval.scope_hash)
    return task


def build_partly_received(demo, request):
    """Ordered; one of the two came, recorded by alice."""
    from procurement.receiving.services import goods_receipt_record

    task = build_confirmed(demo, request)
    goods_receipt_record(task_id=task.pk, user=demo["alice"], lines=[{"line": 0, "accepted": 1}])
    return task


def build_closed(demo, request):
    """One of two received, then the rest closed short by carol (accounts payable)."""
    from procurement.receiving.services import purchase_order_close_short

    task = build_partly_received(demo, request)
    return purchase_order_close_short(task_id=task.pk, user=demo["carol"], reason="供應商無法交齊")


SCENARIOS = {  # name: (builder, the state it leaves the task in)
    "draft": (build_draft, workflow.DRAFT),
    "received": (build_received, workflow.RECEIVED),
    "processing": (build_processing, workflow.PROCESSING),
    "asked": (build_asked, workflow.AWAITING_INPUT),
    "returned": (build_returned, workflow.AWAITING_INPUT),
    "awaiting_approval": (build_awaiting_approval, workflow.AWAITING_APPROVAL),
    "submitted": (build_submitted, workflow.SUBMITTED),
    "externally_confirmed": (build_confirmed, workflow.CONFIRMED),
    "needs_review": (build_needs_review, workflow.NEEDS_REVIEW),
    "rejected": (build_rejected, workflow.REJECTED),
    "cancelled": (build_cancelled, workflow.CANCELLED),
    "expired": (build_expired, workflow.EXPIRED),
    "amended_before_the_re_award": (build_amended_before_the_re_award, workflow.PROCESSING),
    "re_awarded": (build_re_awarded, workflow.AWAITING_APPROVAL),
    "paused": (build_paused, workflow.PAUSED),
    "rewound": (build_rewound, workflow.AWAITING_APPROVAL),
    "forked": (build_forked, workflow.AWAITING_APPROVAL),
    "mid_chain": (build_mid_chain, workflow.AWAITING_APPROVAL),
    "escalated": (build_escalated, workflow.AWAITING_APPROVAL),
    "decided_by_a_delegate": (build_decided_by_a_delegate, workflow.CONFIRMED),
    "partly_received": (build_partly_received, workflow.CONFIRMED),
    "closed": (build_closed, workflow.CLOSED),
}


def test_the_scenarios_cover_every_state_of_the_transition_table():
    states = {t.source for t in workflow.TRANSITIONS} | {t.target for t in workflow.TRANSITIONS}
    assert states == {state for _, state in SCENARIOS.values()}


def pages(task, session) -> list[tuple[str, str, dict]]:
    found = [("task", reverse("task-page", args=[task.pk]), {}),
             ("task panel", reverse("task-page", args=[task.pk]), HX),
             ("chat", reverse("chat-page", args=[session.pk]), {})]
    approval = Approval.objects.filter(task=task).order_by("-created_at").first()
    if approval is not None:
        found.append(("approval", reverse("approval-page", args=[approval.pk]), {}))
    for name in LIST_PAGES:
        try:
            found.append((name, reverse(name), {}))
        except NoReverseMatch:
            continue
    return found


def names_shown(demo, task) -> list[str]:
    """What a page may show as it is: people, suppliers, the request's own words. Catalogue items are
    not among them: a zh-Hant page names them in Chinese (「筆電」, not "Laptop")."""
    request = getattr(task, "purchase_request", None)
    catalogue = set(Quote.objects.values_list("item", flat=True))
    own = [request.justification, *(line.description for line in request.lines.all()
                                    if line.description not in catalogue)] if request else []
    return [*demo, *(user.get_full_name() for user in demo.values()), *Supplier.objects.values_list("name", flat=True),
            *own, "monitor arm", "ENG-01",
            # The trace id the request page shows for quoting it: an id, not English.
            *Task.objects.values_list("trace_id", flat=True)]


def client_for(user, language):
    client = Client()
    client.force_login(user)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    return client


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_page_renders_in_both_languages_for_everyone(scenario, demo, erp, eager, request):
    build, state = SCENARIOS[scenario]
    for username in ("alice", "bob", "carol"):  # their mail and notices are written in it
        user_language_set(user=demo[username], language="zh-hant")
    task = build(demo, request)
    task.refresh_from_db()
    assert task.state == state
    session = Session.objects.create(owner=demo["alice"], task=task)
    allowed = names_shown(demo, task)
    problems = []
    for username in ("alice", "bob", "carol"):
        for language in ("en", "zh-hant"):
            client = client_for(demo[username], language)
            for page, url, headers in pages(task, session):
                answer = client.get(url, follow=True, **headers)
                where = f"{page} as {username} in {language}"
                if answer.status_code >= 500:
                    problems.append(f"{where}: {answer.status_code}")
                    continue
                if answer.status_code != 200:
                    if (username, page) in MUST_SEE:
                        problems.append(f"{where}: {answer.status_code}")
                    continue
                text = visible_text(answer.content.decode())
                if codes := state_codes(text):
                    problems.append(f"{where}: raw codes {codes}")
                if language == "zh-hant" and (words := english_words(text, allowed)):
                    problems.append(f"{where}: English {sorted(set(words))}")
    people = {demo[name].email: name for name in ("alice", "bob", "carol")}
    for mail in Notification.objects.filter(task=task, to__in=people):
        text = re.sub(r"https?://\S+", " ", f"{mail.subject}\n{mail.body}")
        if codes := state_codes(text):
            problems.append(f"mail {mail.subject!r} to {people[mail.to]}: raw codes {codes}")
        if words := english_words(text, allowed):
            problems.append(f"mail {mail.subject!r} to {people[mail.to]}: English {sorted(set(words))}")
    assert not problems, "\n".join(problems)

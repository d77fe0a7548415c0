"""One mail per approval step: when the requester changes her request several times in a minute,
the approver gets the first mail at once and then one more, about the latest version, not one mail
for each version; a step decided meanwhile sends none. Through the outbox, as the worker sends it."""
from datetime import timedelta

import pytest
from django.utils import timezone

from agentstate.models import Approval
from procurement.infra.outbox import outbox_dispatch
from procurement.models import Notification
from procurement.purchase import services

pytestmark = pytest.mark.django_db(transaction=True)
LAPTOPS = [{"description": "Laptop", "quantity": 2}]


def submit(user):
    task = services.request_submit(requester=user, department="ENG", lines=LAPTOPS, justification="new hires")
    task.refresh_from_db()
    return task


def amend(task, user, quantity):
    services.request_amend(task_id=task.pk, user=user, lines=[{"description": "Laptop", "quantity": quantity}])


def to(mailoutbox, user) -> list:
    return [m for m in mailoutbox if m.to == [user.email]]


def later(seconds):
    return timezone.now() + timedelta(seconds=seconds)


def test_four_versions_in_a_minute_reach_bob_as_two_mails_the_last_naming_the_latest(demo, erp, eager, mailoutbox,
                                                                                      settings):
    settings.MAIL_COALESCE_SECONDS = 120
    alice, bob = demo["alice"], demo["bob"]
    task = submit(alice)
    assert len(to(mailoutbox, bob)) == 1, "the first is not held"
    for quantity in (3, 4, 5):
        amend(task, alice, quantity)
    latest = Approval.objects.get(task=task, status="pending")
    assert latest.scope["revision"] == 4
    outbox_dispatch()
    assert len(to(mailoutbox, bob)) == 1, "held while versions follow each other"
    mine = Notification.objects.filter(to=bob.email, kind="approval_new")
    assert sorted(mine.values_list("status", flat=True)) == ["queued", "sent", "superseded", "superseded"]

    outbox_dispatch(now=later(121))
    outbox_dispatch(now=later(600))
    first, last = to(mailoutbox, bob)
    assert f"/approvals/{latest.pk}/" in last.body and "This is revision 4 of the request" in last.body
    assert "Laptop × 5" in last.body and "Laptop × 2" in first.body
    assert sorted(mine.values_list("status", flat=True)) == ["sent", "sent", "superseded", "superseded"]


def test_held_mail_for_a_step_decided_meanwhile_is_not_sent(demo, erp, eager, mailoutbox, settings):
    settings.MAIL_COALESCE_SECONDS = 120
    alice, bob = demo["alice"], demo["bob"]
    task = submit(alice)
    amend(task, alice, 3)
    approval = Approval.objects.get(task=task, status="pending")
    services.approval_decide(approval_id=approval.pk, user=bob, decision="approve",
                             state_version=approval.state_version, scope_hash=approval.scope_hash)
    outbox_dispatch(now=later(600))
    assert len([m for m in to(mailoutbox, bob) if "Approval needed" in m.subject]) == 1
    assert list(Notification.objects.filter(to=bob.email, kind="approval_new").order_by("created_at")
                .values_list("status", flat=True)) == ["sent", "superseded"]


def test_mail_of_versions_far_apart_is_not_held(demo, erp, eager, mailoutbox, settings):
    settings.MAIL_COALESCE_SECONDS = 120
    alice, bob = demo["alice"], demo["bob"]
    task = submit(alice)
    Notification.objects.update(created_at=later(-600), sent_at=later(-600), updated_at=later(-600))
    amend(task, alice, 3)
    assert len(to(mailoutbox, bob)) == 2

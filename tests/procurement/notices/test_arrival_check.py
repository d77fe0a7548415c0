"""After the need-by date with nothing received, the requester is asked once whether it arrived."""
from datetime import timedelta

import pytest
from django.utils import timezone

from agentstate.models import Approval, Session, Task, Turn
from procurement.models import Notice
from procurement.notices.arrivals import arrival_checks
from procurement.purchase import services
from procurement.receiving.services import goods_receipt_record

pytestmark = pytest.mark.django_db(transaction=True)


def ordered_by(demo, needed_by):
    alice = demo["alice"]
    session = Session.objects.create(owner=alice)
    draft = services.request_draft_save(requester=alice, session=session, fields={
        "department": "ENG", "lines": [{"description": "Monitor", "quantity": 3}], "justification": "new desks",
        "needed_by": needed_by.isoformat()})
    task = services.request_submit(requester=alice, department="ENG", lines=[{"description": "Monitor", "quantity": 3}],
                                   justification="new desks", session=session, draft=draft)
    approval = Approval.objects.get(task=task, status="pending")
    services.approval_decide(approval_id=approval.pk, user=demo["bob"], decision="approve",
                             state_version=approval.state_version, scope_hash=approval.scope_hash)
    task = Task.objects.get(pk=task.pk)
    assert task.state == "externally_confirmed"
    return task, session


def test_asked_once_the_day_after_the_need_by_date_in_her_conversation(demo, erp, eager):
    day = timezone.localdate()
    task, session = ordered_by(demo, day)

    assert arrival_checks(today=day) == 0  # not before the day has passed
    assert arrival_checks(today=day + timedelta(days=1)) == 1
    assert arrival_checks(today=day + timedelta(days=2)) == 0  # once, however often the pass runs

    notices = Notice.objects.filter(recipient=demo["alice"], kind="arrival_check", task=task)
    assert notices.count() == 1
    assert day.isoformat() in notices.get().text
    asked = session.turns.filter(role=Turn.Role.AGENT).order_by("-seq").first()
    assert asked.data["did"] == "arrival_check" and task.data["draft"]["needed_by"] in asked.text


def test_not_asked_when_something_was_received(demo, erp, eager):
    day = timezone.localdate()
    task, _ = ordered_by(demo, day)
    goods_receipt_record(task_id=task.pk, user=demo["alice"], lines=[{"line": 0, "accepted": 1}])

    assert arrival_checks(today=day + timedelta(days=3)) == 0
    assert not Notice.objects.filter(kind="arrival_check").exists()

"""Escalation (DESIGN §7, §14): a step waiting past its escalation time is offered to its backup,
with a notice to the backup and to those it waited on; each step once; expiry stays the last
resort. Here the periodic task is called as beat would call it, with the step's clock moved back."""
from datetime import datetime, timedelta

import pytest
from django.utils import timezone

from agentstate.models import Approval
from procurement import tasks
from procurement.models import Notice

from tests.procurement.policy_support import APPROVALS, MIDDLE, api, body, decide, pending, submit

pytestmark = pytest.mark.django_db(transaction=True)


def waited(approval, hours):
    """Make the waiting step look as if it had waited that long."""
    approval.refresh_from_db()
    approval.chain[approval.step]["since"] = (timezone.now() - timedelta(hours=hours)).isoformat()
    Approval.objects.filter(pk=approval.pk).update(chain=approval.chain)


def kinds(user):
    return sorted(Notice.objects.filter(recipient=user).values_list("kind", flat=True))


def test_a_manager_step_waiting_a_day_is_offered_to_the_director_with_notices_to_both(demo, erp, eager):
    task = submit(demo["alice"], MIDDLE)
    approval = pending(task)
    assert tasks.escalate_approvals() == 0  # not overdue yet
    waited(approval, 25)
    assert tasks.escalate_approvals() == 1
    assert tasks.escalate_approvals() == 0  # once per step
    assert "approval_escalated" in kinds(demo["frank"]) and "approval_escalated" in kinds(demo["bob"])
    frank_notice = Notice.objects.get(recipient=demo["frank"], kind="approval_escalated")
    assert "waited too long for Bob Wang" in frank_notice.text and f"/approvals/{approval.pk}/" in frank_notice.url
    [step, director] = body(demo["frank"], approval).json()["chain"]
    assert step["offered_to"] == ["frank"] and step["status"] == "pending"
    assert [a["id"] for a in api(demo["frank"]).get(APPROVALS, {"status": "pending"}).json()["results"]] == [
        str(approval.pk)]
    # The director decides in the manager's place; his one decision covers his own step too.
    assert decide(demo["frank"], approval).status_code == 200
    task.refresh_from_db()
    assert task.state == "externally_confirmed"
    assert [(s["status"], s["decided_by"]) for s in body(demo["frank"], approval).json()["chain"]] == [
        ("approved", "frank"), ("approved", "frank")]
    assert "escalate_approval" in task.events.values_list("event", flat=True)


def test_the_manager_may_still_decide_after_escalation(demo, erp, eager):
    task = submit(demo["alice"], MIDDLE)
    approval = pending(task)
    waited(approval, 30)
    tasks.escalate_approvals()
    assert decide(demo["bob"], approval).status_code == 200
    assert decide(demo["frank"], approval).status_code == 200
    task.refresh_from_db()
    assert task.state == "externally_confirmed"


def test_an_expired_approval_is_not_escalated(demo, erp, eager):
    approval = pending(submit(demo["alice"], MIDDLE))
    waited(approval, 30)
    Approval.objects.filter(pk=approval.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    assert tasks.escalate_approvals() == 0
    assert "approval_escalated" not in kinds(demo["frank"])


def test_the_page_says_when_a_step_escalates_and_to_whom_it_was_offered(demo, erp, eager, client):
    approval = pending(submit(demo["alice"], MIDDLE))
    client.force_login(demo["frank"])
    url = f"/approvals/{approval.pk}/"
    assert "If it waits more than 24 hours" in client.get(url).content.decode()
    waited(approval, 25)
    tasks.escalate_approvals()
    text = client.get(url).content.decode()
    assert "Waited too long: also offered to Frank Chang." in text and 'name="decision"' in text
    assert isinstance(datetime.fromisoformat(Approval.objects.get(pk=approval.pk).chain[0]["offered_at"]), datetime)

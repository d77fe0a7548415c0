import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from agentstate.actors import Actor
from agentstate.approvals import approval_decide, approval_open, approvals_expire
from agentstate.errors import Conflict, DomainError, NotPermitted, StaleVersion
from agentstate.machine import fire
from agentstate.models import Approval, Task, TaskEvent

SCOPE = {"operation": "issue order", "lines": [{"item": "Laptop", "quantity": 2}], "total": "73500.00"}


@pytest.fixture
def awaiting(make_task, bob):
    task = make_task("working")
    task = fire(task.pk, "request_approval", actor=Actor.runtime())
    approval = approval_open(task=task, scope=SCOPE, approvers=[bob], rule={"role": "manager"}, ttl_seconds=3600)
    return task, approval


def decide(approval, user, decision="approve", **kw):
    kw.setdefault("state_version", approval.state_version)
    return approval_decide(approval_id=approval.pk, user=user, decision=decision, **kw)


@pytest.mark.django_db
def test_approving_the_version_seen_moves_the_task_once(awaiting, bob):
    task, approval = awaiting
    decided = decide(approval, bob, scope_hash=approval.scope_hash)
    assert decided.status == "approved" and decided.decided_by == bob
    row = Task.objects.get(pk=task.pk)
    assert (row.state, row.version) == ("approved", task.version + 1)
    assert TaskEvent.objects.filter(task=task).last().actor == "bob"


@pytest.mark.django_db
def test_an_amended_task_makes_the_open_approval_stale_and_nothing_moves(awaiting, bob):
    task, approval = awaiting
    fire(task.pk, "return", actor=Actor(user=bob, roles=frozenset({"approver"})))  # any move bumps the version
    with pytest.raises(Conflict) as refused:
        decide(approval, bob)
    assert refused.value.http_status == 409 and refused.value.extra["current_version"] == task.version + 1
    assert Approval.objects.get(pk=approval.pk).status == "superseded"


@pytest.mark.django_db
def test_a_stale_version_in_the_form_is_refused_with_both_versions(awaiting, bob):
    task, approval = awaiting
    with pytest.raises(StaleVersion, match=rf"v{task.version - 1} → v{task.version}"):
        decide(approval, bob, state_version=task.version - 1)
    assert Task.objects.get(pk=task.pk).state == "awaiting_approval"


@pytest.mark.django_db
def test_a_tampered_scope_hash_is_refused(awaiting, bob):
    task, approval = awaiting
    with pytest.raises(Conflict, match="not what this approval covers"):
        decide(approval, bob, scope_hash="0" * 64)
    assert Approval.objects.get(pk=approval.pk).status == "pending"


@pytest.mark.django_db
def test_a_second_click_gets_a_conflict_and_one_decision_stands(awaiting, bob):
    task, approval = awaiting
    decide(approval, bob)
    with pytest.raises(Conflict, match="already approved"):
        decide(approval, bob)
    assert TaskEvent.objects.filter(task=task, event="approve").count() == 1


@pytest.mark.django_db
def test_nobody_decides_their_own_request_or_one_off_their_route(awaiting, alice, erin):
    task, approval = awaiting
    approval.approvers.add(alice)
    with pytest.raises(NotPermitted, match="own request"):
        decide(approval, alice)
    with pytest.raises(NotPermitted, match="not on this approval's route"):
        decide(approval, erin)
    assert Approval.objects.get(pk=approval.pk).status == "pending"


@pytest.mark.django_db
@pytest.mark.parametrize("decision", ["reject", "return"])
def test_reject_and_return_need_a_comment(awaiting, bob, decision):
    task, approval = awaiting
    with pytest.raises(DomainError, match=f"comment is required to {decision}") as refused:
        decide(approval, bob, decision, comment="   ")
    assert refused.value.http_status == 400
    decide(approval, bob, decision, comment="Please split by department")
    assert Approval.objects.get(pk=approval.pk).comment == "Please split by department"


@pytest.mark.django_db
def test_an_expired_approval_is_swept_and_can_never_be_used(awaiting, bob):
    task, approval = awaiting
    Approval.objects.filter(pk=approval.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert approvals_expire() == [task.pk]
    assert Task.objects.get(pk=task.pk).state == "expired"
    with pytest.raises(Conflict, match="already expired"):
        decide(approval, bob)
    assert approvals_expire() == []


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_windows_approving_at_once_make_one_decision(awaiting, bob, make_user):
    task, approval = awaiting
    frank = make_user("frank")
    approval.approvers.add(frank)
    barrier = threading.Barrier(2)
    results = []

    def click(user):
        try:
            barrier.wait()
            results.append(decide(approval, user))
        except Conflict as exc:
            results.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=click, args=(u,)) for u in (bob, frank)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert sorted(type(r).__name__ for r in results) in (["Approval", "Conflict"], ["Approval", "StaleVersion"])
    assert TaskEvent.objects.filter(task=task, event="approve").count() == 1
    assert Task.objects.get(pk=task.pk).version == task.version + 1

"""Loading a checkpoint verifies it first (DESIGN §13): a tampered one, another tenant's, a broken
chain and another task's id are refused with a coded error and an event, and never used, whether
a person loads it or the recovery pass resumes from it."""
import secrets
from datetime import timedelta

import pytest
from django.utils import timezone

from agentstate.actors import Actor
from agentstate.checkpoints import REFUSED_EVENT
from agentstate.errors import CheckpointChainBroken, CheckpointForeignTenant, CheckpointNotFound, CheckpointTampered
from agentstate.machine import checkpoint_latest, checkpoint_load, fire, task_create
from agentstate.models import Checkpoint, Task, TaskEvent
from agentstate.recovery import recovery_pass

from tests.agentstate.sample_kind import RECOVERED


@pytest.fixture(autouse=True)
def _clean():
    RECOVERED.clear()


def _tamper(checkpoint: Checkpoint, old: str, new: str):
    assert old in checkpoint.body
    Checkpoint.objects.filter(pk=checkpoint.pk).update(body=checkpoint.body.replace(old, new))


def _refusals(task) -> list[TaskEvent]:
    return list(TaskEvent.objects.filter(task_id=task.pk, event=REFUSED_EVENT))


def _started(make_task, **data) -> Task:
    task = make_task("queued", **data)
    return fire(task.pk, "start", actor=Actor.runtime(), data={"total": "100.00"}, step="award")


@pytest.mark.django_db
def test_an_intact_checkpoint_loads_by_id_version_or_as_the_newest(make_task):
    task = _started(make_task)
    newest = Checkpoint.objects.filter(task=task).order_by("-version").first()
    by_id = checkpoint_load(task, newest.pk, tenant="T1")
    assert by_id.snapshot == checkpoint_latest(task, tenant="T1").snapshot == checkpoint_load(
        task, tenant="T1", version=2).snapshot
    assert by_id.snapshot["data"] == {"total": "100.00"} and by_id.cursor == "award" and _refusals(task) == []


@pytest.mark.django_db
def test_a_tampered_checkpoint_is_refused_with_an_event_and_nothing_of_it_is_returned(make_task, bob):
    task = _started(make_task)
    _tamper(Checkpoint.objects.get(task=task, version=2), '"100.00"', '"1.00"')
    with pytest.raises(CheckpointTampered, match="does not match its checksum") as refused:
        checkpoint_latest(task, tenant="T1", actor=bob)
    assert refused.value.code == "checkpoint_tampered" and refused.value.http_status == 409
    [event] = _refusals(task)
    assert (event.actor, event.version, event.data["checkpoint_version"], event.data["code"]) == (
        "bob", 2, 2, "checkpoint_tampered")
    # The task itself did not move, and an untouched earlier checkpoint still loads.
    assert Task.objects.get(pk=task.pk).version == 2
    assert checkpoint_load(task, tenant="T1", version=1).snapshot["state"] == "queued"


@pytest.mark.django_db
def test_a_checkpoint_copied_from_another_tenants_task_is_refused_though_its_checksum_holds(make_task, alice):
    task = _started(make_task)
    foreign = task_create(kind="sample", initiator=alice, tenant="T2", data={"secret": "T2's prices"})
    copied = Checkpoint.objects.get(task=foreign)
    # Someone with database access hangs T2's checkpoint on T1's task as its newest version.
    body = copied.body.replace('"version": 1', '"version": 3')
    Checkpoint.objects.filter(pk=copied.pk).update(task=task, version=3, body=body, checksum=_sha(body))
    with pytest.raises(CheckpointForeignTenant, match="belongs to tenant 'T2'"):
        checkpoint_latest(task, tenant="T1")
    assert [e.data["code"] for e in _refusals(task)] == ["checkpoint_foreign_tenant"]


@pytest.mark.django_db
def test_a_caller_of_another_tenant_is_refused_and_another_tasks_checkpoint_is_not_found(make_task, alice):
    task = _started(make_task)
    with pytest.raises(CheckpointForeignTenant):
        checkpoint_latest(task, tenant="T2")
    other = task_create(kind="sample", initiator=alice, tenant="T1")
    with pytest.raises(CheckpointNotFound) as missing:
        checkpoint_load(task, Checkpoint.objects.get(task=other).pk, tenant="T1")
    assert missing.value.http_status == 404 and missing.value.code == "checkpoint_not_found"
    assert [e.data["code"] for e in _refusals(task)] == ["checkpoint_foreign_tenant"]


@pytest.mark.django_db
def test_every_link_of_a_delta_chain_is_verified(alice):
    big = {"lines": [secrets.token_hex(64) for _ in range(100)], "n": 0}
    task = task_create(kind="sample", initiator=alice, tenant="T1", data=big)
    task = fire(task.pk, "submit", actor=alice, data={"n": 1})
    task = fire(task.pk, "start", actor=Actor.runtime(), data={"n": 2})
    assert [c.depth for c in Checkpoint.objects.filter(task=task).order_by("version")] == [0, 1, 2]
    assert checkpoint_latest(task, tenant="T1").snapshot["data"] == {**big, "n": 2}
    _tamper(Checkpoint.objects.get(task=task, version=2), '"n": 1', '"n": 7')
    with pytest.raises(CheckpointTampered):
        checkpoint_latest(task, tenant="T1")
    # A chain whose full snapshot is gone is refused too, never merged from the middle.
    Checkpoint.objects.filter(task=task, version=1).delete()
    with pytest.raises(CheckpointChainBroken):
        checkpoint_latest(task, tenant="T1")
    assert len(_refusals(task)) == 2


@pytest.mark.django_db
def test_recovery_does_not_resume_from_a_tampered_checkpoint_and_hands_the_task_to_a_person(make_task):
    task = _started(make_task)
    intact = _started(make_task)
    _tamper(Checkpoint.objects.get(task=task, version=2), '"award"', '"finish"')
    Task.objects.update(runnable=True, updated_at=timezone.now() - timedelta(hours=1))
    report = recovery_pass(stale_seconds=60)
    assert RECOVERED == [str(intact.pk)] and report.checkpoints_refused == [task.pk]
    row = Task.objects.get(pk=task.pk)
    assert (row.state, row.version) == ("needs_review", 3)
    assert [e.event for e in row.events.order_by("id")][-2:] == [REFUSED_EVENT, "checkpoint_refused"]
    assert "does not match its checksum" in row.events.get(event="checkpoint_refused").reason


@pytest.mark.django_db
def test_recovery_refuses_a_foreign_tenants_checkpoint_too(make_task, alice):
    task = _started(make_task)
    foreign = task_create(kind="sample", initiator=alice, tenant="T2")
    copied = Checkpoint.objects.get(task=foreign)
    body = copied.body.replace('"version": 1', '"version": 3')
    Checkpoint.objects.filter(pk=copied.pk).update(task=task, version=3, body=body, checksum=_sha(body))
    Task.objects.filter(pk=task.pk).update(runnable=True, updated_at=timezone.now() - timedelta(hours=1))
    recovery_pass(stale_seconds=60)
    assert RECOVERED == [] and Task.objects.get(pk=task.pk).state == "needs_review"
    assert [e.data["code"] for e in _refusals(task)] == ["checkpoint_foreign_tenant"]


def _sha(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode()).hexdigest()

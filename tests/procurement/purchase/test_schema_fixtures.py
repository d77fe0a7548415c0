"""Purchase tasks written by every earlier schema version load and resume (DESIGN §4, §13).

Each fixture in tests/procurement/fixtures/ is a task as an earlier version of the code wrote it
(row, events, checkpoints with their checksums, the request): it is put back as it was, its
newest checkpoint loads in today's shape, and a worker drives it to its next wait."""
import json
from pathlib import Path

import pytest
from django.db import transaction

from agentstate.machine import checkpoint_latest
from agentstate.models import Approval, Checkpoint, Task, TaskEvent
from agentstate.upgrades import UPGRADED_EVENT
from procurement import workflow
from procurement.models import Department, PurchaseRequest, RequestLine, Supplier
from procurement.tasks import advance

pytestmark = pytest.mark.django_db(transaction=True)
FIXTURES = sorted((Path(__file__).resolve().parents[1] / "fixtures").glob("purchase_schema_v*.json"))


def put_back(path: Path, users: dict) -> Task:
    """The fixture's rows, exactly as written (checkpoint bodies and checksums untouched)."""
    saved = json.loads(path.read_text(encoding="utf-8"))
    row, request = saved["task"], saved["request"]
    with transaction.atomic():
        # The suppliers as that database named them (seed_demo keeps an existing row's name).
        for supplier in saved.get("suppliers", []):
            Supplier.objects.filter(tax_id=supplier["tax_id"]).update(name=supplier["name"])
        task = Task.objects.create(id=row["id"], kind=row["kind"], initiator=users[row["initiator"]],
                                   tenant=row["tenant"], state=row["state"], version=row["version"], step=row["step"],
                                   data=row["data"], schema_version=row["schema_version"], runnable=row["runnable"])
        TaskEvent.objects.bulk_create(TaskEvent(task=task, **event) for event in saved["events"])
        Checkpoint.objects.bulk_create(Checkpoint(task=task, **checkpoint) for checkpoint in saved["checkpoints"])
        purchase = PurchaseRequest.objects.create(
            task=task, number=request["number"], department=Department.objects.get(code=request["department"]),
            requester=users[row["initiator"]], justification=request["justification"], budget=request["budget"])
        RequestLine.objects.bulk_create(RequestLine(request=purchase, position=n, **line)
                                        for n, line in enumerate(request["lines"], start=1))
    return task


def test_there_is_a_fixture_for_every_earlier_schema_version():
    written = {json.loads(path.read_text())["task"]["schema_version"] for path in FIXTURES}
    assert written == set(range(1, workflow.SCHEMA_VERSION))


@pytest.mark.parametrize("path", FIXTURES, ids=[path.stem for path in FIXTURES])
def test_a_task_of_an_earlier_schema_loads_and_resumes_to_its_next_wait(path, demo, erp, eager):
    task = put_back(path, demo)
    assert task.schema_version < workflow.SCHEMA_VERSION
    latest = checkpoint_latest(task, tenant=task.tenant)
    assert latest.schema_version == workflow.SCHEMA_VERSION and latest.snapshot["data"]["award"]["currency"] == "TWD"
    assert Checkpoint.objects.filter(task=task, schema_version=task.schema_version).count() == len(
        json.loads(path.read_text())["checkpoints"])  # read in the new shape, never rewritten

    advance(str(task.pk))

    task.refresh_from_db()
    assert (task.state, task.schema_version) == ("awaiting_approval", workflow.SCHEMA_VERSION), list(
        task.events.values_list("event", "reason"))
    assert task.data["award"]["currency"] == "TWD" and task.events.filter(event=UPGRADED_EVENT).count() == 1
    approval = Approval.objects.get(task=task, status="pending")
    assert approval.scope["currency"] == "TWD" and approval.scope["total"] == task.data["award"]["total"]
    [requisition] = erp.requisitions()
    assert (requisition["currency"], requisition["total"]) == ("TWD", task.data["award"]["total"])
    assert checkpoint_latest(task, tenant=task.tenant).snapshot["state"] == "awaiting_approval"

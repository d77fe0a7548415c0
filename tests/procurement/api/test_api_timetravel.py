"""`checkpoints/`, `replay/`, `rewind/`, `fork/` and `resume/` of `/api/v1/tasks/{id}/` (DESIGN §10):
the bodies, who may (404 not visible, 403 with the reason), bad input with nothing changed."""
import pytest
from rest_framework.test import APIClient

from agentstate.models import Receipt, Task, TaskEvent
from procurement.infra import erp as erp_ops
from procurement.purchase import services

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
TASKS = "/api/v1/tasks/"


@pytest.fixture
def waiting(demo, erp, eager):
    task = services.request_submit(requester=demo["alice"], department="ENG", justification="new hires",
                                   lines=[{"description": "Laptop", "quantity": 2}])
    return Task.objects.get(pk=task.pk)


def client_for(user, language="en") -> APIClient:
    client = APIClient(HTTP_ACCEPT_LANGUAGE=language)
    client.force_authenticate(user)
    return client


def checkpoints(user, task) -> list[dict]:
    answer = client_for(user).get(f"{TASKS}{task.pk}/checkpoints/")
    assert answer.status_code == 200, answer.json()
    return answer.json()["results"]


def at(user, task, cursor) -> int:
    return next(c["id"] for c in checkpoints(user, task) if c["cursor"] == cursor and c["state"] == "processing")


def post(user, task, action, body=None, language="en"):
    return client_for(user, language).post(f"{TASKS}{task.pk}/{action}/", body or {}, format="json")


def test_checkpoints_are_listed_oldest_first_with_the_contract_fields(waiting, demo):
    rows = checkpoints(demo["alice"], waiting)

    assert {"id", "version", "label", "created_at", "cursor"} <= set(rows[0])
    assert [r["version"] for r in rows] == sorted(r["version"] for r in rows) and rows[0]["label"] == "create"


def test_replay_answers_the_steps_and_sends_nothing(waiting, demo, erp):
    count = erp.stats()["requests"]

    answer = post(demo["carol"], waiting, "replay", {"checkpoint": at(demo["carol"], waiting, "award")})

    assert answer.status_code == 200, answer.json()
    steps = answer.json()["steps"]
    assert {"step", "would_call", "outcome", "actual"} <= set(steps[0])
    assert [c["operation"] for s in steps for c in s["would_call"]] == [erp_ops.CREATE_REQUISITION]
    assert erp.stats()["requests"] == count
    assert Task.objects.get(pk=waiting.pk).version == waiting.version


def test_rewind_without_confirm_lists_the_effects_and_changes_nothing(waiting, demo, erp):
    [requisition] = erp.requisitions()

    answer = post(demo["carol"], waiting, "rewind", {"checkpoint": at(demo["carol"], waiting, "award")})

    assert answer.status_code == 200, answer.json()
    effects = answer.json()["effects"]
    assert effects[0] == {**effects[0], "operation": erp_ops.CREATE_REQUISITION, "external_id": requisition["id"],
                          "undo": erp_ops.CANCEL_REQUISITION}
    assert {"operation", "external_id", "undo"} <= set(effects[-1])
    assert Task.objects.get(pk=waiting.pk).version == waiting.version
    assert erp.requisitions()[0]["status"] != "cancelled"


def test_rewind_with_confirm_cancels_the_requisition_and_answers_the_task(waiting, demo, erp):
    answer = post(demo["carol"], waiting, "rewind", {"checkpoint": at(demo["carol"], waiting, "award"),
                                                     "confirm": True, "version": waiting.version})

    assert answer.status_code == 200, answer.json()
    assert answer.json()["version"] > waiting.version and answer.json()["effects"]
    assert "cancelled" in [r["status"] for r in erp.requisitions()]


def test_rewind_confirmed_for_a_version_that_moved_on_is_409(waiting, demo, erp):
    answer = post(demo["carol"], waiting, "rewind", {"checkpoint": at(demo["carol"], waiting, "award"),
                                                     "confirm": True, "version": waiting.version - 1})

    assert answer.status_code == 409
    assert "cancelled" not in [r["status"] for r in erp.requisitions()]


def test_fork_answers_201_with_the_new_task_and_forked_from(waiting, demo, erp):
    answer = post(demo["carol"], waiting, "fork", {"checkpoint": at(demo["carol"], waiting, "award"),
                                                   "lines": [{"description": "Laptop", "quantity": 3}]})

    assert answer.status_code == 201, answer.json()
    body = answer.json()
    assert body["id"] != str(waiting.pk) and body["forked_from"]["task"] == str(waiting.pk)
    assert [line["quantity"] for line in body["lines"]] == [3]
    assert not {r.idempotency_key for r in Receipt.objects.filter(task_id=body["id"])} & {
        r.idempotency_key for r in Receipt.objects.filter(task_id=waiting.pk)}


def test_resume_of_her_own_paused_request(demo, erp):
    task = services.request_submit(requester=demo["alice"], department="ENG", justification="x",
                                   lines=[{"description": "Laptop", "quantity": 1}])
    assert post(demo["alice"], task, "pause").json()["state"] == "paused"

    answer = post(demo["alice"], task, "resume")

    assert answer.status_code == 200, answer.json()
    assert answer.json()["state"] == "processing"


def test_who_may__404_for_outsiders_403_with_the_reason_for_the_requester(waiting, demo):
    point = at(demo["carol"], waiting, "award")
    for action in ("replay", "rewind", "fork"):
        assert post(demo["erin"], waiting, action, {"checkpoint": point}).status_code == 404
        refused = post(demo["alice"], waiting, action, {"checkpoint": point})
        assert refused.status_code == 403 and "admin" in refused.json()["detail"]
    assert client_for(demo["erin"]).get(f"{TASKS}{waiting.pk}/checkpoints/").status_code == 404
    assert post(demo["erin"], waiting, "resume").status_code == 404


def test_bad_input_is_a_clear_400_in_the_callers_language_and_nothing_changes(waiting, demo, erp, eager):
    other = services.request_submit(requester=demo["alice"], department="ENG", justification="other",
                                    lines=[{"description": "Laptop", "quantity": 1}])
    events = TaskEvent.objects.count()
    foreign = at(demo["carol"], Task.objects.get(pk=other.pk), "award")

    wrong = post(demo["carol"], waiting, "rewind", {"checkpoint": foreign})
    missing = post(demo["carol"], waiting, "replay", {})
    chinese = post(demo["carol"], waiting, "fork", {"checkpoint": foreign}, language="zh-hant")

    assert wrong.status_code == 400 and "no checkpoint" in wrong.json()["detail"]
    assert missing.status_code == 400 and "checkpoint" in missing.json()["errors"]
    assert chinese.status_code == 400 and "checkpoint" not in chinese.json()["detail"]
    assert TaskEvent.objects.count() == events and Task.objects.count() == 2


def test_rewinding_a_finished_request_is_409(waiting, demo):
    services.request_cancel(task_id=waiting.pk, user=demo["alice"])

    answer = post(demo["carol"], waiting, "rewind", {"checkpoint": at(demo["carol"], waiting, "award"),
                                                     "confirm": True})

    assert answer.status_code == 409 and "ended" in answer.json()["detail"]

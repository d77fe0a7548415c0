"""Above every approval limit, a request is not a dead end (issue: only editing policy rules in the
admin could unblock it). From the work queue an admin names who decides it, with a reason; the
approval opens for that person, whose page says who named them and why."""
import pytest
from django.test import Client
from rest_framework.test import APIClient

from agentstate.models import Approval, Task
from procurement.purchase import services
from tests.procurement.page_text import page, visible_text

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def above(demo, erp, eager):
    task = services.request_submit(requester=demo["erin"], department="OPS", justification="new service desk",
                                   lines=[{"description": "Laptop", "quantity": 200}])
    task = Task.objects.get(pk=task.pk)
    assert task.state == "needs_review"
    return task


def api(user, task, body):
    client = APIClient()
    client.force_authenticate(user)
    return client.post(f"/api/v1/review-queue/{task.pk}/retry/", body, format="json")


def test_carol_names_frank_on_the_work_queue_page_and_he_approves_it(demo, erp, above):
    zh = page(demo["carol"], "/review/", HTTP_ACCEPT_LANGUAGE="zh-hant")
    assert "或指定核准人（超過所有核准上限時）" in zh
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hant")
    client.force_login(demo["carol"])
    answer = client.post(f"/review/{above.pk}/retry/", {"version": above.version, "reason": "董事會已同意",
                                                        "approver": "frank"})
    assert answer.status_code == 200
    assert "核准這筆請購：採購助理將送出核准" in visible_text(answer.content.decode())
    above.refresh_from_db()
    approval = Approval.objects.get(task=above, status="pending")
    assert above.state == "awaiting_approval" and [s["usernames"] for s in approval.chain] == [["frank"]]
    assert erp.requisitions() and not erp.purchase_orders()

    zh = page(demo["frank"], f"/approvals/{approval.pk}/", HTTP_ACCEPT_LANGUAGE="zh-hant")
    assert "超過核准政策的所有上限，因此由" in zh and "「董事會已同意」" in zh
    en = page(demo["frank"], f"/approvals/{approval.pk}/", HTTP_ACCEPT_LANGUAGE="en")
    assert "is above every approval limit of the policy, so" in en and "“董事會已同意”" in en
    timeline = page(demo["erin"], f"/tasks/{above.pk}/", HTTP_ACCEPT_LANGUAGE="zh-hant")
    assert "核准此請購（超過所有核准上限）" in timeline

    services.approval_decide(approval_id=approval.pk, user=demo["frank"], decision="approve",
                             state_version=approval.state_version, scope_hash=approval.scope_hash)
    above.refresh_from_db()
    assert above.state == "externally_confirmed" and len(erp.purchase_orders()) == 1


@pytest.mark.parametrize("who, approver, status, field", [
    ("dave", "frank", 403, None),    # a manager in the queue, not an admin
    ("carol", "erin", 400, "approver"),   # the requester
    ("carol", "carol", 400, "approver"),  # herself
    ("carol", "bob", 400, "approver"),    # ENG's manager, not OPS's
    ("carol", "nobody", 400, "approver"),
])
def test_whom_an_admin_may_not_name_and_nothing_moves(demo, above, who, approver, status, field):
    answer = api(demo[who], above, {"reason": "board agreed", "approver": approver, "version": above.version})
    assert answer.status_code == status, answer.content
    if field:
        assert field in answer.json()["errors"]
    task = Task.objects.get(pk=above.pk)
    assert (task.state, task.version) == ("needs_review", above.version)
    assert not Approval.objects.filter(task=above).exists()


def test_naming_is_only_for_a_request_stopped_at_its_route(demo, erp, eager):
    erp.fault(mode="down", path="/requisitions")
    task = services.request_submit(requester=demo["erin"], department="OPS", justification="desk",
                                   lines=[{"description": "Laptop", "quantity": 2}])
    task = Task.objects.get(pk=task.pk)
    assert task.state == "needs_review" and task.step != "route"
    answer = api(demo["carol"], task, {"reason": "x", "approver": "frank", "version": task.version})
    assert answer.status_code == 400 and "approver" in answer.json()["errors"]
    assert "approver" not in page(demo["carol"], "/review/")  # no picker offered for it


def test_an_amended_request_is_routed_by_the_policy_again(demo, erp, above):
    api(demo["carol"], above, {"reason": "board agreed", "approver": "frank", "version": above.version})
    above.refresh_from_db()
    assert above.state == "awaiting_approval"
    services.request_amend(task_id=above.pk, user=demo["erin"], expected_version=above.version,
                           lines=[{"description": "Laptop", "quantity": 210}])
    above.refresh_from_db()
    assert above.state == "needs_review" and not Approval.objects.filter(task=above, status="pending").exists()

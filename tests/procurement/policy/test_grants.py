"""Object grants (django-guardian) and roles as groups: the requester on her task, approvers on the
approval routed to them, a delegate until a date, watchers a requester adds; lists whose query
count does not grow with the number of objects."""
from datetime import timedelta

import pytest
from django.contrib.auth.models import Group
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from agentstate.approvals import approval_open
from agentstate.models import Approval
from procurement import selectors
from procurement.purchase import services
from procurement.models import Department, Membership
from procurement.selectors import grants

pytestmark = pytest.mark.django_db
LAPTOP = [{"description": "Laptop", "quantity": 1}]


def api(user, lang="en") -> APIClient:
    client = APIClient(HTTP_ACCEPT_LANGUAGE=lang)
    client.force_authenticate(user)
    return client


def browser(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def submit(user, department="ENG"):
    return services.request_submit(requester=user, department=department, lines=LAPTOP, justification="new hire")


def open_approval(task, approvers):
    return approval_open(task=task, scope={"total": "36750.00"}, approvers=approvers, rule={"rule": "manager"},
                         ttl_seconds=3600)


def test_the_requester_holds_a_grant_on_her_request_from_submission(demo):
    task = submit(demo["alice"])
    assert demo["alice"].has_perm(grants.VIEW_TASK, task)
    assert not demo["erin"].has_perm(grants.VIEW_TASK, task)


def test_each_approver_is_granted_the_approval_routed_to_them_when_it_opens(demo):
    approval = open_approval(submit(demo["alice"]), [demo["bob"], demo["frank"]])
    for name in ("bob", "frank"):
        assert demo[name].has_perm(grants.DECIDE_APPROVAL, approval)
    assert not demo["dave"].has_perm(grants.DECIDE_APPROVAL, approval)
    assert list(selectors.approvals_pending_for(demo["bob"])) == [approval]


def test_a_delegates_grant_counts_only_until_its_end(demo):
    approval = open_approval(submit(demo["alice"]), [demo["bob"]])
    grants.grant_approval(approval, demo["dave"], until=timezone.now() + timedelta(days=2))
    assert list(selectors.approvals_pending_for(demo["dave"])) == [approval]
    assert selectors.may_view(demo["dave"], approval.task)
    grants.grant_approval(approval, demo["dave"], until=timezone.now() - timedelta(minutes=1))
    assert list(selectors.approvals_pending_for(demo["dave"])) == []
    assert not selectors.approvals_visible_to(demo["dave"]).filter(pk=approval.pk).exists()
    assert not selectors.may_view(demo["dave"], approval.task)


def test_a_watcher_added_on_the_page_reads_the_request_but_cannot_cancel_it(demo):
    task = submit(demo["alice"])
    erin = browser(demo["erin"])
    assert erin.get(reverse("task-page", args=[task.pk])).status_code == 404
    added = browser(demo["alice"]).post(reverse("task-watchers", args=[task.pk]), {"username": "erin"})
    assert added.status_code == 302
    assert erin.get(reverse("task-page", args=[task.pk])).status_code == 200
    refused = erin.post(reverse("task-cancel", args=[task.pk]), {"reason": "no"}, HTTP_ACCEPT_LANGUAGE="zh-hant")
    assert refused.status_code == 403
    assert "只有提出這張請購單的人可以修改或取消它" in refused.content.decode()
    task.refresh_from_db()
    assert task.state == "received"
    page = browser(demo["alice"]).get(reverse("task-page", args=[task.pk])).content.decode()
    assert "(erin)" in page


def test_a_watcher_added_through_the_api_sees_it_in_her_list_until_removed(demo):
    task = submit(demo["alice"])
    response = api(demo["alice"]).post(f"/api/v1/tasks/{task.pk}/watchers/", {"username": "erin"}, format="json")
    assert response.status_code == 201 and response.json() == {"watchers": ["erin"]}
    assert [t["id"] for t in api(demo["erin"]).get("/api/v1/tasks/").json()["results"]] == [str(task.pk)]
    assert api(demo["erin"]).post(f"/api/v1/tasks/{task.pk}/cancel/", {"reason": "no"},
                                  format="json").status_code == 403
    assert api(demo["alice"]).delete(f"/api/v1/tasks/{task.pk}/watchers/erin/").status_code == 204
    assert api(demo["erin"]).get(f"/api/v1/tasks/{task.pk}/").status_code == 404


def test_sharing_refuses_unknown_people_and_anyone_but_the_requester(demo):
    task = submit(demo["alice"])
    unknown = api(demo["alice"], "zh-hant").post(f"/api/v1/tasks/{task.pk}/watchers/", {"username": "zed"},
                                                 format="json")
    assert unknown.status_code == 400 and unknown.json()["errors"]["username"] == ["這裡沒有使用者名稱為 zed 的人。"]
    by_manager = api(demo["bob"]).post(f"/api/v1/tasks/{task.pk}/watchers/", {"username": "erin"}, format="json")
    assert by_manager.status_code == 403 and by_manager.json()["detail"] == "Only the requester shares her request."
    by_outsider = api(demo["erin"]).post(f"/api/v1/tasks/{task.pk}/watchers/", {"username": "erin"}, format="json")
    assert by_outsider.status_code == 404
    assert grants.watchers_of(task) == []


def test_department_roles_are_groups_that_follow_the_memberships(demo):
    assert set(demo["bob"].groups.values_list("name", flat=True)) == {"ENG manager"}
    assert set(demo["frank"].groups.values_list("name", flat=True)) == {"* director"}
    membership = Membership.objects.create(user=demo["bob"], department=Department.objects.get(code="OPS"),
                                           role=Membership.Role.MANAGER, approval_limit=1000)
    assert set(demo["bob"].groups.values_list("name", flat=True)) == {"ENG manager", "OPS manager"}
    membership.delete()
    assert set(demo["bob"].groups.values_list("name", flat=True)) == {"ENG manager"}
    assert Group.objects.filter(name="OPS manager").exists()


def _queries(fn) -> int:
    with CaptureQueriesContext(connection) as captured:
        fn()
    return len(captured)


@pytest.mark.parametrize("who", ["alice", "bob", "frank", "erin"])
def test_the_task_list_costs_the_same_queries_for_3_tasks_as_for_12(demo, who):
    client = api(demo[who])
    counts = []
    for n in (3, 9):
        for _ in range(n):
            task = submit(demo["alice"])
            open_approval(task, [demo["bob"]])
        counts.append(_queries(lambda: client.get("/api/v1/tasks/")))
    assert counts[0] == counts[1]


def test_the_inbox_and_approval_list_cost_the_same_queries_for_3_approvals_as_for_12(demo):
    page, client = browser(demo["bob"]), api(demo["bob"])
    counts = []
    for n in (3, 9):
        for _ in range(n):
            open_approval(submit(demo["alice"]), [demo["bob"]])
        counts.append((_queries(lambda: page.get(reverse("approval-inbox"))),
                       _queries(lambda: page.get(reverse("approval-inbox"), {"tab": "all"})),
                       _queries(lambda: client.get("/api/v1/approvals/"))))
    assert counts[0] == counts[1]
    assert Approval.objects.count() == 12

"""An approval notice leaves the approver's bell once nothing is left to decide (decided, a step
passed, the request changed or was cancelled); it stays in the list. A cancelled request's
approval page says it was cancelled, not that a newer version replaced it."""
import pytest
from django.test import Client
from django.urls import reverse

from agentstate.models import Approval
from procurement.models import Notice
from procurement.notices.selectors import notices_unread_count

from tests.procurement.page_text import visible_text
from tests.procurement.policy_support import MIDDLE, SMALL, api, decide, pending, submit

pytestmark = pytest.mark.django_db(transaction=True)


def unread(user, task) -> list[str]:
    return list(Notice.objects.filter(recipient=user, task=task, read_at__isnull=True).values_list("kind", flat=True))


def test_a_decision_takes_the_approval_notice_off_the_bell(demo, erp, eager):
    task = submit(demo["alice"], SMALL)
    assert unread(demo["bob"], task) == ["approval_new"]
    before = notices_unread_count(demo["bob"])
    assert decide(demo["bob"], pending(task)).status_code == 200
    assert unread(demo["bob"], task) == [] and notices_unread_count(demo["bob"]) == before - 1
    assert Notice.objects.filter(recipient=demo["bob"], task=task, kind="approval_new").exists()  # still listed


def test_a_passed_step_retires_the_first_approvers_notice_and_not_the_next_ones(demo, erp, eager):
    task = submit(demo["alice"], MIDDLE)
    assert decide(demo["bob"], pending(task)).status_code == 200
    assert unread(demo["bob"], task) == []
    assert unread(demo["frank"], task) == ["approval_new"]


@pytest.mark.parametrize("language, says, never", [
    ("zh-hant", "這筆請購已取消，所以這個簽核不需要再決定。", "已被新版本取代"),
    ("en", "The request was cancelled, so this approval no longer needs a decision.", "replaced by a newer version")])
def test_a_cancelled_request_retires_the_notice_and_its_page_says_cancelled(demo, erp, eager, language, says, never):
    task = submit(demo["alice"], SMALL)
    approval = pending(task)
    response = api(demo["alice"]).post(f"/api/v1/tasks/{task.pk}/cancel/", {}, format="json")
    assert response.status_code == 200, response.json()
    assert unread(demo["bob"], task) == []
    approval = Approval.objects.get(pk=approval.pk)
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(demo["bob"])
    page = visible_text(client.get(reverse("approval-page", args=[approval.pk])).content.decode())
    assert says in page and never not in page


def test_the_admin_on_call_is_told_when_a_request_waits_in_the_work_queue(demo, erp, eager):
    erp.fault(mode="down", path="/requisitions")
    task = submit(demo["alice"], SMALL)
    task.refresh_from_db()
    assert task.state == "needs_review"
    [notice] = Notice.objects.filter(recipient=demo["carol"], kind="review_new")
    number = task.purchase_request.number
    assert f"Alice Lin 的請購 {number}（筆電 × 2，工程部）需要有人在工作佇列處理" in notice.text_in("zh-hant")
    assert f"Alice Lin's request {number} (Laptop × 2, Engineering) needs a person in the work queue" in \
        notice.text_in("en")
    assert notice.url.endswith(f"/review/#review-{task.pk}")
    assert not Notice.objects.filter(kind="review_new").exclude(recipient=demo["carol"]).exists()
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hant")
    client.force_login(demo["carol"])
    assert f"Alice Lin 的請購 {number}" in visible_text(client.get(reverse("notices")).content.decode())
    assert f'id="review-{task.pk}"' in client.get(reverse("review-queue")).content.decode()


def test_the_work_queue_notice_leaves_the_bell_once_the_request_left_review(demo, erp, eager):
    from procurement.history import review
    from procurement.notices.derive import notices_catch_up
    erp.fault(mode="down", path="/requisitions")
    task = submit(demo["alice"], SMALL)
    assert unread(demo["carol"], task) == ["review_new"]
    erp.clear_faults()
    task.refresh_from_db()
    review.review_retry(user=demo["bob"], task_id=task.pk, expected_version=task.version, reason="ERP is back")
    notices_catch_up()  # the recovery pass's safety net, whether or not the action's own pass ran
    task.refresh_from_db()
    assert task.state == "awaiting_approval"
    assert unread(demo["carol"], task) == []
    assert Notice.objects.filter(recipient=demo["carol"], task=task, kind="review_new").exists()

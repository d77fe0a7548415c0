"""A request in review says on its page why a person must look at it: the reason its timeline
gives, in the reader's language, not a generic "an outcome is unknown"."""
import pytest

from agentstate.models import Receipt
from procurement.purchase import services
from tests.procurement.page_text import page

pytestmark = pytest.mark.django_db(transaction=True)


def submit(user, quantity):
    task = services.request_submit(requester=user, department="OPS", lines=[{"description": "Laptop",
                                   "quantity": quantity}], justification="new service desk")
    task.refresh_from_db()
    return task


def test_above_every_limit_the_page_says_so_in_both_languages(demo, erp, eager):
    erin = demo["erin"]
    task = submit(erin, 200)
    assert task.state == "needs_review"
    zh = page(erin, f"/tasks/{task.pk}/", HTTP_ACCEPT_LANGUAGE="zh-hant")
    assert "這筆請購需要人工檢查：NT$7,329,000\u2060（732.9\u00a0萬） 超過營運部所有核准上限。" in zh
    assert "結果未知" not in zh and "OPS" not in zh.split("時間軸")[0]
    en = page(erin, f"/tasks/{task.pk}/", HTTP_ACCEPT_LANGUAGE="en")
    assert "is above every approval limit for Operations. Nothing goes on until they have." in en
    assert "an outcome is unknown" not in en


def test_an_unknown_erp_outcome_is_named_as_the_reason(demo, erp, eager):
    erp.fault(mode="down", path="/requisitions")
    task = submit(demo["erin"], 2)
    assert task.state == "needs_review" and Receipt.objects.get(task=task).status == "unknown"
    zh = page(demo["erin"], f"/tasks/{task.pk}/", HTTP_ACCEPT_LANGUAGE="zh-hant")
    assert "這筆請購需要人工檢查：" in zh and "結果待確認" in zh


def test_the_queue_offers_the_erp_actions_only_when_something_is_in_doubt_there(demo, erp, eager):
    above = submit(demo["erin"], 200)
    zh = page(demo["carol"], "/review/", HTTP_ACCEPT_LANGUAGE="zh-hant")
    assert "超過營運部所有核准上限" in zh and "ERP 中沒有結果不明的項目" in zh
    assert "再次查詢 ERP" not in zh and "記錄結果" not in zh and "重試步驟" in zh and "取消" in zh
    erp.fault(mode="down", path="/requisitions")
    submit(demo["erin"], 2)
    zh = page(demo["carol"], "/review/", HTTP_ACCEPT_LANGUAGE="zh-hant")
    assert zh.count("再次查詢 ERP") == 1 and zh.count("取消…") == 2 and above.state == "needs_review"


def test_retrying_once_the_policy_covers_the_amount_sends_it_to_approval_as_the_queue_says(demo, erp, eager):
    """The queue's advice holds: an admin extends the top rule and the director's limit, retries, and
    the request goes to approval (frank, then finance) instead of back to review."""
    from django.test import Client

    from procurement.models import Membership
    from procurement.models.policy import PolicyRule
    from procurement.policy.rules import policy_publish

    task = submit(demo["erin"], 200)
    Membership.objects.filter(user=demo["frank"]).update(approval_limit=10_000_000)
    PolicyRule.objects.filter(department__code="OPS", amount_up_to=5_000_000).update(amount_up_to=10_000_000)
    policy_publish(by=demo["carol"])
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hant")
    client.force_login(demo["carol"])
    answer = client.post(f"/review/{task.pk}/retry/", {"version": task.version, "reason": "處長額度與規則已調高"})
    assert answer.status_code in (200, 302)
    task.refresh_from_db()
    assert task.state == "awaiting_approval"

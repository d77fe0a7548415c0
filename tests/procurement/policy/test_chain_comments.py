"""On a two-step chain the first approver's comment reaches the requester: on her request page
while the chain waits for step 2, and in the notice of the final decision, in both languages."""
import re

import pytest
from django.test import Client
from django.urls import reverse

from procurement.models import Notice

from tests.procurement.page_text import page, visible_text
from tests.procurement.policy_support import MIDDLE, decide, pending, submit

pytestmark = pytest.mark.django_db(transaction=True)
STEP_ONE = "保固請選三年"


def page_text(user, task, language) -> str:
    return page(user, reverse("task-page", args=[task.pk]), HTTP_ACCEPT_LANGUAGE=language)


def click_on_page(client, html: str, approval, decision: str, comment: str = ""):
    """Post the page's own form for `decision`, its hidden fields as the page rendered them, as htmx does."""
    form = re.search(rf'<form[^>]*>(?:(?!</form>).)*name="decision" value="{decision}".*?</form>', html, re.S).group(0)
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form))
    return client.post(reverse("approval-decide", args=[approval.pk]),
                       fields | {"decision": decision, "comment": comment}, HTTP_HX_REQUEST="true")


def step_one_page(demo):
    """bob, reading step 1 of alice's two-step request in Chinese: his client, the approval, the page."""
    approval = pending(submit(demo["alice"], MIDDLE))
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hant")
    client.force_login(demo["bob"])
    return client, approval, client.get(reverse("approval-page", args=[approval.pk])).content.decode()


def approved_at_step_one(demo):
    task = submit(demo["alice"], MIDDLE)
    response = decide(demo["bob"], pending(task), comment=STEP_ONE)
    assert response.status_code == 200 and response.json()["status"] == "pending"
    return task


def test_her_page_shows_the_step_one_comment_while_step_two_waits(demo, erp, eager):
    task = approved_at_step_one(demo)
    when = r"\d{4}-\d\d-\d\d \d\d:\d\d"
    assert re.search(f"第 1 關：Bob Wang 核准，{when}：「{STEP_ONE}」", page_text(demo["alice"], task, "zh-hant"))
    assert re.search(f"Step 1: Bob Wang approved, {when}: “{STEP_ONE}”", page_text(demo["alice"], task, "en"))


@pytest.mark.parametrize("decision, comment, kind", [("approve", "", "approved"), ("reject", "本季預算已用完", "rejected"),
                                                     ("return", "請改成 10 台", "returned")])
def test_the_final_notice_carries_the_step_one_comment(demo, erp, eager, decision, comment, kind):
    task = approved_at_step_one(demo)
    assert decide(demo["frank"], pending(task), decision, comment=comment).status_code == 200
    [notice] = Notice.objects.filter(recipient=demo["alice"], kind=kind)
    assert f"第 1 關，Bob Wang 寫道：「{STEP_ONE}」" in notice.text_in("zh-hant")
    assert f"At step 1, Bob Wang wrote: “{STEP_ONE}”" in notice.text_in("en")
    if comment:
        assert comment in notice.text_in("zh-hant")


def test_a_one_step_approval_notice_says_no_step(demo, erp, eager):
    from tests.procurement.policy_support import SMALL
    task = submit(demo["alice"], SMALL)
    assert decide(demo["bob"], pending(task), comment="好").status_code == 200
    [notice] = Notice.objects.filter(recipient=demo["alice"], kind="approved")
    assert "第 1 關" not in notice.text_in("zh-hant") and "At step" not in notice.text_in("en")


@pytest.mark.parametrize("language, heading, first, later", [
    ("zh-hant", "核准第 1 關（共 2 關）將會：", "記錄您的核准，並交給下一關：處長", "最後一關核准後，這筆請購將會："),
    ("en", "Approving step 1 of 2 will:", "record your approval and pass the request to the next step: director",
     "Once the last step approves, the request will:")])
def test_the_first_step_says_before_the_click_that_it_orders_nothing(demo, erp, eager, language, heading, first, later):
    task = submit(demo["alice"], MIDDLE)
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(demo["bob"])
    text = visible_text(client.get(reverse("approval-page", args=[pending(task).pk])).content.decode())
    assert heading in text and first in text and later in text
    assert text.index(first) < text.index(later)
    assert decide(demo["bob"], pending(task)).status_code == 200
    client.force_login(demo["frank"])
    text = visible_text(client.get(reverse("approval-page", args=[pending(task).pk])).content.decode())
    assert heading not in text and later not in text  # the last step: what its click does, as before


def test_after_his_step_click_the_page_asks_nothing_more_of_him(demo, erp, eager):
    client, approval, html = step_one_page(demo)
    assert "核准第 1 關</button>" in html and "NT$513,030" not in re.search(r"<button[^>]*>[^<]*核准[^<]*</button>",
                                                                          html).group(0)
    answer = click_on_page(client, html, approval, "approve")
    result = answer.content.decode()
    assert answer.status_code == 200 and "您對這一關的核准已記錄" in result
    assert 'name="decision"' not in result, "no form to decide again"
    assert 'id="approval-title" hx-swap-oob="true">您已核准：等待下一關' in result
    assert "您已核准第 1 關" not in result  # said once
    reloaded = visible_text(client.get(reverse("approval-page", args=[approval.pk])).content.decode())
    assert "您已核准：等待下一關" in reloaded and "核准這筆採購嗎" not in reloaded


def test_the_next_approver_reads_what_the_first_wrote(demo, erp, eager):
    task = approved_at_step_one(demo)
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hant")
    client.force_login(demo["frank"])
    text = visible_text(client.get(reverse("approval-page", args=[pending(task).pk])).content.decode())
    assert f"Bob Wang 核准，" in text and f"：「{STEP_ONE}」" in text


def test_after_a_return_at_step_one_the_page_no_longer_says_what_approving_would_do(demo, erp, eager):
    """The htmx answer replaces the heading above the scope too, so the phone shows no stale promise."""
    client, approval, html = step_one_page(demo)
    answer = click_on_page(client, html, approval, "return", "請說明為什麼要三台")
    result = answer.content.decode()
    heading = re.search(r'<div id="what-heading" hx-swap-oob="true">.*?</div>', result, re.S)
    assert answer.status_code == 200 and heading, result[:500]
    assert "核准第 1 關（共 2 關）將會" not in heading.group(0) and "這份簽核涵蓋：" in heading.group(0)

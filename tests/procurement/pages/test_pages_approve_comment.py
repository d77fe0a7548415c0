"""A manager approves from the page with an optional comment, and the requester reads it in her
notice; the chain on the page moves on in place after a click; the requester's own page shows no
internal version numbers."""
import re

import pytest
from django.test import Client
from django.urls import reverse

from agentstate.models import Approval
from procurement.purchase import services
from procurement.people.language import user_language_set
from procurement.models import Notice

from tests.procurement.page_text import visible_text
from tests.procurement.policy_support import pending, submit

pytestmark = pytest.mark.django_db(transaction=True)
HX = {"HTTP_HX_REQUEST": "true"}
ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-hant"}
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
TWO_LAPTOPS = [{"description": "Laptop", "quantity": 2}]


def client_for(user, **headers):
    client = Client(enforce_csrf_checks=True, **headers)
    client.force_login(user)
    return client


def approval_page(client, approval) -> str:
    page = client.get(reverse("approval-page", args=[approval.pk]))
    assert page.status_code == 200
    return page.content.decode()


def approve_on_the_page(client, approval, comment="", **extra):
    """The approve form as the page renders it, filled in: its hidden fields and the comment box."""
    html = approval_page(client, approval)
    form = re.search(r'<form[^>]*>(?:(?!</form>).)*name="decision" value="approve".*?</form>', html, re.S).group(0)
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form))
    assert '<textarea id="approve-comment" name="comment"' in form  # the comment box is in the approve form
    return client.post(reverse("approval-decide", args=[approval.pk]), fields | {"comment": comment}, **extra)


def alices_notice(demo, language) -> str:
    """The approved notice as her notices page shows it, in the language she reads it in."""
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(demo["alice"])
    text = visible_text(client.get(reverse("notices")).content.decode())
    [notice] = Notice.objects.filter(recipient=demo["alice"], kind="approved")
    assert notice.text_in(language) in text
    return notice.text_in(language)


@pytest.mark.parametrize("language, headers, label", [
    ("zh-hant", ZH, "給申請人的意見（選填）"), ("en", EN, "Comment for the requester (optional)")])
def test_the_approve_form_offers_an_optional_comment_box_in_both_languages(demo, erp, eager, language, headers,
                                                                            label):
    approval = pending(submit(demo["alice"], TWO_LAPTOPS))
    text = visible_text(approval_page(client_for(demo["bob"], **headers), approval))
    assert label in text
    # the three forms say alike what their box is for
    assert ("駁回原因（必填）" if language == "zh-hant" else "Reason for rejecting (required)") in text
    assert ("退回修改：需要修改什麼？（必填）" if language == "zh-hant"
            else "Return for revision: what should change? (required)") in text


@pytest.mark.parametrize("language, words", [
    ("zh-hant", "Bob Wang 已核准您的請購 {number}（筆電 × 2，含稅 NT$73,290），並附上意見：「請週五前交貨」。"),
    ("en", "Bob Wang approved your request {number} (Laptop × 2, NT$73,290 incl. tax) with the comment "
           "“請週五前交貨”.")])
def test_a_comment_given_on_approve_reaches_the_requesters_notice(demo, erp, eager, mailoutbox, language, words):
    user_language_set(user=demo["alice"], language=language)
    task = submit(demo["alice"], TWO_LAPTOPS)
    approval = pending(task)
    answer = approve_on_the_page(client_for(demo["bob"]), approval, comment="請週五前交貨", **HX)
    assert answer.status_code == 200 and "請週五前交貨" in answer.content.decode()
    assert Approval.objects.get(pk=approval.pk).comment == "請週五前交貨"
    number = task.purchase_request.number
    assert words.format(number=number) in alices_notice(demo, language)
    [mail] = [m for m in mailoutbox if m.to == ["alice@example.com"] and number in m.subject and
              ("核准" in m.subject or "approved" in m.subject)]
    assert "請週五前交貨" in mail.body


@pytest.mark.parametrize("language, words", [
    ("zh-hant", "Bob Wang 已核准您的請購 {number}（筆電 × 2，含稅 NT$73,290）。採購單正在送往 ERP。"),
    ("en", "Bob Wang approved your request {number} (Laptop × 2, NT$73,290 incl. tax). The purchase order is "
           "being sent to the ERP.")])
def test_approving_without_a_comment_quotes_nothing(demo, erp, eager, language, words):
    user_language_set(user=demo["alice"], language=language)
    task = submit(demo["alice"], TWO_LAPTOPS)
    assert approve_on_the_page(client_for(demo["bob"]), pending(task)).status_code == 200
    text = alices_notice(demo, language)
    assert words.format(number=task.purchase_request.number) in text
    assert "「」" not in text and "“”" not in text and "意見" not in text and "comment" not in text


def test_the_requester_reads_the_approvers_comment_on_her_request_page_without_version_numbers(demo, erp, eager):
    task = submit(demo["alice"], TWO_LAPTOPS)
    approve_on_the_page(client_for(demo["bob"]), pending(task), comment="請週五前交貨")
    # The approval history: who decided, when, and the comment (「Bob Wang 核准，2026-12-02 10:00：「…」」).
    when = r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}"
    for headers, approved in ((ZH, rf"Bob Wang 核准，{when}：「請週五前交貨」"),
                              (EN, rf"Bob Wang approved, {when}: “請週五前交貨”")):
        text = visible_text(client_for(demo["alice"], **headers).get(reverse("task-page", args=[task.pk]))
                            .content.decode())
        assert re.search(approved, text), approved
        assert re.findall(r"\bv\d+\b", text) == [], re.findall(r".{20}\bv\d+\b", text)


def test_a_pending_request_shows_its_requester_no_version_on_her_page_or_her_list(demo, erp, eager):
    task = submit(demo["alice"], TWO_LAPTOPS)
    services.request_amend(task_id=task.pk, user=demo["alice"], lines=[{"description": "Laptop", "quantity": 1}])
    for headers, waiting in ((ZH, "待核准"), (EN, "Pending")):
        alice = client_for(demo["alice"], **headers)
        for url in (reverse("task-page", args=[task.pk]), reverse("my-requests")):
            text = visible_text(alice.get(url).content.decode())
            assert re.findall(r"\bv\d+\b", text) == [], (url, re.findall(r".{20}\bv\d+\b", text))
        assert waiting in visible_text(alice.get(reverse("task-page", args=[task.pk])).content.decode())
    # the manager reading the same request still sees which revision each approval was opened for
    bob_reads = visible_text(client_for(demo["bob"]).get(reverse("task-page", args=[task.pk])).content.decode())
    assert re.search(r"Pending · revision \d+", bob_reads)


MIDDLE = [{"description": "Laptop", "quantity": 4}]  # above bob's limit: bob's step, then frank's


@pytest.mark.parametrize("headers, waiting, done", [(EN, "waiting now", "approved"), (ZH, "等待中", "已核准")])
def test_after_a_step_is_approved_the_chain_on_the_page_moves_on_in_place(demo, erp, eager, headers, waiting, done):
    approval = pending(submit(demo["alice"], MIDDLE))
    bob = client_for(demo["bob"], **headers)
    answer = approve_on_the_page(bob, approval, **HX).content.decode()
    # the page's own chain (id="approval-chain") comes back out of band: step 1 done, step 2 waits now
    chain = re.search(r'<section id="approval-chain"[^>]*hx-swap-oob="true".*?</section>', answer, re.S)
    assert chain, answer
    steps = re.findall(r'<li class="chain-step step-(\w+)"', chain.group(0))
    assert steps == ["approved", "pending"]
    words = visible_text(chain.group(0))
    assert done in words and waiting in words and "Frank Chang" in words
    assert answer.count('id="approval-chain"') == 1  # one chain: the page's, replaced


@pytest.mark.parametrize("headers, words", [(EN, "Approval: Approved"), (ZH, "簽核結果：已核准")])
def test_the_final_approval_also_swaps_the_chain_with_the_title_and_badge(demo, erp, eager, headers, words):
    approval = pending(submit(demo["alice"], MIDDLE))
    approve_on_the_page(client_for(demo["bob"]), approval, **HX)
    approval.refresh_from_db()
    answer = approve_on_the_page(client_for(demo["frank"], **headers), approval, **HX).content.decode()
    assert 'id="approval-title" hx-swap-oob="true"' in answer and words in visible_text(answer)
    chain = re.search(r'<section id="approval-chain"[^>]*hx-swap-oob="true".*?</section>', answer, re.S)
    assert chain and re.findall(r'<li class="chain-step step-(\w+)"', chain.group(0)) == ["approved", "approved"]
    assert "等待中" not in chain.group(0) and "waiting now" not in chain.group(0)


def test_without_htmx_the_decision_page_shows_the_chain_inline(demo, erp, eager):
    approval = pending(submit(demo["alice"], MIDDLE))
    html = approve_on_the_page(client_for(demo["bob"]), approval).content.decode()
    assert 'id="approval-chain"' in html and "hx-swap-oob" not in html

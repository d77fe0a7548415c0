"""Departments read by their name in the reader's language (procurement.words.labels.department_label): the
demo's ENG and OPS, seeded as "Engineering" and "Operations", read 「工程部」 and 「營運部」 on a zh-Hant
page, notice, mail and export; a department an admin named ("Legal", 「採購部」, a renamed ENG) reads as
written in both languages. The code stays the contract (DESIGN §10)."""
import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse
from django.utils import translation

from agentstate.models import Approval
from procurement.words import labels
from procurement.purchase import services
from procurement.people.language import user_language_set
from procurement.models import Department, Membership, Notice

from tests.procurement.page_text import english_words, visible_text

pytestmark = pytest.mark.django_db(transaction=True)
ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-hant"}
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
INBOX = reverse("approval-inbox")
ENGLISH_NAMES = ("Engineering", "Operations")


def submit(user, department="ENG"):
    task = services.request_submit(requester=user, department=department, justification="new hires",
                                   lines=[{"description": "Laptop", "quantity": 2}])
    task.refresh_from_db()
    return task


def html(user, url, **headers) -> str:
    client = Client(**headers)
    client.force_login(user)
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


def text(user, url, **headers) -> str:
    return visible_text(html(user, url, **headers))


def no_english_names(words):
    assert [name for name in ENGLISH_NAMES if name in words] == [], words


def test_the_demo_departments_read_in_the_active_language_and_any_other_name_as_written():
    legal, purchasing = Department(code="LEG", name="Legal"), Department(code="PUR", name="採購部")
    renamed = Department(code="ENG", name="Platform team")
    with translation.override("zh-hant"):
        assert [labels.department_label(Department(code=c, name=n)) for c, n in
                (("ENG", "Engineering"), ("OPS", "Operations"))] == ["工程部", "營運部"]
        assert [labels.department_label(d) for d in (legal, purchasing, renamed)] == ["Legal", "採購部", "Platform team"]
    with translation.override("en"):
        assert labels.department_label(Department(code="ENG", name="Engineering")) == "Engineering"
        assert [labels.department_label(d) for d in (legal, purchasing, renamed)] == ["Legal", "採購部", "Platform team"]
    assert labels.department_label(Department(code="NEW", name="")) == "NEW"


def test_the_inbox_rows_and_filter_name_the_department_in_chinese_and_the_export_too(demo, erp, eager):
    submit(demo["alice"])
    submit(demo["erin"], department="OPS")
    page = html(demo["frank"], INBOX + "?tab=all", **ZH)
    assert "工程部（ENG）</option>" in page
    assert "營運部（OPS）</option>" in page and " (ENG)" not in page
    words = visible_text(page)
    assert "工程部" in words and "營運部" in words
    no_english_names(page)
    english = html(demo["frank"], INBOX + "?tab=all", **EN)
    assert "Engineering (ENG)</option>" in english and "Operations (OPS)</option>" in english
    assert "工程部" not in english and "營運部" not in english
    client = Client(**ZH)
    client.force_login(demo["frank"])
    export = client.get(reverse("approval-export", args=["csv"]) + "?tab=all").content.decode("utf-8-sig")
    assert "工程部" in export and "營運部" in export
    no_english_names(export)


def test_the_approval_page_names_the_department_in_the_readers_language(demo, erp, eager):
    task = submit(demo["alice"])
    url = reverse("approval-page", args=[Approval.objects.get(task=task, status="pending").pk])
    chinese = text(demo["bob"], url, **ZH)
    assert "工程部" in chinese
    no_english_names(chinese)
    english = text(demo["bob"], url, **EN)
    assert "for Engineering" in english and "within the Engineering manager's limit" in english
    assert "工程部" not in english


def test_her_request_page_and_new_request_form_name_her_department_in_her_language(demo, erp, eager):
    task = submit(demo["alice"])
    for url in (reverse("task-page", args=[task.pk]), reverse("request-new")):
        chinese = text(demo["alice"], url, **ZH)
        assert "工程部" in chinese, url
        no_english_names(chinese)
        assert "Engineering" in text(demo["alice"], url, **EN), url


def test_a_new_approval_notice_and_mail_name_the_department_in_the_approvers_language(demo, erp, eager, mailoutbox):
    user_language_set(user=demo["bob"], language="zh-hant")
    submit(demo["alice"])
    [to_bob] = [m for m in mailoutbox if m.to == ["bob@example.com"]]
    notice = Notice.objects.get(recipient=demo["bob"], kind="approval_new")
    for words in (to_bob.body, notice.text):
        assert "工程部" in words, words
        no_english_names(words)
    mail.outbox.clear()
    user_language_set(user=demo["dave"], language="en")
    submit(demo["erin"], department="OPS")
    [to_dave] = [m for m in mailoutbox if m.to == ["dave@example.com"]]
    assert "(Operations)" in to_dave.body and "營運部" not in to_dave.body


def test_a_department_an_admin_named_reads_as_written_in_both_languages(demo, erp, eager):
    Department.objects.create(code="LEG", name="Legal", budget_total="1000000.00")
    Department.objects.create(code="PUR", name="採購部", budget_total="1000000.00")
    Department.objects.filter(code="ENG").update(name="Platform team")
    Membership.objects.create(user=demo["alice"], department=Department.objects.get(code="PUR"),
                              role=Membership.Role.REQUESTER)
    task = submit(demo["alice"])
    approval = Approval.objects.get(task=task, status="pending")
    for headers, (left, right) in ((ZH, ("（", "）")), (EN, (" (", ")"))):
        inbox = html(demo["frank"], INBOX + "?tab=all", **headers)
        assert f"Legal{left}LEG{right}</option>" in inbox and f"採購部{left}PUR{right}</option>" in inbox
        assert f"Platform team{left}ENG{right}</option>" in inbox and "Platform team" in visible_text(inbox)
        assert "工程部" not in inbox
        assert "Platform team" in text(demo["bob"], reverse("approval-page", args=[approval.pk]), **headers)
        assert f"採購部{left}PUR{right}" in text(demo["alice"], reverse("request-new"), **headers)
    chinese = text(demo["frank"], INBOX + "?tab=all", **ZH)
    assert english_words(chinese, names=["Platform team", "Legal", "frank", "Alice Lin", "new hires"]) == []


def test_a_draft_names_its_department_by_name_before_it_is_submitted(demo):
    draft = services.request_draft_save(requester=demo["alice"], fields={
        "department": "ENG", "lines": [{"description": "Monitor", "quantity": 2}]})
    zh = text(demo["alice"], reverse("task-page", args=[draft.pk]), **ZH)
    assert "部門 工程部" in zh and "部門 ENG" not in zh
    en = text(demo["alice"], reverse("task-page", args=[draft.pk]), **EN)
    assert "Department Engineering" in en
    nameless = services.request_draft_save(requester=demo["erin"], fields={
        "lines": [{"description": "Monitor", "quantity": 1}]})
    assert "部門 —" in text(demo["erin"], reverse("task-page", args=[nameless.pk]), **ZH)

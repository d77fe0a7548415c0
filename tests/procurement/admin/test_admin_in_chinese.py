"""The Django admin in Traditional Chinese: every list of the product's tables names its table,
its columns and its filters in Chinese, and shows states, statuses and events in words
(「等待核准」), never as stored codes (awaiting_approval); in English the same lists read in English."""
import re
from datetime import timedelta

import pytest
from django.contrib import admin
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation

from agentstate.memory.services import memory_confirm, memory_propose
from agentstate.memory.models import MemoryEntry
from agentstate.models import Session, Turn
from procurement.people.tokens import token_issue
from procurement.words import labels
from procurement.purchase import services
from procurement.models import BudgetReservation, Membership, Notification, Supplier, SupplierAlias
from procurement.models.policy import Delegation

from tests.procurement.page_text import english_words, visible_text

pytestmark = pytest.mark.django_db
PRODUCT_APPS = {"agentstate", "procurement"}
REGISTERED = sorted((model for model in admin.site._registry if model._meta.app_label in PRODUCT_APPS),
                    key=lambda model: model._meta.label)
CJK = re.compile(r"[\u3400-\u9fff]")
# Every code a list may show: states, statuses, events, steps, operations, kinds and roles.
CODES = {str(code) for table in (labels.STATE_LABELS, labels.RECEIPT_LABELS, labels.APPROVAL_LABELS, labels.EVENT_LABELS,
                                 labels.SESSION_LABELS, labels.MEMORY_LABELS, labels.MEMORY_ACTION_LABELS,
                                 labels.NOTICE_KIND_LABELS, labels.STEP_LABELS, labels.OPERATION_LABELS,
                                 labels.TASK_KIND_LABELS)
         for code in table}
CODES |= set(Membership.Role.values) | set(BudgetReservation.Status.values) | set(Notification.Status.values)


@pytest.fixture
def every_table(demo, erp, eager, django_capture_on_commit_callbacks):
    """A row in each table: a request waiting for approval (its events, checkpoints, ERP call,
    budget hold and mail), alice's conversation and a memory of hers, a delegation, a supplier's other name."""
    alice = demo["alice"]
    session = Session.objects.create(owner=alice, title="monitors")
    with django_capture_on_commit_callbacks(execute=True):  # the agent's steps run, up to bob's approval
        task = services.request_submit(requester=alice, department="ENG", justification="new hires",
                                       session=session, lines=[{"description": "Monitor", "quantity": 2}])
    said = Turn.objects.create(session=session, seq=1, role="user", text="Remember: monitors from 優品")
    memory_confirm(entry=memory_propose(turn=said, scope="user", subject="alice", kind="preference",
                                        content="Monitors from 優品"), by=alice)
    today = timezone.localdate()
    Delegation.objects.create(delegator=demo["bob"], delegate=demo["dave"], starts=today, ends=today + timedelta(days=3))
    token_issue(user=alice, name="筆電")
    SupplierAlias.objects.create(supplier=Supplier.objects.first(), words="優品電腦", language="zh")
    task.refresh_from_db()
    assert task.state == "awaiting_approval"
    return task


def changelist(user, model, language: str) -> str:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    response = client.get(reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist"))
    assert response.status_code == 200
    return response.content.decode()


def part(html: str, start: str, end: str) -> str:
    """The HTML from the element opening with `start` up to `end` (the list, or its filters)."""
    at = html.find(start)
    return html[at:html.find(end, at)] if at >= 0 else ""


def codes_in(text: str) -> set[str]:
    return {word for word in re.findall(r"[a-z][a-z_.]*[a-z]", text) if word in CODES}


@pytest.mark.parametrize("model", REGISTERED, ids=lambda model: model._meta.label)
def test_each_list_in_chinese_names_its_table_and_columns_in_chinese_and_shows_no_codes(every_table, demo, model):
    html = changelist(demo["carol"], model, "zh-hant")
    with translation.override("en"):
        english_name = str(model._meta.verbose_name_plural)
    with translation.override("zh-hant"):
        chinese_name = str(model._meta.verbose_name_plural)
    title = visible_text(part(html, "<h1", "</h1>"))
    assert CJK.search(chinese_name) and chinese_name in title and english_name not in title, title
    headers = visible_text(part(html, "<thead>", "</thead>"))
    assert english_words(headers, names={"ID"}) == [], headers
    rows = part(html, '<table id="result_list"', "</table>")
    assert "<tbody>" in rows, f"{model._meta.label}: the list is empty; the fixture should fill every table"
    # An ERP call's key is an id made of its operation's name, and a rule's name is as its admin
    # wrote it: neither is a code to put in words.
    rows = re.sub(r'<t[hd] class="field-(?:idempotency_key|name)">.*?</t[hd]>', "", rows)
    filters = part(html, '<search id="changelist-filter"', "</search>")
    assert bool(filters) == bool(admin.site._registry[model].list_filter), model._meta.label
    shown = visible_text(rows) + " " + visible_text(filters)
    assert codes_in(shown) == set(), f"{model._meta.label}: {shown}"
    filter_titles = re.findall(r"<summary>\s*(.*?)\s*</summary>", filters, re.S)
    assert all(CJK.search(visible_text(t)) for t in filter_titles), filter_titles


def test_the_task_list_shows_the_request_its_state_and_department_in_words(every_table, demo):
    text = visible_text(changelist(demo["carol"], type(every_table), "zh-hant"))
    number = every_table.purchase_request.number
    assert f"{number} 等待核准 工程部 alice" in text, text
    assert "以 狀態 全部 等待核准" in text and "以 部門 全部 工程部" in text, text
    english = visible_text(changelist(demo["carol"], type(every_table), "en"))
    assert f"{number} Waiting for approval Engineering alice" in english, english


def test_the_admin_index_names_every_table_in_chinese(every_table, demo):
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hant")
    client.force_login(demo["carol"])
    text = visible_text(client.get(reverse("admin:index")).content.decode())
    assert "採購管理後台" in text and "助理狀態紀錄" in text and "請購單" in text and "預算預留" in text, text
    assert "Tasks" not in text and "Purchase requests" not in text and "Agent state" not in text, text


@pytest.mark.parametrize("model, words", [
    ("axes.accessattempt", ["登入防護", "登入嘗試", "嘗試時間", "網址路徑", "依嘗試時間篩選"]),
    ("axes.accesslog", ["登入紀錄", "登出時間", "IP 位址", "瀏覽器識別（User-Agent）"]),
    ("axes.accessfailurelog", ["登入失敗", "已鎖定"]),
    ("procurement.apitoken", ["API 存取權杖", "用戶端"])])
def test_sign_in_protection_and_api_tokens_read_in_chinese_too(every_table, demo, model, words):
    """django-axes has no Chinese of its own and DRF leaves "Token" in English: the product's
    catalogue says them, from the admin index to each list's columns and filters."""
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hant")
    client.force_login(demo["carol"])
    client.get(reverse("admin:index"))  # carol's sign-in leaves a row in the access log
    index = visible_text(client.get(reverse("admin:index")).content.decode())
    assert "登入防護" in index and "Axes" not in index and "Access attempts" not in index and "Tokens" not in index
    app, name = model.split(".")
    text = visible_text(client.get(reverse(f"admin:{app}_{name}_changelist")).content.decode())
    assert all(w in text for w in words), text
    assert not {"Access", "Attempt", "Time", "Token", "Tokens", "Filter"} & set(english_words(text)), text


def test_role_groups_read_as_department_and_role_in_the_group_list_and_the_user_filter(every_table, demo):
    """Role groups are stored as "ENG manager" and "* director" (the code relies on those names);
    an administrator reads them as 「工程部 · 部門主管」 and 「所有部門 · 處長」."""
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hant")
    client.force_login(demo["carol"])
    groups = visible_text(client.get(reverse("admin:auth_group_changelist")).content.decode())
    assert "工程部 · 部門主管" in groups and "所有部門 · 處長" in groups, groups
    assert "ENG manager" not in groups and "* director" not in groups
    users = client.get(reverse("admin:auth_user_changelist")).content.decode()
    assert "工程部 · 部門主管" in visible_text(users) and "ENG manager" not in visible_text(users)
    engineering_managers = Group.objects.get(name="ENG manager")
    filtered = visible_text(client.get(reverse("admin:auth_user_changelist"),
                                       {"groups__id__exact": engineering_managers.pk}).content.decode())
    assert "bob" in filtered and "alice" not in filtered, filtered
    english = Client(HTTP_ACCEPT_LANGUAGE="en")
    english.force_login(demo["carol"])
    assert "Engineering · manager" in visible_text(english.get(reverse("admin:auth_group_changelist")).content.decode())


@pytest.mark.parametrize("model", [Membership, MemoryEntry], ids=lambda model: model._meta.label)
def test_rows_named_by_their_own_words_read_in_chinese(every_table, demo, model):
    """A membership ("alice requester of Engineering" before), a memory entry's status and kind: no English."""
    rows = visible_text(part(changelist(demo["carol"], model, "zh-hant"), '<table id="result_list"', "</table>"))
    rows = re.sub(r"[0-9a-f]{8}-[0-9a-f-]{27}", " ", rows)  # an entry's id
    people = {u.username for u in demo.values()} | {"Monitors", "Remember", "monitors"}
    assert english_words(rows, names=people) == [], rows


def test_a_memory_entry_opened_in_the_admin_reads_its_status_kind_and_source_in_chinese(every_table, demo):
    entry = MemoryEntry.objects.get(subject="alice")
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hant")
    client.force_login(demo["carol"])
    text = visible_text(client.get(reverse("admin:agentstate_memoryentry_change", args=[entry.pk])).content.decode())
    for english in ("Active", "Preference", "Normal", "Current", "Turn object", "a chat turn"):
        assert english not in text, english
    assert "使用中" in text and "偏好" in text


def test_an_admin_sets_a_persons_language_on_her_page_before_she_ever_signs_in(demo):
    from django.test import Client

    from procurement.people.language import language_of
    from procurement.models import UserPreference

    erin, admin = demo["erin"], Client()
    UserPreference.objects.filter(user=erin).delete()
    admin.force_login(demo["carol"])
    page = admin.get(f"/admin/auth/user/{erin.pk}/change/")
    assert page.status_code == 200 and 'name="preference-0-language"' in page.text
    form = page.context["adminform"].form
    data = {name: value for name, value in form.initial.items() if value is not None and name != "password"}
    data.update({"username": erin.username, "date_joined_0": erin.date_joined.strftime("%Y-%m-%d"),
                 "date_joined_1": erin.date_joined.strftime("%H:%M:%S"), "groups": [g.pk for g in erin.groups.all()],
                 "preference-TOTAL_FORMS": "1", "preference-INITIAL_FORMS": "0", "preference-MIN_NUM_FORMS": "0",
                 "preference-MAX_NUM_FORMS": "1", "preference-0-language": "zh-hant", "preference-0-user": erin.pk,
                 "is_active": "on", "usable_password": "true"})
    data.pop("last_login", None)
    data.pop("user_permissions", None)
    saved = admin.post(f"/admin/auth/user/{erin.pk}/change/", data)
    assert saved.status_code == 302, saved.context["adminform"].form.errors if saved.context else saved
    assert language_of(erin) == "zh-hant"

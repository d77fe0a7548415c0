"""The manager's inbox: what each row says, tabs, department filter, search, paging, exports."""
import csv
import io
import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from openpyxl import load_workbook

from agentstate.models import Approval
from procurement.purchase import services
from procurement.pages import inbox

pytestmark = pytest.mark.django_db(transaction=True)
HX = {"HTTP_HX_REQUEST": "true"}
INBOX = reverse("approval-inbox")


def client_for(user, language="en"):
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    return client


def submit(demo, who="alice", department="ENG", item="Laptop", quantity=2, why="new hires"):
    task = services.request_submit(requester=demo[who], department=department, justification=why,
                                   lines=[{"description": item, "quantity": quantity}])
    return Approval.objects.get(task=task, status="pending")


def decide(approval, user, decision="approve", comment=""):
    return services.approval_decide(approval_id=approval.pk, user=user, decision=decision,
                                    state_version=approval.state_version, scope_hash=approval.scope_hash,
                                    comment=comment)


@pytest.fixture
def three(demo, erp, eager):
    """Three ENG approvals for bob: laptops (approved), keyboards (returned), a dock (pending)."""
    laptops = submit(demo, item="Laptop", quantity=2, why="new hires")
    keyboards = submit(demo, item="Keyboard", quantity=3, why="broken keyboards")
    dock = submit(demo, item="USB-C dock", quantity=1, why="hot desk")
    decide(laptops, demo["bob"])
    decide(keyboards, demo["bob"], "return", "only two, please")
    return {name: Approval.objects.get(pk=a.pk) for name, a in
            (("laptops", laptops), ("keyboards", keyboards), ("dock", dock))}


def links(body):
    """How many approvals the list links to."""
    return len(re.findall(r'href="/approvals/[0-9a-f-]{36}/"', body))


def test_a_row_shows_requester_department_purpose_total_time_left_and_why_it_came(demo, erp, eager):
    approval = submit(demo, why="new hires for the platform team")
    body = client_for(demo["bob"]).get(INBOX).content.decode()
    for words in ("Alice Lin", "Engineering", "new hires for the platform team", "NT$", "left",
                  "up to NT$100,000: department manager", reverse("approval-page", args=[approval.pk])):
        assert words in body, words


def test_the_reason_and_the_headings_read_in_traditional_chinese(demo, erp, eager):
    big = submit(demo, item="Laptop", quantity=4)  # above bob's NT$100,000: bob, then the director
    body = client_for(demo["bob"], "zh-hant").get(INBOX).content.decode()
    assert reverse("approval-page", args=[big.pk]) in body
    assert "超過 NT$100,000\u2060（10\u00a0萬），NT$1,000,000\u2060（100\u00a0萬） 以內：部門主管 → 處長" in body and "用途" in body and "含稅" in body


@pytest.mark.parametrize("language, words", [
    ("en", "over NT$1,000,000, up to NT$5,000,000: department manager → director → finance"),
    ("zh-hant", "超過 NT$1,000,000\u2060（100\u00a0萬），NT$5,000,000\u2060（500\u00a0萬） 以內：部門主管 → 處長 → 財務")])
def test_a_three_step_request_gives_its_own_rules_threshold_not_the_managers_limit(demo, erp, eager, language, words):
    submit(demo, item="Laptop", quantity=109)  # NT$3,994,305: the over-NT$1,000,000 rule
    body = client_for(demo["bob"], language).get(INBOX).content.decode()
    assert words in body and "NT$100,000" not in body, body[body.find("<tbody"):][:1500]


@pytest.mark.parametrize("language, words, wrong", [("zh-hant", "已等 12 分鐘", "12 分<"), ("en", "for 12 minutes", "")])
def test_a_row_says_how_long_it_has_waited_in_minutes_in_both_languages(demo, erp, eager, language, words, wrong):
    approval = submit(demo)
    Approval.objects.filter(pk=approval.pk).update(created_at=timezone.now() - timedelta(minutes=12, seconds=30))
    body = client_for(demo["bob"], language).get(INBOX).content.decode().replace("\xa0", " ")
    assert words in body and (not wrong or wrong not in body)


def test_tabs_pending_decided_by_me_and_all_i_may_see(three, demo):
    bob = client_for(demo["bob"])
    pending = bob.get(INBOX).content.decode()
    assert "USB-C dock × 1" in pending and "Laptop" not in pending and "Keyboard" not in pending
    decided = bob.get(INBOX, {"tab": "decided"}).content.decode()
    assert "Laptop × 2" in decided and "Keyboard × 3" in decided and "USB-C dock" not in decided
    assert "Returned for revision" in decided and "Bob Wang, " in decided
    everything = bob.get(INBOX, {"tab": "all"}).content.decode()
    assert all(words in everything for words in ("Laptop × 2", "Keyboard × 3", "USB-C dock × 1"))


@pytest.mark.parametrize("language, words, wrong", [("en", "Request cancelled", "Superseded"),
                                                      ("zh-hant", "請購已取消", "已被新版本取代")])
def test_a_request_cancelled_while_waiting_reads_cancelled_in_the_list_and_its_export(demo, erp, eager, language,
                                                                                      words, wrong):
    approval = submit(demo)
    services.request_cancel(task_id=approval.task_id, user=demo["alice"], reason="not needed")
    bob = client_for(demo["bob"], language)
    everything = bob.get(INBOX, {"tab": "all"}).content.decode()
    row = everything[everything.find(reverse("approval-page", args=[approval.pk])):][:600]
    assert words in row and wrong not in row
    exported = bob.get(reverse("approval-export", args=["csv"]), {"tab": "all"}).content.decode("utf-8-sig")
    assert words in exported and wrong not in exported


def test_a_manager_sees_only_their_department_a_director_sees_all(three, demo):
    erins = submit(demo, who="erin", department="OPS", item="Office chair", quantity=1, why="back pain")
    dave = client_for(demo["dave"]).get(INBOX, {"tab": "all"}).content.decode()
    assert "Office chair × 1" in dave and "Laptop" not in dave and "USB-C dock" not in dave
    frank = client_for(demo["frank"])
    everything = frank.get(INBOX, {"tab": "all"}).content.decode()
    assert "Office chair × 1" in everything and "Laptop × 2" in everything
    ops = frank.get(INBOX, {"tab": "all", "department": "OPS"}).content.decode()
    assert links(ops) == 1 and reverse("approval-page", args=[erins.pk]) in ops
    assert client_for(demo["bob"]).get(reverse("approval-page", args=[erins.pk])).status_code == 404


def test_search_by_request_number_requester_and_po_number(three, demo):
    bob = client_for(demo["bob"])
    number = three["keyboards"].task.purchase_request.number
    assert number.startswith("REQ-") and number in bob.get(INBOX, {"tab": "all"}).content.decode()
    found = bob.get(INBOX, {"tab": "all", "q": number.lower()}).content.decode()
    assert links(found) == 1 and reverse("approval-page", args=[three["keyboards"].pk]) in found
    po = three["laptops"].task.data["purchase_order"]["id"]
    assert po and po in bob.get(INBOX, {"tab": "decided"}).content.decode()
    found = bob.get(INBOX, {"tab": "all", "q": po}).content.decode()
    assert links(found) == 1 and reverse("approval-page", args=[three["laptops"].pk]) in found
    assert links(bob.get(INBOX, {"tab": "all", "q": "alice"}).content.decode()) == 3
    nobody = bob.get(INBOX, {"tab": "all", "q": "mallory"}).content.decode()
    assert links(nobody) == 0 and "No approvals match." in nobody


def test_paging_keeps_the_tab_and_filters(three, demo, monkeypatch):
    monkeypatch.setattr(inbox, "PER_PAGE", 2)
    bob = client_for(demo["bob"])
    first = bob.get(INBOX, {"tab": "all", "q": "alice"}).content.decode()
    assert links(first) == 2 and "Page 1 of 2" in first
    assert 'href="?tab=all&amp;q=alice&amp;page=2"' in first
    second = bob.get(INBOX, {"tab": "all", "q": "alice", "page": 2}).content.decode()
    assert links(second) == 1 and "Page 2 of 2" in second
    assert bob.get(INBOX, {"tab": "all", "page": "99"}).status_code == 200  # past the end: the last page


def test_past_the_count_limit_the_inbox_says_more_than_and_still_pages_newest_first(three, demo, monkeypatch):
    # The inbox counts at most COUNT_LIMIT rows (a director's "all" tab holds most of a million).
    monkeypatch.setattr(inbox, "PER_PAGE", 1)
    monkeypatch.setattr(inbox, "COUNT_LIMIT", 2)
    bob = client_for(demo["bob"])
    first = bob.get(INBOX, {"tab": "all"}).content.decode()
    assert "More than 2 approvals" in first and "3 approvals" not in first
    assert "Page 1" in first and "Page 1 of" not in first and 'rel="next"' in first
    newest_first = [bob.get(INBOX, {"tab": "all", "page": n}).content.decode() for n in (1, 2, 3)]
    assert [f"/approvals/{three[name].pk}/" in body for name, body in zip(("dock", "keyboards", "laptops"),
                                                                         newest_first)] == [True] * 3
    assert 'rel="next"' not in newest_first[2]
    # Within the limit it counts exactly, as before.
    monkeypatch.setattr(inbox, "COUNT_LIMIT", 3)
    assert "3 approvals" in bob.get(INBOX, {"tab": "all"}).content.decode()


def test_htmx_filter_answers_only_the_rows(three, demo):
    page = client_for(demo["bob"]).get(INBOX, {"tab": "all", "q": "alice"}, **HX)
    body = page.content.decode()
    assert page.status_code == 200 and "<html" not in body and "<h1" not in body and links(body) == 3
    assert page.headers["Vary"].count("HX-Request") == 1


def test_csv_export_has_the_current_list_with_its_filters(three, demo):
    bob = client_for(demo["bob"])
    page = bob.get(reverse("approval-export", args=["csv"]), {"tab": "decided"})
    assert page.status_code == 200 and page["Content-Type"].startswith("text/csv")
    assert "attachment" in page["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(page.content.decode("utf-8-sig"))))
    assert rows[0][:3] == ["Request no.", "Items", "Requester"] and len(rows) == 3
    by_items = {row[1]: row for row in rows[1:]}
    laptops = by_items["Laptop × 2"]
    assert laptops[0] == three["laptops"].task.purchase_request.number
    assert laptops[2] == "Alice Lin" and laptops[4] == "new hires" and laptops[6] == "Approved"
    assert laptops[5] == three["laptops"].scope["total"] and laptops[10] == "Bob Wang"
    assert laptops[13] == three["laptops"].task.data["purchase_order"]["id"]
    assert by_items["Keyboard × 3"][12] == "only two, please"


def test_xlsx_export_opens_in_openpyxl_with_numbers_and_the_filters(three, demo):
    page = client_for(demo["bob"], "zh-hant").get(reverse("approval-export", args=["xlsx"]), {"tab": "all",
                                                                                               "q": "alice"})
    assert page.status_code == 200 and "spreadsheetml" in page["Content-Type"]
    sheet = load_workbook(io.BytesIO(page.content)).active
    values = list(sheet.values)
    assert values[0][0] == "請購編號" and len(values) == 4 and sheet.title == "簽核紀錄"
    totals = sorted(float(row[5]) for row in values[1:])
    assert totals == sorted(float(a.scope["total"]) for a in three.values())


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_an_empty_list_exports_a_valid_file_with_only_its_header(demo, fmt):
    page = client_for(demo["bob"]).get(reverse("approval-export", args=[fmt]), {"q": "nobody at all"})
    assert page.status_code == 200
    if fmt == "csv":
        rows = list(csv.reader(io.StringIO(page.content.decode("utf-8-sig"))))
    else:
        rows = list(load_workbook(io.BytesIO(page.content)).active.values)
    assert len(rows) == 1 and rows[0][0] == "Request no." and rows[0][-1] == "PO number"


def test_text_a_spreadsheet_would_run_as_a_formula_is_exported_as_text(demo, erp, eager):
    submit(demo, why="=HYPERLINK(\"http://evil.example\")")
    page = client_for(demo["bob"]).get(reverse("approval-export", args=["xlsx"]))
    purpose = list(load_workbook(io.BytesIO(page.content)).active.values)[1][4]
    assert purpose.startswith("'=")


def test_an_unknown_export_format_is_404(demo):
    assert client_for(demo["bob"]).get(reverse("approval-export", args=["pdf"])).status_code == 404


def test_the_inbox_runs_a_fixed_number_of_queries_in_every_tab(three, demo, django_assert_num_queries):
    bob = client_for(demo["bob"])
    bob.get(INBOX)  # a session's first page also keeps the language it is read in, once
    counts = {}
    for tab, _label in inbox.InboxFilter.base_fields["tab"].choices:
        with CaptureQueriesContext(connection) as before:
            bob.get(INBOX, {"tab": tab})
        counts[tab] = len(before.captured_queries)
    for n in range(3):
        decide(submit(demo, item="Monitor", quantity=n + 1), demo["bob"])
        submit(demo, item="Keyboard", quantity=n + 1)
    for tab, count in counts.items():
        with django_assert_num_queries(count):
            body = bob.get(INBOX, {"tab": tab}).content.decode()
        assert links(body) >= 3


def test_the_department_filter_offers_the_departments_of_the_approvals_each_person_may_see(three, demo):
    from procurement import selectors
    from procurement.models import Department

    submit(demo, who="erin", department="OPS", item="Office chair", quantity=1, why="back pain")
    offered = {who: {d.code for d in selectors.inbox_departments(demo[who])} for who in demo
               if hasattr(demo[who], "is_active")}
    for who, codes in offered.items():
        assert codes == set(selectors.approvals_visible_to(demo[who]).values_list("task__tenant", flat=True)), who
    assert (offered["bob"], offered["dave"], offered["frank"], offered["alice"]) == ({"ENG"}, {"OPS"},
                                                                                    {"ENG", "OPS"}, set())
    # A director who decides for every department is offered a new one before its first approval.
    Department.objects.create(code="LAB", name="Lab", budget_total="1000.00")
    assert {d.code for d in selectors.inbox_departments(demo["frank"])} == {"ENG", "LAB", "OPS"}
    assert {d.code for d in selectors.inbox_departments(demo["bob"])} == {"ENG"}
    options = client_for(demo["bob"]).get(INBOX).content.decode()
    assert "Engineering" in options and "Operations" not in options

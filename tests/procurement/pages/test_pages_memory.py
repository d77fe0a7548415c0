"""The memory pages: a filtered list of what the viewer may read, an entry with its history as
a diff and the requests that used it; correct, confirm, delete after a preview."""
import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from agentstate.memory.models import MAX_CONTENT, MemoryEntry, MemoryVersion
from agentstate.memory.retrieval import memory_retrieve
from agentstate.memory.services import memory_create, memory_propose
from agentstate.models import Session, Turn
from procurement.purchase import services
from procurement.pages.memory import render_diff
from tests.procurement.page_text import visible_text

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}
ENTRY_LINK = re.compile(r'href="/memory/[0-9a-f-]{36}/"')


def client_for(user, csrf=False):
    client = Client(enforce_csrf_checks=csrf)
    client.force_login(user)
    return client


def csrf_post(client, url, data, **extra):
    client.get(reverse("memory-list"))  # sets the CSRF cookie
    return client.post(url, data | {"csrfmiddlewaretoken": client.cookies["csrftoken"].value}, **extra)


def remember(by, content, *, scope="user", subject="alice", kind="preference", **extra):
    return memory_create(by=by, scope=scope, subject=subject, kind=kind, content=content, **extra)


def url(name, entry):
    return reverse(name, args=[entry.pk])


@pytest.fixture
def entries(demo):
    carol = demo["carol"]
    return {
        "pdf": remember(carol, "Prefers quotes as PDF"),
        "desk": remember(carol, "Sits at desk 4F-12", kind="fact"),
        "eng": remember(carol, "The ENG default cost centre is ENG-01", scope="department", subject="ENG", kind="fact"),
        "ops": remember(carol, "OPS orders through the Taoyuan warehouse", scope="department", subject="OPS",
                        kind="procedure"),
        "erin": remember(carol, "Erin prefers Excel attachments", subject="erin"),
        "org": remember(carol, "Supplier X counts as IT hardware", scope="organisation", subject="", kind="term"),
    }


@pytest.fixture
def used(entries, demo):
    """Alice's request used the PDF entry in a chat whose summary is filled: a deletion takes the summary too."""
    alice = demo["alice"]
    task = services.request_submit(requester=alice, department="ENG", justification="desk setup",
                                   lines=[{"description": "Keyboard", "quantity": 1}])
    session = Session.objects.create(owner=alice, task=task, summary="Alice asked for a keyboard.")
    turn = Turn.objects.create(session=session, seq=1, role="user", text="A keyboard please")
    memory_retrieve(alice, task=task, turn=turn)
    return task


def listed(page) -> str:
    return page.content.decode()


def links(body: str) -> int:
    return len(ENTRY_LINK.findall(body))


# -- list ------------------------------------------------------------------------------------

def test_the_list_shows_an_admin_everything_and_a_requester_only_what_they_may_read(entries, demo):
    everything = listed(client_for(demo["carol"]).get(reverse("memory-list")))
    assert all(e.content in everything for e in entries.values()) and "<html" in everything

    mine = listed(client_for(demo["alice"]).get(reverse("memory-list")))
    for name in ("pdf", "desk", "eng", "org"):
        assert entries[name].content in mine
    for name in ("ops", "erin"):
        assert entries[name].content not in mine and str(entries[name].pk) not in mine


def test_the_list_with_htmx_answers_only_the_results_fragment(entries, demo):
    page = client_for(demo["carol"]).get(reverse("memory-list"), {"subject": "alice"}, **HX)
    body = listed(page)
    assert page.status_code == 200 and body.lstrip().startswith('<div id="memory-results">')
    assert "<html" not in body and 'role="search"' not in body
    assert entries["pdf"].content in body and entries["eng"].content not in body
    assert page["Vary"] and "HX-Request" in page["Vary"]


@pytest.mark.parametrize("query,shown", [
    ({"subject": "alice"}, {"pdf", "desk", "proposal"}),
    ({"scope": "department"}, {"eng", "ops"}),
    ({"kind": "fact"}, {"desk", "eng"}),
    ({"subject": "alice", "kind": "preference", "status": "active"}, {"pdf"}),
    ({"status": "proposed"}, {"proposal"}),
])
def test_the_list_filters_by_scope_subject_kind_and_status(entries, demo, query, shown):
    entries["proposal"] = memory_propose(by=demo["alice"], scope="user", subject="alice", kind="preference",
                                         content="Likes standing desks")
    body = listed(client_for(demo["carol"]).get(reverse("memory-list"), query))
    assert {name for name, e in entries.items() if e.content in body} == shown
    assert links(body) == len(shown)
    for name, value in query.items():  # the form keeps what was chosen
        assert (f'name="subject" value="{value}"' if name == "subject" else f'value="{value}" selected') in body


def test_an_unknown_filter_is_named_in_the_page(entries, demo):
    page = client_for(demo["carol"]).get(reverse("memory-list"), {"scope": "planet"})
    assert page.status_code == 400 and "Unknown scope &#x27;planet&#x27;" in listed(page)


def test_the_list_pages_by_50_and_page_links_keep_the_filters(demo):
    for n in range(53):
        remember(demo["carol"], f"Fact number {n}", kind="fact")
    client = client_for(demo["carol"])
    first = listed(client.get(reverse("memory-list"), {"subject": "alice", "kind": "fact"}))
    assert links(first) == 50 and "Page 1 of 2" in first
    assert 'href="?subject=alice&amp;kind=fact&amp;page=2"' in first
    second = listed(client.get(reverse("memory-list"), {"subject": "alice", "kind": "fact", "page": 2}))
    assert links(second) == 3 and "Fact number 0<" in second


def test_the_list_runs_a_fixed_number_of_queries_however_many_entries(demo, django_assert_num_queries):
    carol, client = demo["carol"], client_for(demo["carol"])
    entries = [remember(carol, f"Preference {n}") for n in range(3)]
    memory_propose(by=demo["alice"], entry=entries[0], content="Preference 0, changed")  # a pending change
    client.get(reverse("memory-list"))
    with CaptureQueriesContext(connection) as three:
        assert listed(client.get(reverse("memory-list"))).count("change waiting") == 1
    for n in range(27):
        remember(carol, f"More {n}", kind="fact")
    with django_assert_num_queries(len(three.captured_queries)):
        page = listed(client.get(reverse("memory-list")))
    assert links(page) == 30 and "30 entries" in page


# -- one entry -------------------------------------------------------------------------------

def test_the_entry_page_shows_provenance_history_as_a_diff_and_the_requests_that_used_it(entries, used, demo):
    pdf = entries["pdf"]
    client = client_for(demo["carol"])
    csrf_post(client, url("memory-correct", pdf), {"content": "Prefers quotes as Excel", "reason": "alice asked",
                                                   "version": 1})
    page = client.get(url("memory-entry", pdf))
    body = listed(page)
    assert page.status_code == 200 and "<html" in body
    assert "Prefers quotes as <del>PDF</del><ins>Excel</ins>" in body
    assert "written by Carol Wu" in body and "by Carol Wu at" in body and "alice asked" in body
    assert f'href="/tasks/{used.pk}/">{used.purchase_request.number}</a>' in body, "named by its number, not its id"


def test_the_entry_with_htmx_answers_only_the_panel(entries, demo):
    page = client_for(demo["carol"]).get(url("memory-entry", entries["pdf"]), **HX)
    body = listed(page)
    assert page.status_code == 200 and body.lstrip().startswith('<div id="entry-panel">')
    assert "<html" not in body and "Prefers quotes as PDF" in body


def test_a_source_turn_is_named_and_linked_for_its_owner(demo):
    alice = demo["alice"]
    session = Session.objects.create(owner=alice)
    turn = Turn.objects.create(session=session, seq=3, role="user", text="from now on PDFs please")
    entry = memory_propose(turn=turn, scope="user", subject="alice", kind="preference", content="Prefers PDFs")
    body = listed(client_for(alice).get(url("memory-entry", entry)))
    assert f'href="/chat/{session.pk}/"' in body and "turn #3" in body and "Waiting for confirmation" in body
    assert f'href="/api/v1/sessions/{session.pk}/"' in listed(client_for(demo["carol"]).get(url("memory-entry", entry)))
    zh = Client(HTTP_ACCEPT_LANGUAGE="zh-hant")
    zh.force_login(alice)
    page = zh.get(url("memory-entry", entry)).content.decode()
    assert re.search(r"Alice Lin 於 \d{4}-\d\d-\d\d \d\d:\d\d 的對話</a>，第 3 則", page), "named by its day, not its id"
    shown = visible_text(page)
    assert str(session.pk)[:8] not in shown and str(entry.pk)[:8] not in shown, "no short ids for the requester"


def test_text_in_an_entry_and_its_diff_is_escaped(demo):
    entry = remember(demo["carol"], "Likes <b>bold</b> quotes")
    client = client_for(demo["carol"])
    csrf_post(client, url("memory-correct", entry), {"content": "Likes <script>alert(1)</script> quotes",
                                                     "reason": "test", "version": 1})
    body = listed(client.get(url("memory-entry", entry)))
    assert "<script>alert" not in body and "<b>bold" not in body
    assert "<ins>&lt;script&gt;alert(1)&lt;/script&gt;</ins>" in body


def test_a_diff_marks_words_and_chinese_characters_one_by_one():
    assert render_diff("keep under 50k", "keep requests under 40k") == \
        "keep<ins> requests</ins> under <del>50k</del><ins>40k</ins>"
    assert render_diff("送到新竹辦公室", "送到台北辦公室") == "送到<del>新竹</del><ins>台北</ins>辦公室"
    assert render_diff("line one\nline two", "line one\nline 2") == "line one\nline <del>two</del><ins>2</ins>"


# -- who may --------------------------------------------------------------------------------

def test_an_outsider_gets_404_for_the_entry_and_every_form_and_nothing_changes(entries, demo):
    pdf = entries["pdf"]
    erin = client_for(demo["erin"])
    assert erin.get(url("memory-entry", pdf)).status_code == 404
    assert erin.get(url("memory-delete", pdf)).status_code == 404
    for name, data in (("memory-correct", {"content": "hacked", "reason": "x", "version": 1}),
                       ("memory-confirm", {"version": 1}), ("memory-delete", {"reason": "x"})):
        assert erin.post(url(name, pdf), data).status_code == 404
    pdf.refresh_from_db()
    assert (pdf.status, pdf.version, pdf.content) == ("active", 1, "Prefers quotes as PDF")
    assert erin.get(reverse("memory-entry", args=["00000000-0000-0000-0000-000000000000"])).status_code == 404


def test_a_reader_who_may_not_change_it_sees_no_buttons_and_gets_403_on_every_form(entries, demo):
    eng, alice = entries["eng"], client_for(demo["alice"])  # a member of ENG, not its manager
    body = listed(alice.get(url("memory-entry", eng)))
    assert eng.content in body and "Correct this entry" not in body and "Delete…" not in body
    assert alice.get(url("memory-delete", eng)).status_code == 403
    preview = alice.get(url("memory-delete", eng), **HX)
    assert preview.status_code == 403 and "not delete it" in listed(preview) and "delete-reason" not in listed(preview)
    for name, data in (("memory-correct", {"content": "ENG-02", "reason": "x", "version": 1}),
                       ("memory-confirm", {"version": 1}), ("memory-delete", {"reason": "x"})):
        page = alice.post(url(name, eng), data, **HX)
        assert page.status_code == 403 and 'role="alert"' in listed(page), name
    eng.refresh_from_db()
    assert (eng.status, eng.version) == ("active", 1)


def test_the_departments_manager_may_correct_its_memory(entries, demo):
    page = client_for(demo["bob"]).post(url("memory-correct", entries["eng"]),
                                        {"content": "The ENG default cost centre is ENG-02", "reason": "moved",
                                         "version": 1}, **HX)
    assert page.status_code == 200 and "version 2" in listed(page)


# -- correct ---------------------------------------------------------------------------------

def test_correct_makes_the_next_version_and_keeps_the_old_text_in_history(entries, demo):
    pdf = entries["pdf"]
    client = client_for(demo["carol"], csrf=True)
    page = csrf_post(client, url("memory-correct", pdf), {"content": "Prefers quotes as Excel",
                                                          "reason": "alice asked", "version": 1}, **HX)
    body = listed(page)
    assert page.status_code == 200 and "Corrected: this is now version 2." in body and "<html" not in body
    assert "<del>PDF</del><ins>Excel</ins>" in body
    pdf.refresh_from_db()
    assert (pdf.version, pdf.content) == (2, "Prefers quotes as Excel")
    assert list(pdf.versions.values_list("version", "status")) == [(1, "superseded"), (2, "current")]


def test_correct_without_htmx_redirects_to_the_entry(entries, demo):
    client = client_for(demo["carol"], csrf=True)
    page = csrf_post(client, url("memory-correct", entries["pdf"]),
                     {"content": "Prefers quotes as Excel", "reason": "alice asked", "version": 1})
    assert page.status_code == 302 and page.url == url("memory-entry", entries["pdf"])


@pytest.mark.parametrize("data,message,status", [
    ({"content": "   ", "reason": "typo"}, "Content is required.", 400),
    ({"content": "x" * (MAX_CONTENT + 1), "reason": "typo"}, f"the limit is {MAX_CONTENT}", 400),
    ({"content": "Prefers quotes as Excel", "reason": ""}, "Say why you are correcting it", 400),
    ({"content": "Prefers quotes as Excel", "reason": "r" * 501}, "Keep the reason under 500 characters", 400),
    ({"content": "Prefers quotes as PDF", "reason": "same"}, "The entry already says that.", 400),
    ({"content": "Prefers quotes as Excel", "reason": "stale", "version": 7}, "moved from version 7 to 1", 409),
])
def test_bad_corrections_say_why_in_the_page_and_store_nothing(entries, demo, data, message, status):
    pdf = entries["pdf"]
    page = client_for(demo["carol"]).post(url("memory-correct", pdf), {"version": 1} | data, **HX)
    body = listed(page)
    assert page.status_code == status and message in body and 'role="alert"' in body
    pdf.refresh_from_db()
    assert (pdf.version, pdf.content, pdf.versions.count()) == (1, "Prefers quotes as PDF", 1)


def test_a_refused_correction_keeps_what_was_typed(entries, demo):
    page = client_for(demo["carol"]).post(url("memory-correct", entries["pdf"]),
                                          {"content": "Prefers quotes as ODS", "reason": "", "version": 1})
    assert page.status_code == 400 and ">Prefers quotes as ODS</textarea>" in listed(page)


# -- confirm ---------------------------------------------------------------------------------

def test_confirming_a_pending_change_makes_it_the_active_version(entries, demo):
    pdf = entries["pdf"]
    memory_propose(by=demo["alice"], entry=pdf, content="Prefers quotes as PDF and Excel", reason="both please")
    alice = client_for(demo["alice"], csrf=True)
    before = listed(alice.get(url("memory-entry", pdf)))
    assert "Waiting for confirmation" in before and "PDF<ins> and Excel</ins>" in before and "Confirm v2" in before
    page = csrf_post(alice, url("memory-confirm", pdf), {"version": 1}, **HX)
    assert page.status_code == 200 and "Confirmed: version 2 is in use." in listed(page)
    pdf.refresh_from_db()
    assert (pdf.version, pdf.content, pdf.confirmed_by) == (2, "Prefers quotes as PDF and Excel", demo["alice"])


def test_confirming_a_proposed_entry_activates_it(demo):
    entry = memory_propose(by=demo["alice"], scope="user", subject="alice", kind="preference", content="Likes A4")
    page = client_for(demo["carol"]).post(url("memory-confirm", entry), {"version": 1})
    assert page.status_code == 302
    entry.refresh_from_db()
    assert entry.status == "active" and entry.confirmed_by == demo["carol"]


def test_a_flagged_entry_can_be_reconfirmed_which_clears_the_flag(entries, demo):
    desk = entries["desk"]
    MemoryEntry.objects.filter(pk=desk.pk).update(flag_reason="reconfirm")
    alice = client_for(demo["alice"])
    assert "Reconfirm: it still holds" in listed(alice.get(url("memory-entry", desk)))
    page = alice.post(url("memory-confirm", desk), {"version": 1}, **HX)
    assert page.status_code == 200 and "Reconfirm: it still holds" not in listed(page)
    desk.refresh_from_db()
    assert (desk.flag_reason, desk.version, desk.confirmed_by) == ("", 1, demo["alice"])


def test_a_stale_confirmation_is_refused_and_nothing_moves(entries, demo):
    pdf = entries["pdf"]
    memory_propose(by=demo["alice"], entry=pdf, content="Prefers quotes as ODS")
    page = client_for(demo["alice"]).post(url("memory-confirm", pdf), {"version": 5}, **HX)
    assert page.status_code == 409 and "moved from version 5 to 1" in listed(page)
    pdf.refresh_from_db()
    assert (pdf.version, pdf.content) == (1, "Prefers quotes as PDF")


# -- delete ----------------------------------------------------------------------------------

def test_delete_first_shows_what_goes_with_it_then_deletes_for_good(entries, used, demo):
    pdf = entries["pdf"]
    client = client_for(demo["carol"], csrf=True)
    for content in ("Prefers quotes as Excel", "Prefers quotes as ODS"):
        csrf_post(client, url("memory-correct", pdf), {"content": content, "reason": "change"})
    preview = client.get(url("memory-delete", pdf), **HX)
    body = listed(preview)
    assert preview.status_code == 200 and body.lstrip().startswith('<div class="notice warn" id="delete-preview">')
    assert "also removes 2 history versions and 1 session summary" in body
    assert MemoryEntry.objects.get(pk=pdf.pk).status == "active", "a preview changes nothing"

    page = csrf_post(client, url("memory-delete", pdf), {"reason": "alice asked us to forget it"}, **HX)
    assert page.status_code == 200 and "Deleted:" in listed(page) and "Prefers quotes" not in listed(page)
    assert client.get(url("memory-entry", pdf)).status_code == 404
    assert str(pdf.pk) not in listed(client.get(reverse("memory-list")))
    tombstone = MemoryEntry.objects.get(pk=pdf.pk)
    assert (tombstone.status, tombstone.content) == ("deleted", "")
    assert tombstone.delete_reason == "alice asked us to forget it"
    assert not MemoryVersion.objects.filter(entry=pdf).exists()


def test_the_delete_preview_without_javascript_is_the_entry_page_with_the_form(entries, demo):
    page = client_for(demo["carol"]).get(url("memory-delete", entries["desk"]))
    body = listed(page)
    assert page.status_code == 200 and "<html" in body and "removes nothing else" in body
    assert 'id="delete-reason"' in body and entries["desk"].content in body


def test_delete_without_a_reason_is_refused_and_keeps_the_entry(entries, demo):
    page = client_for(demo["carol"]).post(url("memory-delete", entries["desk"]), {"reason": " "}, **HX)
    assert page.status_code == 400 and "Say why it is deleted" in listed(page)
    assert 'id="delete-reason"' in listed(page), "the form is still there to fill in"
    assert MemoryEntry.objects.get(pk=entries["desk"].pk).status == "active"


# -- CSRF ------------------------------------------------------------------------------------

@pytest.mark.parametrize("name,data", [
    ("memory-correct", {"content": "Prefers quotes as Excel", "reason": "x", "version": 1}),
    ("memory-confirm", {"version": 1}),
    ("memory-delete", {"reason": "x"}),
])
def test_without_a_csrf_token_no_form_does_anything(entries, demo, name, data):
    pdf = entries["pdf"]
    memory_propose(by=demo["alice"], entry=pdf, content="Prefers quotes as ODS")
    assert client_for(demo["carol"], csrf=True).post(url(name, pdf), data, **HX).status_code == 403
    pdf.refresh_from_db()
    assert (pdf.status, pdf.version, pdf.content) == ("active", 1, "Prefers quotes as PDF")


@pytest.mark.parametrize("language, words", [("zh-hant", "原因：alice asked"), ("en", "Reason: alice asked")])
def test_a_versions_reason_follows_its_label_the_way_the_language_writes_it(entries, demo, language, words):
    from tests.procurement.page_text import visible_text

    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(demo["carol"])
    csrf_post(client, url("memory-correct", entries["pdf"]), {"content": "Prefers quotes as Excel",
                                                              "reason": "alice asked", "version": 1})
    text = visible_text(listed(client.get(url("memory-entry", entries["pdf"]))))
    assert words in text and "原因: " not in text


def test_the_memory_pages_speak_traditional_chinese_when_asked(entries, demo):
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hant")
    client.force_login(demo["carol"])
    assert "代理記得的事" in listed(client.get(reverse("memory-list")))
    body = listed(client.get(url("memory-entry", entries["pdf"])))
    assert "更正此項目" in body and "歷史版本" in body and "由 Carol Wu 撰寫" in body


def test_the_delete_preview_and_the_entrys_codes_read_in_traditional_chinese(entries, used, demo):
    from tests.procurement.page_text import english_words, visible_text

    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hant")
    client.force_login(demo["carol"])
    preview = visible_text(listed(client.get(url("memory-delete", entries["pdf"]))))
    assert "內容會永久刪除。" in preview and "同時會刪除1 份對話摘要。" in preview
    assert "使用中" in preview and "偏好" in preview
    leftover = english_words(preview, [entries["pdf"].content, *demo, *(u.get_full_name() for u in demo.values())])
    assert leftover == []


@pytest.mark.parametrize("user", ["alice", "bob", "carol"])
def test_everyone_finds_the_memory_page_in_the_header_where_the_chat_says_to_confirm(demo, user):
    """The chat asks a requester to confirm a preference under "Memory": the link is there for her too."""
    body = client_for(demo[user]).get(reverse("my-requests")).content.decode()
    assert f'href="{reverse("memory-list")}"' in body

"""The requester's chat page and the task page: full page and htmx fragment, CSRF, outsiders."""
import pytest
from django.test import Client
from django.urls import reverse

from agentstate.models import Session, Turn
from procurement.purchase import services
from tests.procurement.chat.dialogs import on_day
from tests.procurement.page_text import visible_text

pytestmark = pytest.mark.django_db(transaction=True)
HX = {"HTTP_HX_REQUEST": "true"}


def client_for(user, csrf=False):
    client = Client(enforce_csrf_checks=csrf)
    client.force_login(user)
    return client


@pytest.fixture
def session(demo):
    return Session.objects.create(owner=demo["alice"])


@pytest.fixture
def task(demo, erp, eager):
    task = services.request_submit(requester=demo["alice"], department="ENG", justification="new hires",
                                   lines=[{"description": "Laptop", "quantity": 2}])
    task.refresh_from_db()  # the agent's steps ran on commit: now awaiting approval
    return task


def test_a_message_with_htmx_returns_only_the_new_turns(session, demo):
    page = client_for(demo["alice"]).post(reverse("chat-message", args=[session.pk]),
                                          {"text": "I need 2 laptops for the new hires"}, **HX)
    body = page.content.decode()
    assert page.status_code == 200 and "<html" not in body
    assert body.count('<li class="user">') == 1 and body.count('<li class="agent">') == 1


def test_a_message_without_htmx_redirects_back_to_the_full_chat_page(session, demo):
    client = client_for(demo["alice"])
    page = client.post(reverse("chat-message", args=[session.pk]), {"text": "2 monitors please"})
    assert page.status_code == 302
    full = client.get(page.url).content.decode()
    assert "<html" in full and "2 monitors please" in full


def test_an_empty_message_is_refused_in_the_page_and_nothing_is_stored(session, demo):
    page = client_for(demo["alice"]).post(reverse("chat-message", args=[session.pk]), {"text": "   "}, **HX)
    assert page.status_code == 400 and "Message is empty" in page.content.decode()
    assert Turn.objects.filter(session=session).count() == 0


def test_the_chat_form_needs_its_csrf_token(session, demo):
    client = client_for(demo["alice"], csrf=True)
    assert client.post(reverse("chat-message", args=[session.pk]), {"text": "hello"}).status_code == 403
    client.get(reverse("chat-page", args=[session.pk]))
    token = client.cookies["csrftoken"].value
    page = client.post(reverse("chat-message", args=[session.pk]), {"text": "hello", "csrfmiddlewaretoken": token})
    assert page.status_code == 302


def test_someone_elses_chat_and_task_are_404(session, task, demo):
    erin = client_for(demo["erin"])
    assert erin.get(reverse("chat-page", args=[session.pk])).status_code == 404
    assert erin.post(reverse("chat-message", args=[session.pk]), {"text": "hi"}).status_code == 404
    assert erin.get(reverse("task-page", args=[task.pk])).status_code == 404
    assert erin.post(reverse("task-cancel", args=[task.pk])).status_code == 404
    assert Turn.objects.filter(session=session).count() == 0


def test_task_page_shows_state_diagram_receipts_and_timeline_in_words(task, demo):
    body = client_for(demo["alice"]).get(reverse("task-page", args=[task.pk])).content.decode()
    assert 'aria-current="step">Waiting for approval' in body
    assert "ERP requisition" in body and "REQ-" in body and "Sent for approval" in body
    assert "routed to the manager: Bob Wang" in body


@pytest.mark.parametrize("language, change, wrong", [
    ("zh-hant", "開始處理</strong><span class=\"muted\">（已收到 → 處理中）</span>", "(草稿 → 已收到)"),
    ("en", "<span class=\"muted\"> (Draft → Received)</span>", "（Draft")])
def test_the_timeline_puts_a_state_change_in_the_readers_parentheses(task, demo, language, change, wrong):
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(demo["alice"])
    body = client.get(reverse("task-page", args=[task.pk])).content.decode()
    assert change in body and wrong not in body


@pytest.mark.parametrize("language, status, wrong", [("zh-hant", "（進行中）", "(進行中)"), ("en", "(Active)", "（")])
def test_the_conversation_a_request_came_from_is_named_with_its_state_in_the_readers_parentheses(
        session, demo, language, status, wrong):
    alice = Client(HTTP_ACCEPT_LANGUAGE=language)
    alice.force_login(demo["alice"])
    alice.post(reverse("chat-message", args=[session.pk]), {"text": "I need 2 monitors for the new hires"})
    session.refresh_from_db()
    text = visible_text(alice.get(reverse("task-page", args=[session.task_id])).content.decode())
    assert status in text and wrong not in text


def test_only_an_admin_sees_the_raw_codes_under_details(task, demo):
    alice = client_for(demo["alice"]).get(reverse("task-page", args=[task.pk])).content.decode()
    carol = client_for(demo["carol"]).get(reverse("task-page", args=[task.pk])).content.decode()
    for internal in ("erp.requisition.create", "request_approval", "Checksum", "transition table"):
        assert internal not in alice
        assert internal in carol


def test_task_panel_fragment_for_polling(task, demo):
    body = client_for(demo["alice"]).get(reverse("task-page", args=[task.pk]), **HX).content.decode()
    assert body.lstrip().startswith('<div id="task-panel"') and "<html" not in body


def test_the_manager_may_read_the_task_but_not_cancel_it(task, demo):
    bob = client_for(demo["bob"])
    assert bob.get(reverse("task-page", args=[task.pk])).status_code == 200
    page = bob.post(reverse("task-cancel", args=[task.pk]), **HX)
    assert page.status_code == 403
    task.refresh_from_db()
    assert task.state == "awaiting_approval"


def test_a_refusal_on_the_task_page_reads_in_the_users_language_without_codes(task, demo):
    bob = client_for(demo["bob"])
    page = bob.post(reverse("task-cancel", args=[task.pk]), headers={"accept-language": "zh-hant"}, **HX)
    body = page.content.decode()
    assert page.status_code == 403
    assert "只有提出這張請購單的人可以修改或取消它。" in body and "may not fire" not in body


def change_form(task, lines=(("Laptop", "1"),), **fields) -> dict:
    """What the request page's change form posts: the version, the purpose, the items as a formset."""
    data = {"version": task.version, "justification": "new hires", "lines-TOTAL_FORMS": len(lines),
            "lines-INITIAL_FORMS": 0, "lines-MIN_NUM_FORMS": 0, "lines-MAX_NUM_FORMS": 50}
    for n, (description, quantity) in enumerate(lines):
        data |= {f"lines-{n}-description": description, f"lines-{n}-quantity": quantity}
    return data | fields


def test_amend_from_the_task_page_makes_a_new_version(task, demo):
    client = client_for(demo["alice"])
    page = client.post(reverse("task-amend", args=[task.pk]), change_form(task), **HX)
    task.refresh_from_db()
    assert page.status_code == 200 and task.data["award"]["lines"][0]["quantity"] == 1


@pytest.mark.parametrize("lines,message", [
    ((("Laptop", "0"),), "greater than or equal to 1"),
    ((("Laptop", "lots"),), "Enter a whole number"),
    ((("Laptop", ""),), "How many?"),
    ((("", "1"),), "at least one item"),
    ((("Laptop", "2"),), "Nothing was changed"),
])
def test_bad_amendments_say_what_is_wrong_and_change_nothing(task, demo, lines, message):
    page = client_for(demo["alice"]).post(reverse("task-amend", args=[task.pk]), change_form(task, lines), **HX)
    assert page.status_code == 400 and message in page.content.decode()
    version = task.version
    task.refresh_from_db()
    assert task.version == version


def test_an_amendment_from_a_stale_page_is_refused(task, demo):
    page = client_for(demo["alice"]).post(reverse("task-amend", args=[task.pk]),
                                          change_form(task, version=task.version - 1), **HX)
    assert page.status_code == 409 and "This request changed since you opened it" in page.content.decode()


def test_task_page_queries_do_not_grow_with_its_history(task, demo, django_assert_num_queries):
    client = client_for(demo["alice"])
    client.get(reverse("task-page", args=[task.pk]))
    # 14: "waiting for bob (or dave, standing in)" and the header's "stands in for someone today" share one read
    # of today's delegations (kept on the request); 15: the people the page names, by full name, in one query;
    # 16: each approval's step decisions with who decided (a chain's earlier comments), in one query.
    with django_assert_num_queries(16) as first:  # the header: unread notices, decider or delegate; her conversations; who she shares it with
        client.get(reverse("task-page", args=[task.pk]))
    services.request_amend(task_id=task.pk, user=demo["alice"], lines=[{"description": "Keyboard", "quantity": 3}])
    with django_assert_num_queries(len(first.captured_queries)):
        client.get(reverse("task-page", args=[task.pk]))


@pytest.mark.parametrize("language, said, need_by, spec", [
    ("zh-hant", "我要兩台27吋螢幕，新人報到用，12月20日前要", "需要日期", "規格"),
    ("en", "I need 2 27-inch monitors for the new hires by December 20", "Needed by", "Spec"),
])
def test_the_draft_panel_shows_the_day_and_the_spec_she_gave(session, demo, language, said, need_by, spec):
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(demo["alice"])
    with on_day("2026-12-01"):  # the day 「12月20日前」 is read against
        client.post(reverse("chat-message", args=[session.pk]), {"text": said})
    panel = visible_text(client.get(reverse("chat-page", args=[session.pk])).content.decode())
    assert f"{need_by} 2026-12-20" in panel, panel
    assert f"{spec} 27" in panel, panel

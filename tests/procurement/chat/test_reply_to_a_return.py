"""A manager returns a request with a question; the requester replies in her own words (on her
request page or over the API, as in the chat transcripts), and the next approval page shows the
question and her reply, and the purpose as it was and became."""
import pytest
from django.test import Client
from django.urls import reverse

from agentstate.models import Approval, Task, TaskEvent

from tests.procurement.page_text import page, visible_text
from tests.procurement.policy_support import api, decide, pending, submit

pytestmark = pytest.mark.django_db(transaction=True)
HX = {"HTTP_HX_REQUEST": "true"}
DOCKS = [{"description": "USB-C dock", "quantity": 2}]
QUESTION = "Which dock model? Any specific one?"


def returned(demo):
    task = submit(demo["alice"], DOCKS)
    assert decide(demo["bob"], pending(task), "return", comment=QUESTION).status_code == 200
    task.refresh_from_db()
    assert task.state == "awaiting_input"
    return task


def reply_form(task, answer, justification="team equipment") -> dict:
    """The request page's answer form: her reply, the lines as they are, the purpose."""
    return {"version": task.version, "answer": answer, "justification": justification,
            "lines-TOTAL_FORMS": 1, "lines-INITIAL_FORMS": 0, "lines-MIN_NUM_FORMS": 0, "lines-MAX_NUM_FORMS": 50,
            "lines-0-description": "USB-C dock", "lines-0-quantity": "2"}


def page_of(user, approval, language) -> str:
    return page(user, reverse("approval-page", args=[approval.pk]), HTTP_ACCEPT_LANGUAGE=language)


def test_her_reply_on_the_request_page_reaches_the_next_approval_in_both_languages(demo, erp, eager):
    task = returned(demo)
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hant")
    client.force_login(demo["alice"])
    html = client.get(reverse("task-page", args=[task.pk])).content.decode()
    form = visible_text(html)
    assert "回答問題" in form and QUESTION in form
    assert '<h2 id="answer-title">回答問題</h2>' in html  # the field below is 「您的回覆」: not said twice
    assert 'value="USB-C 擴充座"' in html and 'value="USB-C dock"' not in html  # the item in her language
    answer = "沒有指定型號，能接兩個螢幕就可以"
    data = reply_form(task, answer) | {"lines-0-description": "USB-C 擴充座"}  # posted back as shown
    answered = client.post(reverse("task-amend", args=[task.pk]), data, **HX)
    assert answered.status_code == 200, visible_text(answered.content.decode())
    task.refresh_from_db()
    assert task.state == "awaiting_approval"
    event = TaskEvent.objects.get(task=task, event="answer")
    assert (event.data["question"], event.data["answer"]) == (QUESTION, answer)
    approval = pending(task)
    zh = page_of(demo["bob"], approval, "zh-hant")
    assert "申請人的回覆" in zh and f"Bob Wang 問： {QUESTION}" in zh and f"Alice Lin 答： {answer}" in zh
    en = page_of(demo["bob"], approval, "en")
    assert "The requester's reply" in en and f"Bob Wang asked: {QUESTION}" in en and f"Alice Lin answered: {answer}" in en


def test_a_reply_that_also_changes_the_purpose_shows_both(demo, erp, eager):
    task = returned(demo)
    response = api(demo["alice"]).patch(f"/api/v1/tasks/{task.pk}/", {
        "version": task.version, "answer": "Any model; two monitors each", "justification": "two new hires"},
        format="json")
    assert response.status_code == 200, response.json()
    approval = pending(task)
    en = page_of(demo["bob"], approval, "en")
    assert "Alice Lin answered: Any model; two monitors each" in en
    assert "Purpose: team equipment → two new hires" in en
    zh = page_of(demo["bob"], approval, "zh-hant")
    assert "用途：team equipment → two new hires" in zh


def test_a_reply_with_nothing_open_is_refused_and_changes_nothing(demo, erp, eager):
    task = submit(demo["alice"], DOCKS)
    version = task.version
    response = api(demo["alice"], "zh-hant").patch(f"/api/v1/tasks/{task.pk}/", {"answer": "any model"},
                                                   format="json")
    assert response.status_code == 400
    assert "這筆請購沒有待回覆的問題" in str(response.json())
    task.refresh_from_db()
    assert task.version == version and Approval.objects.filter(task=task, status="pending").count() == 1


def test_an_empty_reply_form_says_what_to_fill_in(demo, erp, eager):
    task = returned(demo)
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hant")
    client.force_login(demo["alice"])
    refused = client.post(reverse("task-amend", args=[task.pk]), reply_form(task, "  "), **HX)
    assert refused.status_code == 400
    assert "請寫下您的回覆" in visible_text(refused.content.decode())
    task.refresh_from_db()
    assert task.state == "awaiting_input"


def test_her_page_draws_the_usual_path_with_where_the_request_left_it(demo, erp, eager):
    import re
    task = returned(demo)
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(demo["alice"])
    html = client.get(reverse("task-page", args=[task.pk])).content.decode()
    strip = re.search(r'<ol class="flow".*?</ol>', html, re.S).group(0)
    steps = re.findall(r'<li class="(\w+)"[^>]*>(.*?)</li>', strip)
    assert [status for status, _ in steps] == ["done", "done", "done", "current", "todo", "todo", "todo"]
    assert len(steps) == 7, "the usual six steps (to 已結案) and where it stands, not every state there is"


@pytest.mark.parametrize("state, visited, expected", [
    ("processing", [], ["done", "current", "todo", "todo", "todo", "todo"]),
    ("externally_confirmed", [], ["done"] * 4 + ["current", "todo"]),  # ordered: goods and invoice to come
    ("closed", [], ["done"] * 5 + ["current"]),
    ("cancelled", ["received", "processing"], ["done", "done", "current"]),
    ("needs_review", ["received", "processing", "awaiting_approval", "submitted"],
     ["done", "done", "done", "done", "current", "todo", "todo"]),
    ("draft", [], ["current", "todo", "todo", "todo", "todo", "todo", "todo"])])
def test_path_steps(state, visited, expected):
    from procurement.workflow import path_steps
    steps = path_steps(state, visited)
    assert [status for _, status in steps] == expected and dict((s, st) for s, st in steps)[state] == "current"


def test_changed_lines_are_listed_as_each_language_lists(demo, erp, eager):
    task = returned(demo)
    response = api(demo["alice"]).patch(f"/api/v1/tasks/{task.pk}/", {
        "version": task.version, "answer": "a keyboard too",
        "lines": [*DOCKS, {"description": "Keyboard", "quantity": 1}]}, format="json")
    assert response.status_code == 200, response.json()
    approval = pending(task)
    assert "USB-C 擴充座 × 2 → USB-C 擴充座 × 2、鍵盤 × 1" in page_of(demo["bob"], approval, "zh-hant")
    assert "USB-C dock × 2 → USB-C dock × 2, Keyboard × 1" in page_of(demo["bob"], approval, "en")


def test_her_answer_to_the_agents_question_before_any_approval_reaches_the_approver(demo, erp, eager):
    """Over her cap at once: the agent asks, she answers with a new cap, and the first approval page
    shows the agent's question and her words (it showed only the new cap)."""
    response = api(demo["alice"]).post("/api/v1/tasks/", {"department": "ENG", "lines": DOCKS, "budget": "1000",
                                                          "justification": "team equipment"}, format="json")
    task = Task.objects.get(pk=response.json()["id"])
    assert task.state == "awaiting_input"
    answered = api(demo["alice"]).patch(f"/api/v1/tasks/{task.pk}/", {
        "version": task.version, "answer": "預算寫錯了，應該是四萬", "budget": "40000"}, format="json")
    assert answered.status_code == 200, answered.json()
    zh = page_of(demo["bob"], pending(task), "zh-hant")
    assert "助理問：" in zh and "Alice Lin 答： 預算寫錯了，應該是四萬" in zh
    en = page_of(demo["bob"], pending(task), "en")
    assert "The agent asked:" in en and "Alice Lin answered: 預算寫錯了，應該是四萬" in en

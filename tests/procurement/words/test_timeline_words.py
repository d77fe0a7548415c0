"""The timeline of a request that went through the work queue, was forked, rewound and cancelled
reads in words only (issue 24, Done when): in zh-Hant no English word, no task id, no code of an
event, state, step or operation; in English no Chinese beyond the people's own words. Built
through the services, against the ERP simulator across a real socket, and read on the request's
page as its requester and as the admin who moved it."""
import re

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from agentstate.models import Task
from procurement.history import review
from procurement.history import timetravel as tt
from procurement.models import Department, Supplier
from procurement.purchase import services

from tests.procurement.page_text import english_words, state_codes, visible_text

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
SNAKE = re.compile(r"\b[a-z]+(?:_[a-z]+)+\b|\b[a-z]+\.[a-z_]+\.[a-z_]+\b")
HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef]")
# The people's own words, as they typed them: shown as written in either language.
RETRY_WHY, FORK_WHY, REWIND_WHY = "ERP 恢復了", "try the other supplier", "報價過期"


def fresh(task) -> Task:
    return Task.objects.get(pk=task.pk)


def point(task, cursor="award") -> int:
    return next(c.id for c in tt.task_checkpoints(user=task.initiator, task_id=task.pk)
                if c.cursor == cursor and c.state == "processing")


def timeline(user, task, language) -> str:
    client = Client()
    client.force_login(user)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    answer = client.get(reverse("task-page", args=[task.pk]))
    assert answer.status_code == 200
    [section] = re.findall(r'<ol class="timeline">.*?</ol>', answer.content.decode(), re.S)
    return visible_text(section)


def names() -> set[str]:
    """What a timeline may show as it is: people, suppliers, departments' codes."""
    people = {part for user in get_user_model().objects.all()
              for part in (user.username, user.first_name, user.last_name, user.get_full_name()) if part}
    return people | set(Supplier.objects.values_list("name", flat=True)) | set(
        Department.objects.values_list("code", flat=True))


@pytest.fixture
def travelled(demo, erp, eager):
    """Alice's request: in review (the ERP was down), retried from the work queue, forked to
    another supplier, rewound to its quotes, then cancelled by her."""
    erp.fault(mode="down", path="/requisitions")
    task = services.request_submit(requester=demo["alice"], department="ENG", justification="new hires",
                                   lines=[{"description": "Laptop", "quantity": 2}])
    task = fresh(task)
    assert task.state == "needs_review"
    erp.clear_faults()
    review.review_retry(user=demo["carol"], task_id=task.pk, expected_version=task.version, reason=RETRY_WHY)
    task = fresh(task)
    assert task.state == "awaiting_approval"

    fork = tt.task_fork(user=demo["carol"], task_id=task.pk, checkpoint=point(task), reason=FORK_WHY)
    task = fresh(task)
    tt.task_rewind(user=demo["carol"], task_id=task.pk, checkpoint=point(task), expected_version=task.version,
                   reason=REWIND_WHY)
    task = fresh(task)
    assert task.state == "awaiting_approval"
    services.request_cancel(task_id=task.pk, user=demo["alice"], expected_version=task.version)
    task = fresh(task)
    assert task.state == "cancelled"
    events = list(task.events.values_list("event", flat=True))
    assert {"retry", "forked", "rewind", "cancel"} <= set(events), events
    return {"task": task, "fork": fresh(fork)}


@pytest.mark.parametrize("reader", ["alice", "carol"])
def test_the_zh_hant_timeline_of_a_reviewed_forked_rewound_cancelled_request_holds_no_english(travelled, demo,
                                                                                               reader):
    for task in (travelled["task"], travelled["fork"]):
        text = timeline(demo[reader], task, "zh-hant")
        assert text, "the timeline shows its events"
        left = english_words(text.replace(FORK_WHY, " "), names())
        assert left == [], (left, text)
        assert not UUID.search(text) and not state_codes(text) and not SNAKE.search(text), text
    assert "重試" in timeline(demo[reader], travelled["task"], "zh-hant")


@pytest.mark.parametrize("reader", ["alice", "carol"])
def test_the_english_timeline_of_the_same_request_holds_no_chinese(travelled, demo, reader):
    for task in (travelled["task"], travelled["fork"]):
        text = timeline(demo[reader], task, "en")
        own_words = text.replace(RETRY_WHY, " ").replace(REWIND_WHY, " ")
        for supplier in Supplier.objects.values_list("name", flat=True):  # a Taiwanese supplier's own name
            own_words = own_words.replace(supplier, " ")
        assert not HAN.search(own_words), text
        assert not UUID.search(text) and not state_codes(text) and not SNAKE.search(text), text
    assert "try the other supplier" in timeline(demo[reader], travelled["task"], "en")


def admin_page(user, url, language) -> str:
    client = Client()
    client.force_login(user)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    answer = client.get(url)
    assert answer.status_code == 200
    return answer.content.decode()


def test_the_admins_details_of_the_request_say_each_recorded_reason_and_erp_error_in_words(travelled, demo):
    """Under "Details for admins": the event log's reasons, the receipts' errors, who may fire each
    transition and each checkpoint's boundary, in the reader's language; the stored English stays
    only in a tooltip."""
    task = travelled["task"]
    html = admin_page(demo["carol"], reverse("task-page", args=[task.pk]), "zh-hant")
    [details] = re.findall(r'<details class="internals">(.*)</details>', html, re.S)
    text = visible_text(re.sub(r'<td class="muted">.*?</td>', " ", details))  # keys and checksums: ids
    assert "重試步驟「建立 ERP 請購單」。ERP 恢復了" in text and "倒回到第 3 版儲存的狀態" in text, text
    assert "申請人" in text and "採購助理" in text, "who may fire a transition, in words"
    left = english_words(text.replace(FORK_WHY, " "), names() | {"v"})
    assert left == [], (left, text)
    assert not state_codes(text) and not SNAKE.search(text), text
    english = visible_text(re.findall(r'<details class="internals">(.*)</details>',
                                      admin_page(demo["carol"], reverse("task-page", args=[task.pk]), "en"),
                                      re.S)[0])
    assert "retried the step “Creating the ERP requisition”" in english and "the requester" in english, english


def test_the_django_admins_event_rows_read_their_reasons_in_the_readers_language(travelled, demo):
    task = travelled["task"]
    for url in (reverse("admin:agentstate_task_change", args=[task.pk]),
                reverse("admin:agentstate_taskevent_changelist") + f"?q={task.pk}"):
        html = admin_page(demo["carol"], url, "zh-hant")
        cells = re.findall(r'<t[hd] class="field-reason_column">(.*?)</t[hd]>', html, re.S)
        assert cells, url
        text = " ".join(visible_text(cell) for cell in cells)
        assert "決標給" in text and "申請人取消" in text, text
        assert english_words(text.replace(FORK_WHY, " "), names()) == [], text
        english = admin_page(demo["carol"], url, "en")
        shown = " ".join(visible_text(c) for c in re.findall(r'<t[hd] class="field-reason_column">(.*?)</t[hd]>',
                                                             english, re.S))
        assert "cancelled by the requester" in shown and "決標給" not in shown, shown

"""The requester is told when an admin rewinds, forks or replays her request (procurement.notices.travel):
on her notices page and by mail, in her language, with who did it, the reason and what happens next;
a refused action tells her nothing."""
import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from agentstate.models import Task, TaskEvent
from agentstate.timetravel import REPLAY_EVENT
from procurement.purchase import services
from procurement.history import timetravel as tt
from procurement.people.language import user_language_set
from procurement.models import Notice, Notification, PurchaseRequest

from tests.procurement.page_text import english_words, state_codes, visible_text

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
TASKS = "/api/v1/tasks/"
TRAVEL_KINDS = ("rewound", "forked", "replayed")


@pytest.fixture(params=["en", "zh-hant"])
def language(request):
    return request.param


@pytest.fixture
def waiting(demo, erp, eager, language):
    user_language_set(user=demo["alice"], language=language)
    task = services.request_submit(requester=demo["alice"], department="ENG", justification="new hires",
                                   lines=[{"description": "Laptop", "quantity": 2}])
    return Task.objects.get(pk=task.pk)


def number(task) -> str:
    return PurchaseRequest.objects.get(task=task).number


def point(task, cursor="award") -> int:
    return next(c.id for c in tt.task_checkpoints(user=task.initiator, task_id=task.pk)
                if c.cursor == cursor and c.state == "processing")


def api(user, task, action, body):
    client = APIClient()
    client.force_authenticate(user)
    return client.post(f"{TASKS}{task.pk}/{action}/", body, format="json")


def page_post(user, task, name, data):
    client = Client()
    client.force_login(user)
    return client.post(reverse(name, args=[task.pk]), data)


def notices_page(user, language) -> str:
    client = Client()
    client.force_login(user)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    answer = client.get(reverse("notices"))
    assert answer.status_code == 200
    return visible_text(answer.content.decode())


def travel_notices(user):
    return list(Notice.objects.filter(recipient=user, kind__in=TRAVEL_KINDS))


def assert_in_her_language(text, language):
    assert not state_codes(text), "no raw state or step codes"
    if language == "zh-hant":
        # People's names, the item and the admin's own words (quoted as she wrote them) are not the page's English.
        quoted = {"wrong", "supplier", "picked", "try", "the", "other", "checking", "quotes"}
        assert not english_words(text, names={"Carol", "Wu", *quoted}), text


WORDS = {
    "rewound": {"en": ["Carol Wu moved your request", "back to an earlier step", "Reason: “wrong supplier picked”",
                       "the request goes back to “Comparing quotes”"],
                "zh-hant": ["Carol Wu 將您的請購", "倒回到較早的步驟", "理由：「wrong supplier picked」", "「比較報價」"]},
    "replayed": {"en": ["Carol Wu re-ran the agent's steps", "as a dry run", "Reason: “checking the quotes”",
                        "Nothing was sent and nothing changed"],
                 "zh-hant": ["Carol Wu 以模擬方式重跑", "理由：「checking the quotes」", "沒有送出任何東西，也沒有任何變更"]},
}


def test_a_rewind_tells_her_who_why_and_where_it_goes_on_on_her_page_and_by_mail(waiting, demo, language):
    answer = api(demo["carol"], waiting, "rewind", {"checkpoint": point(waiting), "confirm": True,
                                                    "reason": "wrong supplier picked"})
    assert answer.status_code == 200, answer.json()

    [notice] = travel_notices(demo["alice"])
    text = notices_page(demo["alice"], language)
    assert notice.kind == "rewound" and notice.url.endswith(f"/tasks/{waiting.pk}/")
    assert number(waiting) in text
    for words in WORDS["rewound"][language]:
        assert words in text, words
    assert_in_her_language(notice.text, language)
    [mail] = Notification.objects.filter(to="alice@example.com", kind="rewound")
    assert number(waiting) in mail.subject and "wrong supplier picked" in mail.body
    assert f"/tasks/{waiting.pk}/" in mail.body


def test_a_fork_from_the_page_tells_her_the_new_requests_number_and_links_it(waiting, demo, language):
    answer = page_post(demo["carol"], waiting, "task-fork", {"checkpoint": point(waiting),
                                                             "reason": "try the other supplier"})
    assert answer.status_code == 302
    fork = Task.objects.exclude(pk=waiting.pk).get()

    [notice] = travel_notices(demo["alice"])
    text = notices_page(demo["alice"], language)
    assert notice.kind == "forked" and notice.task_id == waiting.pk
    assert notice.url.endswith(f"/tasks/{fork.pk}/"), "the notice leads to the new request"
    assert number(fork) in notice.text and number(waiting) in notice.text
    if language == "en":
        assert f"Carol Wu started a new request {number(fork)} from your request {number(waiting)}" in text
        assert "Reason: “try the other supplier”" in text
        assert f"{number(waiting)} itself is not changed; it stands as before — waiting for approval." in text
    else:
        assert f"Carol Wu 從您的請購 {number(waiting)}" in text and f"另開新請購 {number(fork)}" in text
        assert "理由：「try the other supplier」" in text and "不受影響" in text
    assert_in_her_language(notice.text, language)
    assert not Notice.objects.filter(task=fork, kind__in=TRAVEL_KINDS).exists(), "one notice, not two"


def test_a_replay_tells_her_nothing_changed(waiting, demo, language):
    answer = api(demo["carol"], waiting, "replay", {"checkpoint": point(waiting), "reason": "checking the quotes"})
    assert answer.status_code == 200, answer.json()

    [notice] = travel_notices(demo["alice"])
    text = notices_page(demo["alice"], language)
    assert notice.kind == "replayed"
    for words in WORDS["replayed"][language]:
        assert words in text, words
    assert_in_her_language(notice.text, language)


def test_without_a_reason_the_notice_says_none_was_given(waiting, demo, language):
    assert api(demo["carol"], waiting, "replay", {"checkpoint": point(waiting)}).status_code == 200

    [notice] = travel_notices(demo["alice"])
    assert ("No reason was given." if language == "en" else "未說明理由") in notice.text
    # The event keeps no empty words: a replay, a fork and a rewind without a reason store none alike.
    assert "why" not in TaskEvent.objects.filter(task=waiting, event=REPLAY_EVENT).get().data


def test_refused_actions_tell_her_nothing(waiting, demo, language):
    checkpoint = point(waiting)
    assert api(demo["alice"], waiting, "rewind", {"checkpoint": checkpoint, "confirm": True}).status_code == 403
    assert api(demo["carol"], waiting, "rewind", {"checkpoint": checkpoint, "confirm": True,
                                                  "version": waiting.version - 1}).status_code == 409
    assert api(demo["carol"], waiting, "replay", {"checkpoint": 999999999}).status_code == 400
    assert api(demo["carol"], waiting, "fork", {"checkpoint": checkpoint, "supplier": "Nobody Ltd"}).status_code == 400
    assert page_post(demo["bob"], waiting, "task-fork", {"checkpoint": checkpoint}).status_code == 403
    assert api(demo["carol"], waiting, "rewind", {"checkpoint": checkpoint}).status_code == 200  # only the list

    assert travel_notices(demo["alice"]) == []
    assert not Notification.objects.filter(kind__in=TRAVEL_KINDS).exists()

"""The request page's checkpoints and its ways back (procurement.pages.timetravel): what each
button says, the rewind's list before the confirmation, a replay beside what happened, a fork
linked both ways, pause and resume for the requester; refusals with a reason and nothing changed."""
import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from agentstate.models import Task
from procurement.purchase import services
from procurement.history import timetravel as tt

from tests.procurement.page_text import visible_text

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def waiting(demo, erp, eager):
    task = services.request_submit(requester=demo["alice"], department="ENG", justification="new hires",
                                   lines=[{"description": "Laptop", "quantity": 2}])
    return Task.objects.get(pk=task.pk)


def client_for(user, language="en", enforce_csrf=False) -> Client:
    client = Client(enforce_csrf_checks=enforce_csrf)
    client.force_login(user)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    return client


def point(task, cursor="award") -> int:
    return next(c.id for c in tt.task_checkpoints(user=task.initiator, task_id=task.pk)
                if c.cursor == cursor and c.state == "processing")


def page_text(user, task, language="en") -> str:
    answer = client_for(user, language).get(reverse("task-page", args=[task.pk]))
    assert answer.status_code == 200
    return visible_text(answer.content.decode())


def post(user, task, name, data, language="en"):
    return client_for(user, language).post(reverse(name, args=[task.pk]), data)


def test_an_admin_sees_the_checkpoints_and_each_button_says_what_it_will_and_will_not_do(waiting, demo):
    text = page_text(demo["carol"], waiting)
    chinese = page_text(demo["carol"], waiting, "zh-hant")

    assert "Replay from here (dry run)" in text and "It sends nothing to the ERP and changes nothing." in text
    assert "Rewind to here" in text and "an order or mail already sent is not undone" in text
    assert "Fork from here" in text and "This request is not changed." in text
    assert "從這裡模擬重跑" in chinese and "倒回到這裡" in chinese and "從這裡另開分支" in chinese
    assert "v1" in text and "Comparing quotes" in text, "the timeline names each checkpoint's next step"


def test_the_requester_sees_no_way_back_of_an_admin(waiting, demo):
    text = page_text(demo["alice"], waiting)

    assert "Rewind to here" not in text and "Replay from here" not in text


def test_rewind_shows_the_cancellation_first_and_changes_nothing_until_confirmed(waiting, demo, erp):
    [requisition] = erp.requisitions()

    shown = post(demo["carol"], waiting, "task-rewind", {"checkpoint": point(waiting)})

    text = visible_text(shown.content.decode())
    assert shown.status_code == 200
    assert f"Will be undone: ERP requisition {requisition['id']} will be cancelled." in text
    assert "budget will be released" in text and "Confirm: undo these and rewind" in text
    assert Task.objects.get(pk=waiting.pk).version == waiting.version
    assert erp.requisitions()[0]["status"] != "cancelled"

    done = post(demo["carol"], waiting, "task-rewind", {"checkpoint": point(waiting), "confirm": "on",
                                                        "version": waiting.version})

    assert done.status_code == 302
    assert "cancelled" in [r["status"] for r in erp.requisitions()]
    assert "Rewound to an earlier checkpoint" in page_text(demo["carol"], waiting)


def test_a_confirmed_rewind_for_a_version_that_moved_on_is_refused_on_the_page_and_undoes_nothing(waiting, demo,
                                                                                                   erp):
    refused = post(demo["carol"], waiting, "task-rewind", {"checkpoint": point(waiting), "confirm": "on",
                                                           "version": waiting.version - 1})

    assert refused.status_code == 409
    assert "changed since you looked" in visible_text(refused.content.decode())
    assert Task.objects.get(pk=waiting.pk).version == waiting.version
    assert "cancelled" not in [r["status"] for r in erp.requisitions()]


def test_replay_shows_would_call_beside_what_happened_and_the_erp_hears_nothing(waiting, demo, erp):
    count = erp.stats()["requests"]

    shown = post(demo["carol"], waiting, "task-replay", {"checkpoint": point(waiting)})

    text = visible_text(shown.content.decode())
    assert shown.status_code == 200
    assert "would call ERP requisition" in text and "answered from its receipt" in text
    assert "What really happened" in text and "0 differences" in text
    assert erp.stats()["requests"] == count
    assert Task.objects.get(pk=waiting.pk).version == waiting.version


def test_a_replay_says_each_steps_reason_in_words_in_zh_hant_not_as_its_stored_code(waiting, demo):
    text = visible_text(post(demo["carol"], waiting, "task-replay", {"checkpoint": point(waiting)},
                             "zh-hant").content.decode())

    assert "決標給" in text and "送交主管核准" in text, text
    assert "'code'" not in text and "awarded" not in text and "routed" not in text, text


def test_fork_goes_to_the_new_request_and_both_pages_link_each_other(waiting, demo):
    answer = post(demo["carol"], waiting, "task-fork", {"checkpoint": point(waiting)})

    assert answer.status_code == 302
    fork = Task.objects.exclude(pk=waiting.pk).get()
    assert answer["Location"] == reverse("task-page", args=[fork.pk])
    original_number, fork_number = waiting.purchase_request.number, fork.purchase_request.number
    assert f"Forked from {original_number}" in page_text(demo["carol"], fork)
    assert f"Forks {fork_number}" in page_text(demo["alice"], waiting)


def test_the_zh_hant_timeline_of_a_fork_reads_in_words_and_names_each_request_by_its_number(waiting, demo):
    post(demo["carol"], waiting, "task-fork", {"checkpoint": point(waiting), "reason": "換一家供應商"})
    fork = Task.objects.exclude(pk=waiting.pk).get()

    original = page_text(demo["carol"], waiting, "zh-hant")
    assert f"分出新請購 {fork.purchase_request.number}；原因：「換一家供應商」" in original
    assert str(fork.pk) not in original and "forked by" not in original and "checkpoint" not in original
    assert f"從 {waiting.purchase_request.number} 第" in page_text(demo["carol"], fork, "zh-hant")


def test_pause_and_resume_from_the_page_as_the_requester(demo, erp):
    task = services.request_submit(requester=demo["alice"], department="ENG", justification="x",
                                   lines=[{"description": "Laptop", "quantity": 1}])
    assert "The agent stops after the step it is on" in page_text(demo["alice"], task)

    assert post(demo["alice"], task, "task-pause", {}).status_code == 302
    assert Task.objects.get(pk=task.pk).state == "paused"
    assert "Nothing done so far is repeated." in page_text(demo["alice"], task)
    assert post(demo["alice"], task, "task-resume", {}).status_code == 302
    assert Task.objects.get(pk=task.pk).state == "processing"


def test_refusals_say_why_in_the_readers_language_and_change_nothing(waiting, demo):
    as_requester = post(demo["alice"], waiting, "task-replay", {"checkpoint": point(waiting)}, "zh-hant")
    no_pick = post(demo["carol"], waiting, "task-rewind", {})
    outsider = post(demo["erin"], waiting, "task-fork", {"checkpoint": point(waiting)})

    assert as_requester.status_code == 403 and "只有管理員" in visible_text(as_requester.content.decode())
    assert no_pick.status_code == 400 and "Pick a checkpoint first." in visible_text(no_pick.content.decode())
    assert outsider.status_code == 404
    assert Task.objects.count() == 1 and Task.objects.get(pk=waiting.pk).version == waiting.version


def test_the_forms_need_the_csrf_token(waiting, demo):
    client = client_for(demo["carol"], enforce_csrf=True)

    assert client.post(reverse("task-rewind", args=[waiting.pk]), {"checkpoint": point(waiting)}).status_code == 403

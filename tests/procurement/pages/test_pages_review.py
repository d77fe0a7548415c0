"""The work queue page: why each task is in review, the receipts in doubt, the actions as forms
(full page and htmx fragment), cancel's preview first, who may act, both languages."""
import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from agentstate.models import Task, TaskEvent
from procurement.purchase import services

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
HX = {"HTTP_HX_REQUEST": "true"}
QUEUE = "/review/"


@pytest.fixture
def in_review(demo, erp, eager):
    """The ERP is down when the requisition is created: the task waits in review."""
    erp.fault(mode="down", path="/requisitions")
    task = services.request_submit(requester=demo["alice"], department="ENG", justification="new hires",
                                   lines=[{"description": "Laptop", "quantity": 2}])
    task = Task.objects.get(pk=task.pk)
    assert task.state == "needs_review"
    return task


def client_for(user, csrf=False, lang="en"):
    client = Client(enforce_csrf_checks=csrf, HTTP_ACCEPT_LANGUAGE=lang)
    client.force_login(user)
    return client


def act(task, action):
    return reverse("review-action", args=[task.pk, action])


def test_the_queue_shows_why_the_task_is_there_and_what_is_in_doubt(in_review, demo):
    page = client_for(demo["bob"]).get(QUEUE)

    html = page.content.decode()
    assert page.status_code == 200 and "<html" in html
    assert "result pending verification" in html, "the reason of the event that put it there"
    assert in_review.purchase_request.number in html
    assert "ERP requisition" in html and "Result pending verification" in html
    assert f'href="{reverse("review-queue")}"' in html, "linked in the header for those who may act"
    for label in ("Check the ERP again", "Record the outcome", "Retry the step", "Cancel…"):
        assert label in html


def test_the_queue_in_traditional_chinese_shows_no_raw_state_code(in_review, demo):
    html = client_for(demo["carol"], lang="zh-hant").get(QUEUE).content.decode()

    assert "工作佇列" in html and "再次查詢 ERP" in html
    assert ">needs_review<" not in html
    assert "工程部 · Alice Lin" in html and "ENG · " not in html, "the department by its name"


def test_the_htmx_fragment_is_the_queue_only(in_review, demo):
    fragment = client_for(demo["bob"]).get(QUEUE, **HX)

    assert fragment.status_code == 200 and "<html" not in fragment.content.decode()
    assert 'id="review-queue"' in fragment.content.decode()
    assert "HX-Request" in fragment["Vary"]


def test_requesters_see_no_queue_link_and_the_queue_is_not_there_for_them(in_review, demo):
    alice = client_for(demo["alice"])
    assert f'href="{reverse("review-queue")}"' not in alice.get(reverse("my-requests")).content.decode()
    assert alice.get(QUEUE).status_code == 404
    assert alice.post(act(in_review, "retry"), {"version": in_review.version, "reason": "x"}).status_code == 404


def test_a_manager_with_nothing_in_review_sees_an_empty_queue(demo):
    html = client_for(demo["dave"]).get(QUEUE).content.decode()
    assert f'href="{reverse("review-queue")}"' in html and "Nothing needs a person" in html


def test_retry_from_the_page_is_recorded_with_who_and_why(in_review, demo, erp):
    erp.clear_faults()
    client = client_for(demo["bob"], csrf=True)
    client.get(QUEUE)

    answer = client.post(act(in_review, "retry"), {"version": in_review.version, "reason": "ERP is back",
                                                   "csrfmiddlewaretoken": client.cookies["csrftoken"].value}, **HX)

    assert answer.status_code == 200 and "<html" not in answer.content.decode()
    assert "runs the step again" in answer.content.decode()
    event = TaskEvent.objects.get(task_id=in_review.pk, event="retry")
    assert (event.actor, event.reason.endswith("ERP is back")) == ("bob", True)
    assert Task.objects.get(pk=in_review.pk).state == "awaiting_approval"


def test_without_csrf_token_nothing_happens(in_review, demo):
    answer = client_for(demo["bob"], csrf=True).post(act(in_review, "retry"),
                                                      {"version": in_review.version, "reason": "x"})
    assert answer.status_code == 403
    assert not TaskEvent.objects.filter(task_id=in_review.pk, event="retry").exists()


def test_an_action_without_a_reason_is_a_400_in_the_users_language(in_review, demo):
    answer = client_for(demo["bob"], lang="zh-hant").post(act(in_review, "reconcile"),
                                                          {"version": in_review.version, "reason": ""}, **HX)
    assert answer.status_code == 400
    with translation.override("zh-hant"):
        assert "說明原因" in answer.content.decode()
    assert Task.objects.get(pk=in_review.pk).version == in_review.version


def test_record_outcome_needs_the_erp_reference(in_review, demo):
    answer = client_for(demo["carol"]).post(act(in_review, "record-outcome"),
                                            {"version": in_review.version, "reason": "looked it up"})
    assert answer.status_code == 400 and "Enter the ERP reference" in answer.content.decode()


def test_a_refused_action_reads_in_the_users_language_not_as_the_services_english(in_review, demo):
    answer = client_for(demo["carol"], lang="zh-hant").post(act(in_review, "record-outcome"), {
        "version": in_review.version, "reason": "查過了", "external_id": "PO 000123!"}, **HX)
    html = answer.content.decode()
    assert answer.status_code == 400 and "ERP 編號只能包含英文字母、數字及 - _ . /" in html
    assert "An ERP reference is" not in html
    assert Task.objects.get(pk=in_review.pk).version == in_review.version


def test_cancel_shows_its_preview_first_then_cancels(in_review, demo, erp):
    client = client_for(demo["carol"])
    preview = client.get(act(in_review, "cancel"), **HX)
    html = preview.content.decode()
    assert preview.status_code == 200 and "What will be undone" in html and "What cannot be undone" in html
    # BUDGET_HOLD=soft: before approval the request holds nothing that blocks anyone, so nothing to release.
    assert "Nothing to undo." in html and "budget will be released" not in html
    assert Task.objects.get(pk=in_review.pk).state == "needs_review", "a preview changes nothing"

    erp.clear_faults()
    done = client.post(act(in_review, "cancel"), {"version": in_review.version, "reason": "not needed"})

    assert done.status_code == 200 and "Cancelled" in done.content.decode()
    assert Task.objects.get(pk=in_review.pk).state == "cancelled"
    assert TaskEvent.objects.get(task_id=in_review.pk, event="cancel").actor == "carol"


def test_a_stale_form_is_a_409_with_what_changed_and_nothing_moves(in_review, demo, erp):
    erp.clear_faults()
    client_for(demo["bob"]).post(act(in_review, "retry"), {"version": in_review.version, "reason": "first"})
    moved = Task.objects.get(pk=in_review.pk)

    answer = client_for(demo["carol"]).post(act(in_review, "retry"), {"version": in_review.version,
                                                                      "reason": "second"}, **HX)

    assert answer.status_code == 409 and "changed since you looked" in answer.content.decode()
    assert "no longer in the work queue" in answer.content.decode()
    assert Task.objects.get(pk=in_review.pk).version == moved.version


def test_the_requester_and_outsiders_get_404(in_review, demo):
    for outsider in ("alice", "erin", "dave"):
        assert client_for(demo[outsider]).post(act(in_review, "retry"),
                                               {"version": in_review.version, "reason": "x"}).status_code == 404
        assert client_for(demo[outsider]).get(act(in_review, "cancel")).status_code == 404
    assert not TaskEvent.objects.filter(task_id=in_review.pk, event="retry").exists()


def test_the_queue_runs_a_fixed_number_of_queries_however_many_tasks(in_review, demo, erp,
                                                                    django_assert_max_num_queries):
    client = client_for(demo["carol"])
    client.get(QUEUE)
    for _ in range(3):
        services.request_submit(requester=demo["alice"], department="ENG", justification="more",
                                lines=[{"description": "Laptop", "quantity": 1}])
    assert Task.objects.filter(state="needs_review").count() == 4
    with django_assert_max_num_queries(12):
        client.get(QUEUE)


def test_with_hard_holds_the_cancel_preview_says_the_budget_will_be_released(settings, demo, erp, eager):
    settings.BUDGET_HOLD, settings.BUDGET_HOLD_CAP = "cap", 10_000_000
    erp.fault(mode="down", path="/requisitions")
    task = services.request_submit(requester=demo["alice"], department="ENG", justification="new hires",
                                   lines=[{"description": "Laptop", "quantity": 2}])
    html = client_for(demo["carol"]).get(act(task, "cancel"), **HX).content.decode()
    assert "NT$73,290 of the Engineering budget will be released." in html and "Nothing to undo." not in html
    zh = client_for(demo["carol"], lang="zh-hant").get(act(task, "cancel"), **HX).content.decode()
    assert "將釋出工程部的預算 NT$73,290。" in zh and "ENG" not in zh


@pytest.mark.parametrize("lang, words", [
    ("zh-hant", "無法確認 ERP 是否已建立：ERP 本身發生錯誤（HTTP 503）。"),
    ("en", "Whether the ERP made it could not be checked: The ERP had an error of its own (HTTP 503).")])
def test_the_last_error_is_said_in_a_few_words_with_the_raw_error_under_details(in_review, demo, lang, words):
    from tests.procurement.page_text import visible_text
    html = client_for(demo["carol"], lang=lang).get(QUEUE).content.decode()
    text = visible_text(html)
    assert words in text
    assert text.index(words) < text.index("HTTP 503 ERP unavailable")  # the raw error follows, under "details"
    assert "<code>could not verify: ERP GET /requisitions: HTTP 503" in html


@pytest.mark.parametrize("raw, en", [
    ("ERP GET /purchase-orders: no answer (ConnectionError: [Errno 111] Connection refused)",
     "The ERP could not be reached."),
    ("ERP POST /requisitions: no answer (ReadTimeout: read timed out)", "The ERP did not answer in time."),
    ("ERP POST /purchase-orders: HTTP 503 Service Unavailable", "The ERP had an error of its own (HTTP 503)."),
    ("step 'create_requisition' failed 3 times in a row; last error: ERP POST /requisitions: HTTP 502 bad gateway",
     "The ERP had an error of its own (HTTP 502)."),
    ("ERP refused (422): supplier unknown", "The ERP refused it (HTTP 422)."),
    ("could not verify: ERP GET /requisitions: no answer (ConnectTimeout: timed out)",
     "Whether the ERP made it could not be checked: The ERP did not answer in time."),
    ("something else entirely", "")])
def test_erp_errors_in_a_few_words(raw, en):
    from procurement.words.erp import error_words
    with translation.override("en"):
        assert error_words(raw) == en


def test_checking_again_while_the_erp_is_still_down_says_so_in_her_words_not_the_raw_error(in_review, demo):
    from tests.procurement.page_text import visible_text
    answer = client_for(demo["carol"], lang="zh-hant").post(act(in_review, "reconcile"), {
        "version": in_review.version, "reason": "再查一次"}, **HX)
    assert answer.status_code == 200
    text = visible_text(answer.content.decode())
    assert "仍無法確認。ERP 請購單：ERP 目前還無法確認是否已生效。ERP 本身發生錯誤（HTTP 503）。" in text
    assert "GET /requisitions" not in text.split("仍無法確認", 1)[1].split("詳細資料", 1)[0]

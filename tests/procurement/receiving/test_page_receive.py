"""The request page's 驗收 form: the full page and its htmx fragment, a CSRF-enforcing post, a
refusal shown on its row with nothing written, and who sees the form at all."""
import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from procurement.models import GoodsReceipt

from tests.procurement.receiving.support import ordered

pytestmark = pytest.mark.django_db(transaction=True)


def client_for(user, language="zh-hant", **kwargs):
    client = Client(**kwargs)
    client.force_login(user)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    return client


def test_she_records_two_of_three_on_her_page_with_a_csrf_checked_post(demo, erp, eager):
    task = ordered(demo)
    client = client_for(demo["alice"], enforce_csrf_checks=True)
    page = client.get(reverse("task-page", args=[task.pk])).content.decode()
    assert "登記到貨（驗收）" in page and 'name="accepted_0"' in page
    token = client.cookies[settings.CSRF_COOKIE_NAME].value
    answer = client.post(reverse("task-receive", args=[task.pk]),
                         {"accepted_0": "2", "note": "兩台先到", "csrfmiddlewaretoken": token})
    assert answer.status_code == 302
    assert [(line.line, line.accepted) for line in GoodsReceipt.objects.get(task=task).lines.all()] == [(0, 2)]
    assert "部分到貨（2/3）" in client.get(reverse("task-page", args=[task.pk])).content.decode()
    assert len(erp.goods_receipts()) == 1


def test_too_many_is_shown_on_its_row_in_the_fragment_and_nothing_is_written(demo, erp, eager):
    task = ordered(demo)
    answer = client_for(demo["alice"]).post(reverse("task-receive", args=[task.pk]), {"accepted_0": "4"},
                                            HTTP_HX_REQUEST="true")
    assert answer.status_code == 400
    body = answer.content.decode()
    assert body.lstrip().startswith('<div id="task-actions"') and "<html" not in body
    assert "最多只能再驗收 3" in body
    assert not GoodsReceipt.objects.exists() and erp.goods_receipts() == []


def test_a_rejection_without_a_reason_asks_why(demo, erp, eager):
    task = ordered(demo)
    answer = client_for(demo["alice"], "en").post(reverse("task-receive", args=[task.pk]),
                                                  {"accepted_0": "2", "rejected_0": "1"})
    assert answer.status_code == 400 and "Say why: damaged, wrong item or other." in answer.content.decode()
    assert not GoodsReceipt.objects.exists()


def test_who_may_not_receive_sees_no_form_and_a_post_is_refused(demo, erp, eager):
    task = ordered(demo)
    frank = client_for(demo["frank"])  # a director sees the request, but receives nothing for ENG
    assert 'name="accepted_0"' not in frank.get(reverse("task-page", args=[task.pk])).content.decode()
    assert frank.post(reverse("task-receive", args=[task.pk]), {"accepted_0": "1"}).status_code == 403
    assert client_for(demo["erin"]).post(reverse("task-receive", args=[task.pk]),
                                         {"accepted_0": "1"}).status_code == 404
    assert not GoodsReceipt.objects.exists()

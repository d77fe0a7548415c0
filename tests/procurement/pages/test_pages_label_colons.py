"""A label and its value on a zh-Hant page are joined by a full-width colon (「供應商：…」), on an
English one by ": " — never "供應商: …" with an ASCII colon in Chinese text."""
import re

import pytest
from django.test import Client
from django.urls import reverse

from agentstate.models import Approval
from procurement.purchase import services

from tests.procurement.page_text import visible_text

pytestmark = pytest.mark.django_db(transaction=True)
ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-hant"}
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
ASCII_COLON_AFTER_HAN = re.compile(r"[\u3400-\u9fff）]: ")


def text(user, url, **headers) -> str:
    client = Client(**headers)
    client.force_login(user)
    response = client.get(url)
    assert response.status_code == 200
    return visible_text(response.content.decode())


def test_the_request_page_and_the_approval_page_use_a_full_width_colon_in_chinese(demo, erp, eager):
    task = services.request_submit(requester=demo["alice"], department="ENG", justification="新人報到",
                                   lines=[{"description": "Laptop", "quantity": 2}])
    task.refresh_from_db()
    services.request_amend(task_id=task.pk, user=demo["alice"], expected_version=task.version,
                           lines=[{"description": "Laptop", "quantity": 1}])
    approval = Approval.objects.get(task=task, status="pending")

    request_page = text(demo["alice"], reverse("task-page", args=[task.pk]), **ZH)
    assert "供應商：" in request_page and "追蹤編號" not in request_page, "the trace id is for admins"
    assert "追蹤編號（詢問這張請購單時請提供）：" in text(demo["carol"], reverse("task-page", args=[task.pk]), **ZH)
    approval_page = text(demo["bob"], reverse("approval-page", args=[approval.pk]), **ZH)
    assert "總計（含稅）：" in approval_page
    for page in (request_page, approval_page):
        assert ASCII_COLON_AFTER_HAN.findall(page) == [], page

    assert "Supplier: " in text(demo["alice"], reverse("task-page", args=[task.pk]), **EN)
    assert "Total (incl. tax): " in text(demo["bob"], reverse("approval-page", args=[approval.pk]), **EN)

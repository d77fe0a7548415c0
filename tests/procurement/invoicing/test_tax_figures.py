"""One 營業稅: a cap said before tax reads the same in the chat, on the request page and in the API
(issue 24: 未稅 1,001 was NT$1,051 in one place and NT$1,051.05 in another)."""
import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from agentstate.models import Session, Task
from procurement.models import PurchaseRequest
from tests.procurement.chat.support import no_memory_store  # noqa: F401

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("no_memory_store")]


@pytest.mark.parametrize("language, first, yes", [("en", "1 keyboard for the new hire, budget 1001 before tax", "yes"),
                                                  ("zh-hant", "一個鍵盤給新同事，預算 1001 元，未稅", "好")])
def test_a_cap_of_1001_before_tax_is_1051_in_the_chat_on_the_page_and_stored(demo, erp, eager, language, first, yes):
    api = APIClient(headers={"accept-language": language})
    api.force_authenticate(demo["alice"])
    session = Session.objects.create(owner=demo["alice"])
    replies = [api.post(f"/api/v1/sessions/{session.pk}/messages/", {"text": text}, format="json").json()["reply"]
               for text in (first, yes)]
    assert "NT$1,051" in replies[0] and "1,051.05" not in replies[0]

    task = Task.objects.get()
    assert PurchaseRequest.objects.get(task=task).budget == 1051
    page = Client(headers={"accept-language": language})
    page.force_login(demo["alice"])
    body = page.get(reverse("task-page", args=[task.pk])).content.decode()
    assert "NT$1,051<" in body and "1,051.05" not in body

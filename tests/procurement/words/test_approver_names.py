"""Whom a request waits on is named the same way everywhere (issue 27, 13): the chat's status
reply, the request list, the request page, the approval page, mail and notices all read each
approver by name and a delegate standing in "on behalf of" that person, from one function
(procurement.words.people.approvers_words)."""
import re
from datetime import timedelta

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from agentstate.models import Approval
from procurement import tasks
from procurement.models import Notice
from tests.procurement.chat.support import no_memory_store, open_session, talk  # noqa: F401
from tests.procurement.policy_support import MIDDLE, SMALL, api, pending, submit
from tests.procurement.page_text import visible_text

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("no_memory_store")]

NAMED = {"en": "Bob Wang or Dave Huang on behalf of Bob Wang", "zh-hant": "Bob Wang 或 Dave Huang（代 Bob Wang）"}


def delegate_to_dave(bob):
    today = timezone.localdate()
    made = api(bob).post("/api/v1/delegations/", {"delegate": "dave", "starts": str(today),
                                                  "ends": str(today + timedelta(days=6))}, format="json")
    assert made.status_code == 201, made.json()


def text_of(user, url, language) -> str:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    response = client.get(url)
    assert response.status_code == 200
    return " ".join(visible_text(response.content.decode()).split())


@pytest.mark.parametrize("language", ["en", "zh-hant"])
def test_the_chat_the_request_list_the_request_page_and_the_approval_page_name_them_alike(
        demo, erp, eager, language):
    task = submit(demo["alice"], SMALL)
    approval = pending(task)
    delegate_to_dave(demo["bob"])
    named = NAMED[language]
    status = talk(open_session(demo["alice"]), demo["alice"], "where is my request?" if language == "en" else "進度")
    assert named in " ".join(status.reply.split()), status.reply
    assert named in text_of(demo["alice"], reverse("my-requests"), language)
    assert named in text_of(demo["alice"], reverse("task-page", args=[task.pk]), language)
    approval_page = text_of(demo["bob"], reverse("approval-page", args=[approval.pk]), language)
    assert named in approval_page, re.findall(r"Bob Wang.{0,60}", approval_page)
    assert "standing in" not in approval_page and "代理人 Dave" not in approval_page


def test_the_mail_about_a_step_that_waited_too_long_names_them_alike(demo, erp, eager):
    task = submit(demo["alice"], MIDDLE)
    approval = pending(task)
    delegate_to_dave(demo["bob"])
    approval.refresh_from_db()
    approval.chain[approval.step]["since"] = (timezone.now() - timedelta(hours=30)).isoformat()
    Approval.objects.filter(pk=approval.pk).update(chain=approval.chain)
    mail.outbox.clear()
    assert tasks.escalate_approvals() == 1
    notice = Notice.objects.get(recipient=demo["frank"], kind="approval_escalated")
    assert f"waited too long for {NAMED['en']}" in notice.text_in("en")
    assert NAMED["zh-hant"] in notice.text_in("zh-hant")
    to_frank = [" ".join(m.body.split()) for m in mail.outbox if demo["frank"].email in m.to]
    assert any(named in body for body in to_frank for named in NAMED.values()), to_frank

"""Delegation is told: the delegate hears when someone names them (and again on its first day),
the person they stand in for hears of each decision made in their name, and the request's approval
history says "on behalf of" and lists every step of the chain."""
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from procurement.infra.outbox import outbox_dispatch
from procurement.models import Notice, Notification
from procurement.models.policy import Delegation
from procurement.notices.delegations import delegation_notices
from procurement.people.language import user_language_set

from tests.procurement.policy_support import MIDDLE, api, decide, pending, submit

pytestmark = pytest.mark.django_db(transaction=True)


def delegate(by, to, starts, ends):
    return api(by).post("/api/v1/delegations/", {"delegate": to, "starts": str(starts), "ends": str(ends)},
                        format="json")


def test_dave_is_told_when_bob_names_him_and_bob_of_what_dave_decided_for_him(demo, erp, eager):
    user_language_set(user=demo["dave"], language="zh-hant")
    user_language_set(user=demo["bob"], language="en")
    today = timezone.localdate()
    assert delegate(demo["bob"], "dave", today, today + timedelta(days=6)).status_code == 201

    [made] = Notice.objects.filter(recipient=demo["dave"])
    assert made.kind == "delegation_made" and made.task is None
    assert "Bob Wang 指定您為代理人，自今天起至" in made.text_in("zh-hant")
    assert "Bob Wang named you their delegate from today until" in made.text_in("en")
    mail = Notification.objects.get(to=demo["dave"].email)
    assert mail.subject == "Bob Wang 指定您為代理人" and "/delegations/" in mail.body
    assert delegation_notices() == 0, "told once"
    assert delegation_notices(today=today + timedelta(days=1)) == 0, "made on its first day: no second notice"

    task = submit(demo["alice"], MIDDLE)  # the manager's step, then the director's
    approval = pending(task)
    assert decide(demo["dave"], approval, comment="ok for the team").status_code == 200
    [told] = Notice.objects.filter(recipient=demo["bob"], kind="decided_for_you")
    number = task.purchase_request.number
    assert (f"Dave Huang, your delegate, approved step 1 of 2 of Alice Lin's request {number}" in told.text_in("en")
            and "Their comment: “ok for the team”" in told.text_in("en"))
    assert f"您的代理人 Dave Huang 已代您核准 Alice Lin 的請購單 {number}" in told.text_in("zh-hant")
    approval.refresh_from_db()
    director = approval.approvers.exclude(pk=demo["bob"].pk).first()
    assert decide(director, approval).status_code == 200
    assert Notice.objects.filter(recipient=demo["bob"], kind="decided_for_you").count() == 1, "only his step"
    outbox_dispatch()
    assert Notification.objects.get(to=demo["bob"].email, kind="decided_for_you").status == "sent"

    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hant")
    client.force_login(demo["alice"])
    page = client.get(reverse("task-page", args=[task.pk])).content.decode()
    assert "第 1 關：Dave Huang 代 Bob Wang 核准" in page and "「ok for the team」" in page
    assert f"第 2 關：{director.get_full_name() or director.username} 核准" in page


def test_a_delegate_is_told_again_on_the_first_day(demo):
    user_language_set(user=demo["dave"], language="en")
    tomorrow = timezone.localdate() + timedelta(days=1)
    assert delegate(demo["bob"], "dave", tomorrow, tomorrow + timedelta(days=2)).status_code == 201
    [made] = Notice.objects.filter(recipient=demo["dave"])
    assert "from %s to %s" % (tomorrow, tomorrow + timedelta(days=2)) in made.text_in("en")
    assert delegation_notices() == 0, "not started yet"

    assert delegation_notices(today=tomorrow) == 1
    assert delegation_notices(today=tomorrow) == 0, "once, whoever runs the pass again"
    started = Notice.objects.get(recipient=demo["dave"], kind="delegation_started")
    assert started.text_in("en").startswith("From today until %s you stand in for Bob Wang" % (
        tomorrow + timedelta(days=2)))
    assert "自今天起至" in started.text_in("zh-hant")
    assert Notification.objects.filter(to=demo["dave"].email).count() == 2
    assert Delegation.objects.count() == 1

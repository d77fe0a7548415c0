"""Sign-in, navigation, language and formatting: what every page stands on."""
from decimal import Decimal

import pytest
from django.test import Client
from django.utils import translation
from django.urls import reverse

from procurement.templatetags.money import ntd


@pytest.mark.django_db
def test_anonymous_visitors_are_sent_to_sign_in(client):
    for name in ("home", "chat-sessions", "approval-inbox"):
        page = client.get(reverse(name))
        assert page.status_code == 302 and page.url.startswith("/accounts/login/")


@pytest.mark.django_db
def test_sign_in_lands_managers_on_the_inbox_and_requesters_on_their_requests(demo):
    bob = Client()
    assert bob.post("/accounts/login/", {"username": "bob", "password": "demo"}).status_code == 302
    assert bob.get(reverse("home")).url == reverse("approval-inbox")
    alice = Client()
    assert alice.post("/accounts/login/", {"username": "alice", "password": "demo"}).status_code == 302
    home = alice.get(reverse("home"))
    assert home.status_code == 200 and "My requests" in home.content.decode()


@pytest.mark.django_db
def test_pages_speak_traditional_chinese_when_asked(demo):
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hant")
    client.force_login(demo["bob"])
    body = client.get(reverse("approval-inbox")).content.decode()
    assert "等待您簽核的項目" in body and 'lang="zh-hant"' in body


@pytest.mark.django_db
def test_nav_shows_approvals_only_to_deciders(demo):
    for user, shown in (("bob", True), ("alice", False)):
        client = Client()
        client.force_login(demo[user])
        assert (reverse("approval-inbox") in client.get(reverse("chat-sessions")).content.decode()) is shown


@pytest.mark.parametrize("amount,text", [
    ("73500.00", "NT$73,500"), (Decimal("1234567.49"), "NT$1,234,567.49\u2060（123.46\u00a0萬）"),
    ("700000", "NT$700,000\u2060（70\u00a0萬）"), (None, "—"),
])
def test_money_reads_as_ntd_whole_dollars_without_zero_cents_and_large_sums_in_wan(amount, text):
    with translation.override("zh-hant"):
        assert ntd(amount) == f'<span class="money">{text}</span>'  # on a page, kept on one line


@pytest.mark.django_db
@pytest.mark.parametrize("accept,button", [("en", "New conversation"), ("zh-hant", "新對話")])
def test_opening_the_new_conversation_address_leads_to_the_conversation_list(demo, accept, button):
    """A typed or bookmarked /chat/new/ is a GET: it leads to the list with its start button, starts
    nothing; the button (a POST) starts one."""
    from agentstate.models import Session

    client = Client(HTTP_ACCEPT_LANGUAGE=accept)
    client.force_login(demo["alice"])
    before = Session.objects.count()
    page = client.get(reverse("chat-new"), follow=True)
    assert page.status_code == 200 and page.redirect_chain[-1][0] == reverse("chat-sessions")
    assert button in page.content.decode() and Session.objects.count() == before
    started = client.post(reverse("chat-new"))
    assert started.status_code == 302 and Session.objects.count() == before + 1

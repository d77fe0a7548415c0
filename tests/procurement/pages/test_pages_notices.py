"""The bell in the header and the notices page: full page and htmx fragment, mark read with
CSRF enforced, someone else's notice, both languages; the language a person chooses is kept."""
import re

import pytest
from django.test import Client
from django.urls import reverse

from agentstate.machine import task_create
from procurement.people.language import user_language_set
from procurement.models import Notice, UserPreference

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}


def client_for(user, csrf=False, language=None):
    client = Client(enforce_csrf_checks=csrf)
    client.force_login(user)
    if language:
        client.cookies["django_language"] = language
    return client


@pytest.fixture
def notices(demo):
    alice = demo["alice"]
    task = task_create(kind="purchase", initiator=alice, tenant="ENG", data={"revision": 1})
    made = []
    for n, (kind, text) in enumerate([("approved", "Bob Chen approved your request REQ-1"),
                                      ("po_issued", "The ERP confirmed purchase order PO-000007"),
                                      ("returned", "Bob Chen returned your request REQ-2 for revision")]):
        made.append(Notice.objects.create(recipient=alice, kind=kind, task=task, text=text, key=f"t:{n}",
                                          url=f"https://buy.example.tw/tasks/{task.pk}/"))
    Notice.objects.create(recipient=demo["bob"], kind="approval_new", task=task, text="Approval needed: REQ-1",
                          url="https://buy.example.tw/approvals/x/", key="t:bob")
    return made


def unread_badge(body: str) -> str | None:
    found = re.search(r'data-unread="(\d+)"', body)
    return found and found.group(1)


def csrf_post(client, path, data, **extra):
    client.get(reverse("notices"))
    return client.post(path, data | {"csrfmiddlewaretoken": client.cookies["csrftoken"].value}, **extra)


def test_the_header_counts_only_my_unread_notices_on_every_page(notices, demo):
    assert unread_badge(client_for(demo["alice"]).get(reverse("chat-sessions")).content.decode()) == "3"
    assert unread_badge(client_for(demo["bob"]).get(reverse("approval-inbox")).content.decode()) == "1"
    assert unread_badge(client_for(demo["carol"]).get(reverse("notices")).content.decode()) is None


def test_the_notices_page_lists_mine_newest_first_each_linking_to_its_request(notices, demo):
    page = client_for(demo["alice"]).get(reverse("notices"))
    body = page.content.decode()
    assert page.status_code == 200 and "<html" in body
    positions = [body.index(n.text) for n in reversed(notices)]
    assert positions == sorted(positions), "newest first"
    assert f'href="{notices[0].url}"' in body
    assert "Approval needed" not in body, "bob's notice is not alice's"


def test_htmx_gets_only_the_list_fragment_with_the_badge(notices, demo):
    page = client_for(demo["alice"]).get(reverse("notices"), **HX)
    body = page.content.decode()
    assert page.status_code == 200 and "<html" not in body and 'id="notice-list"' in body
    assert 'hx-swap-oob="true"' in body and unread_badge(body) == "3"
    assert page.headers["Vary"] and "HX-Request" in page.headers["Vary"]


def test_mark_one_read_needs_the_csrf_token_and_lowers_the_count(notices, demo):
    client = client_for(demo["alice"], csrf=True)
    refused = client.post(reverse("notices-read"), {"notice": notices[0].pk})
    assert refused.status_code == 403
    notices[0].refresh_from_db()
    assert not notices[0].read

    page = csrf_post(client, reverse("notices-read"), {"notice": notices[0].pk}, **HX)
    assert page.status_code == 200 and unread_badge(page.content.decode()) == "2"
    notices[0].refresh_from_db()
    assert notices[0].read


def test_mark_all_read_without_htmx_redirects_to_the_page_with_no_badge(notices, demo):
    client = client_for(demo["alice"], csrf=True)
    page = csrf_post(client, reverse("notices-read"), {"all": "on"})
    assert page.status_code == 302
    assert unread_badge(client.get(page.url).content.decode()) is None
    assert Notice.objects.get(recipient=demo["bob"]).read_at is None, "only the caller's notices"


def test_someone_elses_notice_is_not_found_and_stays_unread(notices, demo):
    bobs = Notice.objects.get(recipient=demo["bob"])
    page = client_for(demo["alice"]).post(reverse("notices-read"), {"notice": bobs.pk}, **HX)
    assert page.status_code == 404
    bobs.refresh_from_db()
    assert not bobs.read


def test_a_form_naming_nothing_is_refused_with_a_message_in_the_users_language(notices, demo):
    page = client_for(demo["alice"], language="zh-hant").post(reverse("notices-read"), {}, **HX)
    assert page.status_code == 400 and "請指定要標示為已讀的通知" in page.content.decode()


def test_the_page_and_badge_in_traditional_chinese(notices, demo):
    body = client_for(demo["alice"], language="zh-hant").get(reverse("notices")).content.decode()
    assert "通知：3 則未讀" in body and "全部標示為已讀" in body and "標示為已讀" in body
    assert "Mark as read" not in body and "Notices" not in body


def test_an_empty_list_says_so(demo):
    body = client_for(demo["erin"]).get(reverse("notices")).content.decode()
    assert "No notices yet" in body


def test_switching_language_in_the_header_is_kept_and_used_at_the_next_sign_in(demo):
    alice = demo["alice"]
    client = client_for(alice, csrf=True)
    client.get(reverse("notices"))
    page = client.post(reverse("set_language"), {"language": "zh-hant", "next": "/notices/",
                                                 "csrfmiddlewaretoken": client.cookies["csrftoken"].value})
    assert page.status_code == 302 and UserPreference.objects.get(user=alice).language == "zh-hant"

    elsewhere = Client()  # another browser: no language cookie
    signed_in = elsewhere.post(reverse("login"), {"username": "alice", "password": "demo"})
    assert signed_in.status_code == 302 and elsewhere.cookies["django_language"].value == "zh-hant"
    assert "通知" in elsewhere.get(reverse("notices")).content.decode()


def test_a_bad_language_changes_no_preference(demo):
    user_language_set(user=demo["alice"], language="en")
    client = client_for(demo["alice"])
    client.post(reverse("set_language"), {"language": "klingon", "next": "/"})
    assert UserPreference.objects.get(user=demo["alice"]).language == "en"


def test_the_header_count_refreshes_in_place_from_the_same_url(notices, demo):
    client = client_for(demo["alice"])
    page = client.get(reverse("notices"), {"part": "bell"}, **HX)
    body = page.content.decode()
    assert page.status_code == 200 and body.lstrip().startswith("<a") and 'id="notice-bell"' in body
    assert unread_badge(body) == "3" and "notice-list" not in body
    Notice.objects.filter(recipient=demo["alice"]).update(read_at=notices[0].created_at)
    assert unread_badge(client.get(reverse("notices"), {"part": "bell"}, **HX).content.decode()) is None

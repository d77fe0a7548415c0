"""A manager's own request on the pages, in both languages: the approval page says who decides
now and why the requester is not on the chain; her own request page says whom it waits for; a
request only she could have decided says so on its page. No raw codes."""
import pytest
from django.test import Client
from django.urls import reverse

from tests.procurement.page_text import english_words, page, state_codes, visible_text
from tests.procurement.policy_support import LARGE, pending, submit

pytestmark = pytest.mark.django_db(transaction=True)
ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-hant"}
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
ONE_LAPTOP = [{"description": "Laptop", "quantity": 1}]
FOUR_LAPTOPS = [{"description": "Laptop", "quantity": 4}]
NAMES = ["bob", "frank", "alice", "carol", "Bob Wang", "Frank Chang", "Alice Lin", "Carol Wu", "team equipment"]


def test_the_chain_reads_who_takes_bob_step_in_english(demo, erp, eager):
    approval = pending(submit(demo["bob"], FOUR_LAPTOPS))
    text = page(demo["frank"], reverse("approval-page", args=[approval.pk]), **EN)
    assert "director (Frank Chang)" in text and "finance (Carol Wu)" in text
    assert "In place of the department manager: Bob Wang is the requester, and nobody decides their own request." in text
    assert "in_place_of" not in text and "without_requester" not in text


def test_on_his_large_request_the_director_reads_he_covers_bob_step(demo, erp, eager):
    approval = pending(submit(demo["bob"], LARGE))
    text = page(demo["frank"], reverse("approval-page", args=[approval.pk]), **EN)
    assert ("Also decides in place of the department manager step: Bob Wang is the requester, and nobody decides their "
            "own request.") in text
    chinese = page(demo["frank"], reverse("approval-page", args=[approval.pk]), **ZH)
    assert "同時代替「部門主管」這一關核准：Bob Wang 是申請人" in chinese


def test_the_director_reads_it_in_chinese(demo, erp, eager):
    approval = pending(submit(demo["bob"], FOUR_LAPTOPS))
    text = page(demo["frank"], reverse("approval-page", args=[approval.pk]), **ZH)
    assert "代替部門主管核准：Bob Wang 是申請人，任何人都不能核准自己的請購。" in text
    assert english_words(text, names=NAMES) == [], english_words(text, names=NAMES)
    assert state_codes(text) == []


def test_within_bob_limit_the_step_reads_director_in_place_of_the_manager_in_both_languages(demo, erp, eager):
    approval = pending(submit(demo["bob"], ONE_LAPTOP))
    url = reverse("approval-page", args=[approval.pk])
    english = page(demo["frank"], url, **EN)
    assert "director (Frank Chang)" in english and "department manager (any one" not in english
    assert "In place of the department manager: Bob Wang is the requester, and nobody decides their own request." \
        in english
    chinese = page(demo["frank"], url, **ZH)
    assert "申請人" in chinese
    assert english_words(chinese, names=NAMES) == [], english_words(chinese, names=NAMES)


@pytest.mark.parametrize("headers, words", [(EN, "Waiting for approval by Frank Chang"), (ZH, "Frank Chang")])
def test_bob_own_request_page_says_it_waits_for_frank(demo, erp, eager, headers, words):
    task = submit(demo["bob"], FOUR_LAPTOPS)
    text = page(demo["bob"], reverse("task-page", args=[task.pk]), **headers)
    assert words in text
    home = page(demo["bob"], reverse("my-requests"), **headers)
    assert "Frank Chang" in home and "Waiting for approval by Bob Wang" not in home


def test_a_request_only_the_requester_could_decide_says_why_it_is_in_review_in_both_languages(demo, erp, eager):
    task = submit(demo["carol"], LARGE)
    url = reverse("task-page", args=[task.pk])
    english = page(demo["carol"], url, **EN)
    assert "only Carol Wu, the requester, could decide step 3 of the approval chain" in english
    chinese = page(demo["carol"], url, **ZH)
    assert "申請人" in chinese and "the requester" not in chinese


def test_the_approval_page_never_offers_bob_as_a_stand_in_on_his_own_request(demo, erp, eager):
    from django.utils import timezone

    from procurement.models.policy import Delegation

    today = timezone.localdate()
    Delegation.objects.create(delegator=demo["frank"], delegate=demo["bob"], starts=today, ends=today)
    approval = pending(submit(demo["bob"], FOUR_LAPTOPS))
    text = page(demo["frank"], reverse("approval-page", args=[approval.pk]), **EN)
    assert "director (Frank Chang)" in text and "Bob Wang on behalf of Frank Chang" not in text
    client = Client(**EN)
    client.force_login(demo["bob"])
    html = client.get(reverse("approval-page", args=[approval.pk])).content.decode()
    # bob may read his department's approval, but gets no form to decide his own request.
    assert reverse("approval-decide", args=[approval.pk]) not in html
    assert "Bob Wang on behalf of Frank Chang" not in visible_text(html)

"""The requester's own pages show no internal version numbers; a manager reading the same request
still sees which version each approval was bound to."""
import re

import pytest
from django.test import Client
from django.urls import reverse

from procurement import services

from .page_text import visible_text
from .policy_support import pending, submit

pytestmark = pytest.mark.django_db(transaction=True)
ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-hant"}
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
TWO_LAPTOPS = [{"description": "Laptop", "quantity": 2}]


def client_for(user, **headers):
    client = Client(enforce_csrf_checks=True, **headers)
    client.force_login(user)
    return client


def test_a_pending_request_shows_its_requester_no_version_on_her_page_or_her_list(demo, erp, eager):
    task = submit(demo["alice"], TWO_LAPTOPS)
    services.request_amend(task_id=task.pk, user=demo["alice"], lines=[{"description": "Laptop", "quantity": 1}])
    for headers, waiting in ((ZH, "待核准"), (EN, "Pending")):
        alice = client_for(demo["alice"], **headers)
        for url in (reverse("task-page", args=[task.pk]), reverse("my-requests")):
            text = visible_text(alice.get(url).content.decode())
            assert re.findall(r"\bv\d+\b", text) == [], (url, re.findall(r".{20}\bv\d+\b", text))
        assert waiting in visible_text(alice.get(reverse("task-page", args=[task.pk])).content.decode())
    # the manager reading the same request still sees which version each approval was bound to
    bob_reads = visible_text(client_for(demo["bob"]).get(reverse("task-page", args=[task.pk])).content.decode())
    assert re.search(r"Pending v\d+", bob_reads)

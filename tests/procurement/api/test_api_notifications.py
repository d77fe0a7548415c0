"""`GET /api/v1/notifications/`: the caller's notices only, newest first, paginated."""
import pytest
from procurement.people.tokens import token_issue
from rest_framework.test import APIClient

from agentstate.machine import task_create
from procurement.models import Notice

pytestmark = pytest.mark.django_db
URL = "/api/v1/notifications/"


def api(user=None):
    client = APIClient()
    if user is not None:
        client.credentials(HTTP_AUTHORIZATION=f"Token {token_issue(user=user)[1]}")
    return client


@pytest.fixture
def notices(alice, bob):
    task = task_create(kind="purchase", initiator=alice, tenant="ENG", data={"revision": 1})
    mine = [Notice.objects.create(recipient=alice, kind="approved", task=task, text=f"notice {n}", key=f"a:{n}",
                                  url="https://buy.example.tw/") for n in range(3)]
    Notice.objects.create(recipient=bob, kind="approval_new", task=task, text="for bob", key="b:0",
                          url="https://buy.example.tw/")
    Notice.objects.filter(pk=mine[0].pk).update(read_at=task.created_at)
    return task, mine


def test_the_caller_gets_their_notices_newest_first_with_the_contract_fields(notices, alice):
    task, mine = notices
    body = api(alice).get(URL).json()
    assert body["count"] == 3 and body["next"] is None
    assert [row["text"] for row in body["results"]] == ["notice 2", "notice 1", "notice 0"]
    first = body["results"][0]
    assert set(first) == {"id", "kind", "task", "text", "read"}
    assert first == {"id": mine[2].pk, "kind": "approved", "task": str(task.pk), "text": "notice 2", "read": False}
    assert body["results"][2]["read"] is True


def test_pages_follow_page_size(notices, alice):
    body = api(alice).get(URL, {"page_size": 2}).json()
    assert body["count"] == 3 and len(body["results"]) == 2 and body["next"]


def test_nobody_sees_anyone_elses_notices(notices, erin, bob):
    assert api(erin).get(URL).json()["count"] == 0
    assert [row["text"] for row in api(bob).get(URL).json()["results"]] == ["for bob"]


def test_no_credentials_is_401(notices):
    assert api().get(URL).status_code == 401

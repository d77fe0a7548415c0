"""Property tests (DESIGN §15): arbitrary text, NUL bytes, lone surrogates, endless and odd
numbers in every field of every form and filter, and the chat; the answer is never a 5xx."""
from urllib.parse import quote

import pytest
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentstate.memory.services import memory_create
from agentstate.models import Approval, Session
from procurement.purchase import services
from tests.procurement.chat.support import no_memory_store  # noqa: F401

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("no_memory_store")]
NASTY = ["", "\x00", "\ud800", "a\udfffb", "9" * 5000, "²", "١٢", "-1", "0", "1e309", "NaN", "12.5", " 3 ",
         "' OR 1=1 --", "<script>x</script>", "{{ 7*7 }}", "%00", "\u202e", "🙂" * 300, "x" * 3000]
TEXT = st.one_of(st.sampled_from(NASTY), st.text(st.characters(exclude_categories=[]), max_size=300))
FUZZ = settings(max_examples=25, deadline=None, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def encoded(fields: dict) -> bytes:
    """A urlencoded body as a browser would send it, lone surrogates included byte for byte."""
    return "&".join(f"{quote(k)}={quote(v.encode('utf-8', 'surrogatepass'))}" for k, v in fields.items()).encode()


def send(client: Client, method: str, url: str, fields: dict, htmx: bool):
    extra = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    if method == "GET":
        return client.generic("GET", url + "?" + encoded(fields).decode(), **extra)
    return client.generic("POST", url, encoded(fields), content_type="application/x-www-form-urlencoded", **extra)


@pytest.fixture
def world(demo, erp, eager, django_capture_on_commit_callbacks):
    alice, bob, carol = demo["alice"], demo["bob"], demo["carol"]
    with django_capture_on_commit_callbacks(execute=True):  # the agent's steps run, up to bob's approval
        task = services.request_submit(requester=alice, department="ENG", justification="new hires",
                                       lines=[{"description": "Laptop", "quantity": 2}])
    approval = Approval.objects.filter(task=task, status="pending").first()
    entry = memory_create(by=carol, scope="user", subject="alice", kind="preference", content="Prefers PDF quotes")
    return {"alice": alice, "bob": bob, "carol": carol, "session": Session.objects.create(owner=alice),
            "task": task, "approval": approval, "entry": entry}


def forms(w) -> list[tuple]:
    """(who, method, url, fields) for every form and filter a person can send."""
    task, entry, approval = w["task"].pk, w["entry"].pk, w["approval"].pk if w["approval"] else None
    rows = [
        ("alice", "POST", f"/chat/{w['session'].pk}/messages/", ["text"]),
        ("alice", "POST", f"/tasks/{task}/amend/", ["version", "description", "quantity", "justification"]),
        ("alice", "POST", f"/tasks/{task}/cancel/", ["reason", "version"]),
        ("carol", "GET", "/memory/", ["scope", "subject", "kind", "status", "page"]),
        ("carol", "POST", f"/memory/{entry}/correct/", ["content", "reason", "version"]),
        ("carol", "POST", f"/memory/{entry}/confirm/", ["version"]),
        ("carol", "POST", f"/memory/{entry}/delete/", ["reason"]),
        ("bob", "GET", "/approvals/", ["tab", "department", "q", "page"]),
        (None, "POST", "/accounts/login/", ["username", "password", "next"]),
        ("alice", "POST", "/i18n/setlang/", ["language", "next"]),
    ]
    if approval:
        rows.append(("bob", "POST", f"/approvals/{approval}/decide/", ["decision", "state_version", "scope_hash",
                                                                         "comment"]))
    return rows


FORM_COUNT = 11


@pytest.mark.parametrize("index", range(FORM_COUNT))
def test_no_form_answers_5xx_whatever_is_typed(world, index):
    rows = forms(world)
    if index >= len(rows):
        pytest.fail("the approval to decide was not opened")
    who, method, url, fields = rows[index]
    client = Client(raise_request_exception=False)
    if who:
        client.force_login(world[who])

    @FUZZ
    @given(values=st.fixed_dictionaries({name: TEXT for name in fields}), htmx=st.booleans())
    def probe(values, htmx):
        response = send(client, method, url, values, htmx)
        assert response.status_code < 500, (url, values, response.content[:500])

    probe()

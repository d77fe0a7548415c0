"""`/api/v1/memory/` (DESIGN §10): list, create, retrieve, correct, delete, confirm, through
the API as a client would, with the permission and bad-input cases."""
import uuid

import pytest
from procurement.people.tokens import token_issue
from rest_framework.test import APIClient

from agentstate.memory.models import MemoryEntry, MemoryEvent
from agentstate.memory.retrieval import memory_retrieve
from agentstate.memory.services import memory_create, memory_propose

pytestmark = pytest.mark.django_db
MEMORY = "/api/v1/memory/"
FIELDS = {"id", "scope", "subject", "kind", "content", "source", "status", "version", "confirmed_by",
          "confirmed_at", "valid_from", "valid_until", "sensitivity"}


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def entries(demo):
    carol = demo["carol"]

    def put(scope, subject, content, kind="fact"):
        return memory_create(by=carol, scope=scope, subject=subject, kind=kind, content=content)
    return {"alice": put("user", "alice", "Alice prefers Excel", kind="preference"),
            "eng": put("department", "ENG", "ENG cost centre is ENG-01"),
            "ops": put("department", "OPS", "OPS cost centre is OPS-01"),
            "org": put("organisation", "", "Fiscal year starts in January", kind="term")}


def contents(response):
    return sorted(e["content"] for e in response.json()["results"])


def test_no_credentials_answers_401():
    assert APIClient().get(MEMORY).status_code == 401


def test_a_token_is_accepted(entries, demo):
    _token, key = token_issue(user=demo["alice"])
    response = APIClient().get(MEMORY, HTTP_AUTHORIZATION=f"Token {key}")
    assert response.status_code == 200 and response.json()["count"] == 3


def test_the_list_holds_only_what_the_caller_may_read_paginated(entries, demo):
    body = client_for(demo["alice"]).get(MEMORY).json()
    assert body.keys() == {"count", "next", "previous", "results"}
    assert sorted(e["content"] for e in body["results"]) == [
        "Alice prefers Excel", "ENG cost centre is ENG-01", "Fiscal year starts in January"]
    assert contents(client_for(demo["erin"]).get(MEMORY)) == ["Fiscal year starts in January",
                                                             "OPS cost centre is OPS-01"]
    assert client_for(demo["carol"]).get(MEMORY).json()["count"] == 4
    page = client_for(demo["carol"]).get(MEMORY, {"page_size": 3}).json()
    assert len(page["results"]) == 3 and page["next"]


def test_the_list_filters_by_scope_subject_kind_and_status(entries, demo):
    carol = client_for(demo["carol"])
    assert contents(carol.get(MEMORY, {"subject": "alice"})) == ["Alice prefers Excel"]
    assert contents(carol.get(MEMORY, {"scope": "department", "subject": "OPS"})) == ["OPS cost centre is OPS-01"]
    assert contents(carol.get(MEMORY, {"kind": "term"})) == ["Fiscal year starts in January"]
    assert carol.get(MEMORY, {"status": "proposed"}).json()["count"] == 0
    bad = carol.get(MEMORY, {"scope": "galaxy"})
    assert bad.status_code == 400 and "scope" in bad.json()["errors"]


def test_an_admin_creates_an_active_entry(demo):
    response = client_for(demo["carol"]).post(MEMORY, {
        "scope": "department", "subject": "ENG", "kind": "procedure", "content": "Laptops need an IT ticket",
        "valid_until": "2099-01-01T00:00:00+08:00"}, format="json")
    assert response.status_code == 201
    body = response.json()
    assert FIELDS <= body.keys() and "history" in body
    assert (body["status"], body["version"], body["confirmed_by"]) == ("active", 1, "carol")
    assert body["source"] == {"kind": "admin", "by": "carol"}
    assert body["valid_until"] == "2099-01-01T00:00:00+08:00" and body["confirmed_at"].endswith("+08:00")
    uuid.UUID(body["id"])


def test_a_user_proposes_for_themselves_and_confirms(demo):
    alice = client_for(demo["alice"])
    created = alice.post(MEMORY, {"scope": "user", "subject": "alice", "kind": "preference",
                                  "content": "Deliver to 3F"}, format="json").json()
    assert (created["status"], created["confirmed_by"]) == ("proposed", None)
    assert memory_retrieve(demo["alice"]) == []
    confirmed = alice.post(f"{MEMORY}{created['id']}/confirm/", {}, format="json")
    assert confirmed.status_code == 200
    assert (confirmed.json()["status"], confirmed.json()["confirmed_by"]) == ("active", "alice")
    assert [e.content for e in memory_retrieve(demo["alice"])] == ["Deliver to 3F"]


@pytest.mark.parametrize("who,body,status", [
    ("alice", {"scope": "user", "subject": "bob"}, 403),
    ("erin", {"scope": "department", "subject": "ENG"}, 403),
    ("alice", {"scope": "user", "subject": "no-such-person"}, 403),  # which usernames exist is not told
])
def test_writing_for_someone_else_is_refused_and_nothing_stored(demo, who, body, status):
    response = client_for(demo[who]).post(MEMORY, {"kind": "fact", "content": "Something", **body}, format="json")
    assert response.status_code == status and "detail" in response.json()
    assert not MemoryEntry.objects.exists()


@pytest.mark.parametrize("field,overrides", [
    ("scope", {"scope": "galaxy"}),
    ("kind", {"kind": "rumour"}),
    ("subject", {"subject": "no-such-person"}),
    ("subject", {"scope": "department", "subject": "XYZ"}),
    ("content", {"content": "x" * 2001}),
    ("content", {"content": ""}),
    ("valid_until", {"valid_from": "2099-02-01T00:00:00+08:00", "valid_until": "2099-01-01T00:00:00+08:00"}),
    ("valid_until", {"valid_until": "yesterday"}),
])
def test_bad_input_answers_400_with_field_messages_and_stores_nothing(demo, field, overrides):
    body = {"scope": "user", "subject": "alice", "kind": "fact", "content": "A fact"} | overrides
    response = client_for(demo["carol"]).post(MEMORY, body, format="json")
    assert response.status_code == 400
    assert response.json()["errors"][field] and response.json()["detail"]
    assert not MemoryEntry.objects.exists() and not MemoryEvent.objects.exists()


def test_retrieve_shows_the_entry_with_its_history(entries, demo):
    entry = entries["alice"]
    response = client_for(demo["alice"]).get(f"{MEMORY}{entry.pk}/")
    assert response.status_code == 200
    body = response.json()
    assert (body["id"], body["content"], body["sensitivity"]) == (str(entry.pk), "Alice prefers Excel", "normal")
    assert [(v["version"], v["status"], v["content"], v["by"]) for v in body["history"]] == [
        (1, "current", "Alice prefers Excel", "carol")]


@pytest.mark.parametrize("who,key", [("erin", "alice"), ("bob", "alice"), ("erin", "eng"), ("alice", "ops")])
def test_another_departments_user_cannot_read_correct_or_delete(entries, demo, who, key):
    client, url = client_for(demo[who]), f"{MEMORY}{entries[key].pk}/"
    assert client.get(url).status_code == 404
    assert client.patch(url, {"content": "Hijacked"}, format="json").status_code == 404
    assert client.delete(url).status_code == 404
    assert client.post(f"{url}confirm/").status_code == 404
    assert MemoryEntry.objects.get(pk=entries[key].pk).content == entries[key].content
    assert entries[key].pk not in [e["id"] for e in client.get(MEMORY).json()["results"]]


def test_unknown_and_malformed_ids_answer_404(demo):
    client = client_for(demo["carol"])
    assert client.get(f"{MEMORY}{uuid.uuid4()}/").status_code == 404
    assert client.get(f"{MEMORY}not-a-uuid/").status_code == 404


def test_a_correction_keeps_the_id_bumps_the_version_and_is_what_the_next_retrieval_uses(entries, demo):
    entry = entries["alice"]
    response = client_for(demo["alice"]).patch(f"{MEMORY}{entry.pk}/", {
        "content": "Alice prefers PDF", "reason": "changed her mind", "version": 1}, format="json")
    assert response.status_code == 200
    body = response.json()
    assert (body["id"], body["version"], body["content"]) == (str(entry.pk), 2, "Alice prefers PDF")
    assert [(v["version"], v["status"], v["reason"]) for v in body["history"]] == [
        (1, "superseded", ""), (2, "current", "changed her mind")]
    assert "Alice prefers PDF" in [e.content for e in memory_retrieve(demo["alice"])]
    assert "Alice prefers Excel" not in [e.content for e in memory_retrieve(demo["alice"])]


def test_put_corrects_like_patch_and_content_is_required(entries, demo):
    url = f"{MEMORY}{entries['eng'].pk}/"
    bob = client_for(demo["bob"])
    missing = bob.put(url, {"reason": "no content"}, format="json")
    assert missing.status_code == 400 and "content" in missing.json()["errors"]
    assert bob.put(url, {"content": "ENG cost centre is ENG-02"}, format="json").json()["version"] == 2


def test_a_reader_who_may_not_correct_gets_403_and_a_stale_version_409(entries, demo):
    url = f"{MEMORY}{entries['eng'].pk}/"
    assert client_for(demo["alice"]).patch(url, {"content": "ENG is ENG-99"}, format="json").status_code == 403
    carol = client_for(demo["carol"])
    carol.patch(url, {"content": "ENG cost centre is ENG-02"}, format="json")
    stale = carol.patch(url, {"content": "ENG cost centre is ENG-03", "version": 1}, format="json")
    assert stale.status_code == 409 and stale.json()["current_version"] == 2
    assert MemoryEntry.objects.get(pk=entries["eng"].pk).content == "ENG cost centre is ENG-02"


def test_delete_previews_then_deletes_and_the_entry_answers_404(entries, demo):
    entry, carol = entries["alice"], client_for(demo["carol"])
    carol.patch(f"{MEMORY}{entry.pk}/", {"content": "Alice prefers PDF"}, format="json")
    preview = carol.get(f"{MEMORY}{entry.pk}/delete-preview/").json()
    assert preview["text"] == "also removes 1 history version"
    assert carol.delete(f"{MEMORY}{entry.pk}/?reason=asked+to+forget").status_code == 204
    assert carol.get(f"{MEMORY}{entry.pk}/").status_code == 404
    assert carol.delete(f"{MEMORY}{entry.pk}/").status_code == 404
    assert str(entry.pk) not in [e["id"] for e in carol.get(MEMORY).json()["results"]]
    assert MemoryEntry.objects.get(pk=entry.pk).delete_reason == "asked to forget"


def test_a_person_deletes_their_own_entry_but_not_their_departments(entries, demo):
    alice = client_for(demo["alice"])
    assert alice.delete(f"{MEMORY}{entries['alice'].pk}/").status_code == 204
    assert alice.delete(f"{MEMORY}{entries['eng'].pk}/").status_code == 403


def test_a_pending_change_is_shown_in_the_history_and_confirm_applies_it(entries, demo):
    entry = entries["alice"]
    memory_propose(entry=entry, by=demo["alice"], content="Alice prefers PDF now")
    alice = client_for(demo["alice"])
    body = alice.get(f"{MEMORY}{entry.pk}/").json()
    assert (body["content"], body["history"][-1]["status"]) == ("Alice prefers Excel", "pending")
    confirmed = alice.post(f"{MEMORY}{entry.pk}/confirm/", {"version": 1}, format="json").json()
    assert (confirmed["content"], confirmed["version"]) == ("Alice prefers PDF now", 2)


def test_a_requesters_organisation_proposal_names_her_and_only_she_and_admins_read_it(demo):
    erin = client_for(demo["erin"])
    created = erin.post(MEMORY, {"scope": "organisation", "subject": "", "kind": "fact",
                                 "content": "All laptops come from Zq8 Computers"}, format="json")
    assert created.status_code == 201, created.content
    body = created.json()
    assert body["status"] == "proposed" and body["source"] == {"kind": "proposal", "by": "erin"}
    url = f"{MEMORY}{body['id']}/"
    assert erin.get(url).status_code == 200
    assert client_for(demo["carol"]).get(url).status_code == 200  # an admin, who may confirm it
    for other in ("alice", "bob", "dave"):
        client = client_for(demo[other])
        assert client.get(url).status_code == 404
        assert body["id"] not in [e["id"] for e in client.get(MEMORY).json()["results"]]
    memory_confirm_by_carol = client_for(demo["carol"]).post(f"{url}confirm/", {}, format="json")
    assert memory_confirm_by_carol.status_code == 200
    assert client_for(demo["alice"]).get(url).status_code == 200  # confirmed: everyone's

"""A person's own API tokens (DESIGN §15): `GET /api/v1/auth/tokens/` lists those that still work,
the one in hand flagged `current`, each by a safe id (never the key or its digest);
`DELETE /api/v1/auth/tokens/{id}/` revokes one of hers, and someone else's or an unknown id
answers 404 in her language, leaving that token working."""
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from agentstate.errors import NotFound
from procurement.models import ApiToken
from procurement.people.tokens import token_issue, token_revoke_own, tokens_of

pytestmark = pytest.mark.django_db
TOKEN_URL = "/api/v1/auth/token/"
TOKENS_URL = "/api/v1/auth/tokens/"


def sign_in(name, username="alice") -> str:
    answer = APIClient().post(TOKEN_URL, {"username": username, "password": "demo", "name": name}, format="json")
    assert answer.status_code == 200
    return answer.json()["token"]


def holding(key, language=None) -> APIClient:
    client = APIClient(**({"HTTP_ACCEPT_LANGUAGE": language} if language else {}))
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def listed(client) -> list[dict]:
    answer = client.get(TOKENS_URL)
    assert answer.status_code == 200
    body = answer.json()
    assert body["count"] == len(body["results"])
    return body["results"]


def test_two_sign_ins_list_two_tokens_and_flag_the_one_in_hand(demo):
    laptop, connector = sign_in("laptop"), sign_in("ERP connector")
    sign_in("bob's script", username="bob")
    rows = listed(holding(connector))
    assert [(row["name"], row["current"]) for row in rows] == [("ERP connector", True), ("laptop", False)]
    assert {row["id"] for row in rows} == {laptop[:15], connector[:15]}
    assert set(rows[0]) == {"id", "name", "created", "expires_at", "current"}
    digests = set(ApiToken.objects.values_list("digest", flat=True))
    assert not any(row["id"] in (laptop, connector) or row["id"] in digests for row in rows), "never the key or digest"
    assert all(row["expires_at"] > row["created"] for row in rows)
    assert [row["current"] for row in listed(holding(laptop))] == [False, True]


def test_an_expired_token_is_not_listed(demo):
    token, _key = token_issue(user=demo["alice"], name="old laptop")
    ApiToken.objects.filter(pk=token.pk).update(expiry=timezone.now() - timedelta(minutes=1))
    assert [row["name"] for row in listed(holding(sign_in("phone")))] == ["phone"]


def test_revoking_one_leaves_the_other_working_and_the_revoked_one_gets_401(demo):
    laptop, connector = sign_in("laptop"), sign_in("ERP connector")
    assert holding(connector).delete(f"{TOKENS_URL}{laptop[:15]}/").status_code == 204
    assert holding(laptop).get("/api/v1/tasks/").status_code == 401
    assert holding(connector).get("/api/v1/tasks/").status_code == 200
    assert [row["name"] for row in listed(holding(connector))] == ["ERP connector"]


def test_a_browser_session_lists_and_revokes_too_with_none_flagged_current(demo):
    laptop = sign_in("laptop")
    client = APIClient()
    client.force_login(demo["alice"])
    assert [(row["name"], row["current"]) for row in listed(client)] == [("laptop", False)]
    assert client.delete(f"{TOKENS_URL}{laptop[:15]}/").status_code == 204
    assert holding(laptop).get("/api/v1/tasks/").status_code == 401


@pytest.mark.parametrize("language, words", [("en", "You have no such API token"), ("zh-hant", "您沒有這個 API 存取權杖")])
def test_someone_elses_token_answers_404_in_her_language_and_keeps_working(demo, language, words):
    bobs = sign_in("bob's script", username="bob")
    alice = holding(sign_in("laptop"), language=language)
    answer = alice.delete(f"{TOKENS_URL}{bobs[:15]}/")
    assert answer.status_code == 404 and answer.json()["detail"].startswith(words)
    assert holding(bobs).get("/api/v1/tasks/").status_code == 200
    assert bobs[:15] not in {row["id"] for row in listed(alice)}, "nobody lists another's tokens"


@pytest.mark.parametrize("token_id", ["0123456789abcde", "not-a-token", "x" * 300])
def test_an_unknown_id_answers_404_and_revokes_nothing(demo, token_id):
    key = sign_in("laptop")
    answer = holding(key).delete(f"{TOKENS_URL}{token_id}/")
    assert answer.status_code == 404 and answer.json()["detail"]
    assert holding(key).get("/api/v1/tasks/").status_code == 200


def test_revoking_the_token_in_hand_stops_it_at_once(demo):
    key = sign_in("laptop")
    assert holding(key).delete(f"{TOKENS_URL}{key[:15]}/").status_code == 204
    assert holding(key).get(TOKENS_URL).status_code == 401


def test_without_credentials_the_list_answers_401():
    assert APIClient().get(TOKENS_URL).status_code == 401
    assert APIClient().delete(f"{TOKENS_URL}0123456789abcde/").status_code == 401


def test_the_service_revokes_only_her_own_live_token(demo):
    alice, bob = demo["alice"], demo["bob"]
    mine, _ = token_issue(user=alice, name="laptop")
    theirs, _ = token_issue(user=bob, name="script")
    with pytest.raises(NotFound):
        token_revoke_own(user=alice, token_id=theirs.token_key)
    token_revoke_own(user=alice, token_id=mine.token_key)
    assert list(tokens_of(alice)) == [] and list(tokens_of(bob)) == [theirs]

"""Sign-in and API tokens (DESIGN §15): 30 wrong passwords lock an account for a while, on the
login page and the token endpoint alike; tokens expire and can be revoked, and offboarding
revokes them; chat turns over the API are rate-limited."""
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from procurement.models import ApiToken
from rest_framework.test import APIClient

from agentstate.models import Session
from procurement.api.throttles import ChatThrottle
from procurement.people.offboarding import user_offboard
from procurement.people.tokens import token_issue
from tests.procurement.chat.support import no_memory_store  # noqa: F401

pytestmark = pytest.mark.django_db
TOKEN_URL = "/api/v1/auth/token/"


def login(client, password, username="alice"):
    return client.post("/accounts/login/", {"username": username, "password": password})


def test_thirty_wrong_passwords_lock_the_account_even_for_the_right_one(demo, settings):
    client = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert login(client, "wrong").status_code == 200  # the form again, with its error
    assert login(client, "wrong").status_code == 429
    refused = login(client, "demo")
    assert refused.status_code == 429
    assert "with this user name from this address" in refused.content.decode()
    assert "locked here for 15 minutes" in refused.content.decode()
    assert "_auth_user_id" not in client.session


def test_guessing_a_persons_password_from_other_addresses_does_not_lock_the_owner_out(demo, settings):
    for address in ("10.0.0.1", "10.0.0.2", "10.0.0.3"):
        guesser = Client(REMOTE_ADDR=address)
        for _ in range(settings.AXES_FAILURE_LIMIT):
            login(guesser, "wrong", username="dave")
    assert login(Client(REMOTE_ADDR="10.0.0.1"), "demo", username="dave").status_code == 429
    owner = Client(REMOTE_ADDR="10.9.9.9")
    assert login(owner, "demo", username="dave").status_code == 302
    token = APIClient(REMOTE_ADDR="10.9.9.9").post(TOKEN_URL, {"username": "dave", "password": "demo"}, format="json")
    assert token.status_code == 200 and token.json()["token"]


def test_many_names_from_one_address_lock_the_address_only_at_its_own_higher_limit(demo, settings):
    assert settings.AXES_ADDRESS_FAILURE_LIMIT > settings.AXES_FAILURE_LIMIT
    client = Client(REMOTE_ADDR="10.0.0.7")
    for n in range(settings.AXES_FAILURE_LIMIT):
        login(client, "wrong", username=f"nobody{n}")
    assert login(client, "demo").status_code == 302  # alice, from the same address
    client = Client(REMOTE_ADDR="10.0.0.7")
    for n in range(settings.AXES_ADDRESS_FAILURE_LIMIT - settings.AXES_FAILURE_LIMIT):
        login(client, "wrong", username=f"other{n}")
    refused = login(client, "demo", username="erin")
    assert refused.status_code == 429
    page = refused.content.decode()
    assert "from this address: every sign-in from here is locked" in page and "this account" not in page
    assert login(Client(REMOTE_ADDR="10.0.0.8"), "demo", username="erin").status_code == 302


def test_the_address_lock_answers_in_chinese_on_the_api(demo, settings):
    settings.AXES_ADDRESS_FAILURE_LIMIT = 3
    client = APIClient(REMOTE_ADDR="10.0.0.9", HTTP_ACCEPT_LANGUAGE="zh-hant")
    for n in range(3):
        client.post(TOKEN_URL, {"username": f"x{n}", "password": "bad"}, format="json")
    refused = client.post(TOKEN_URL, {"username": "alice", "password": "demo"}, format="json")
    assert refused.status_code == 429
    assert "此位址" in refused.json()["detail"] and "帳號" not in refused.json()["detail"]


def test_behind_one_proxy_each_client_is_counted_at_its_own_address(demo, settings):
    settings.AXES_IPWARE_PROXY_COUNT = 1
    proxy = {"REMOTE_ADDR": "172.18.0.5"}
    for _ in range(settings.AXES_FAILURE_LIMIT):
        login(Client(**proxy, HTTP_X_FORWARDED_FOR="203.0.113.7"), "wrong")
    assert login(Client(**proxy, HTTP_X_FORWARDED_FOR="203.0.113.7"), "demo").status_code == 429
    # A made-up entry left of the proxy's own does not move the guesser to a new address.
    assert login(Client(**proxy, HTTP_X_FORWARDED_FOR="1.2.3.4, 203.0.113.7"), "demo").status_code == 429
    assert login(Client(**proxy, HTTP_X_FORWARDED_FOR="198.51.100.2"), "demo").status_code == 302


def test_fewer_wrong_passwords_do_not_lock_and_the_right_one_signs_in(demo):
    client = Client()
    for _ in range(5):
        login(client, "wrong")
    assert login(client, "demo").status_code == 302
    assert client.session["_auth_user_id"] == str(demo["alice"].pk)


def test_the_lock_lifts_after_the_cool_off(demo, settings):
    from axes.models import AccessAttempt

    client = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT):
        login(client, "wrong")
    assert login(client, "demo").status_code == 429
    AccessAttempt.objects.update(attempt_time=timezone.now() - settings.AXES_COOLOFF_TIME - timedelta(minutes=1))
    assert login(client, "demo").status_code == 302


def test_the_token_endpoint_gives_a_token_that_works_and_says_when_it_expires(demo):
    response = APIClient().post(TOKEN_URL, {"username": "alice", "password": "demo"}, format="json")
    assert response.status_code == 200 and response.json()["expires_at"]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {response.json()['token']}")
    assert client.get("/api/v1/tasks/").status_code == 200


def test_signing_in_from_a_second_client_leaves_the_first_working(demo):
    sign_in = {"username": "alice", "password": "demo"}
    first = APIClient().post(TOKEN_URL, sign_in | {"name": "laptop"}, format="json").json()
    second = APIClient().post(TOKEN_URL, sign_in | {"name": "ERP connector"}, format="json").json()
    assert first["token"] != second["token"] and second["name"] == "ERP connector"
    for key in (first["token"], second["token"]):
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
        assert client.get("/api/v1/tasks/").status_code == 200
    assert sorted(ApiToken.objects.filter(user=demo["alice"]).values_list("name", flat=True)) == [
        "ERP connector", "laptop"]
    assert all(row.expiry > timezone.now() for row in ApiToken.objects.all()), "each expires"
    assert not ApiToken.objects.filter(token_key__in=[first["token"], second["token"]]).exists(), "digests only"


def test_the_token_endpoint_locks_out_after_thirty_wrong_passwords(demo, settings, monkeypatch):
    from procurement.api.throttles import TokenThrottle

    monkeypatch.setattr(TokenThrottle, "THROTTLE_RATES", {"token": "1000/min"})
    client = APIClient()
    answers = [client.post(TOKEN_URL, {"username": "alice", "password": "bad"}, format="json").status_code
               for _ in range(settings.AXES_FAILURE_LIMIT)]
    assert set(answers[:-1]) == {401} and answers[-1] == 429
    locked = client.post(TOKEN_URL, {"username": "alice", "password": "demo"}, format="json")
    assert locked.status_code == 429 and "locked" in locked.json()["detail"]
    assert not ApiToken.objects.filter(user=demo["alice"]).exists()


def test_an_expired_token_is_refused_with_401(demo, settings):
    token, key = token_issue(user=demo["alice"])
    ApiToken.objects.filter(pk=token.pk).update(expiry=timezone.now() - timedelta(minutes=1))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    response = client.get("/api/v1/tasks/")
    assert response.status_code == 401 and "expired" in response.json()["detail"]


def test_a_revoked_token_stops_working(demo):
    _token, key = token_issue(user=demo["alice"], name="laptop")
    _other, other_key = token_issue(user=demo["alice"], name="ERP connector")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert client.delete(TOKEN_URL).status_code == 204
    assert client.get("/api/v1/tasks/").status_code == 401
    client.credentials(HTTP_AUTHORIZATION=f"Token {other_key}")
    assert client.get("/api/v1/tasks/").status_code == 200, "each token is revoked on its own"


def test_offboarding_revokes_the_persons_tokens(demo):
    token_issue(user=demo["alice"], name="laptop")
    _token, key = token_issue(user=demo["alice"], name="phone")
    report = user_offboard(user=demo["alice"], by=demo["carol"])
    assert report.tokens_revoked == 2
    assert not ApiToken.objects.filter(user=demo["alice"]).exists()
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert client.get("/api/v1/tasks/").status_code == 401


@pytest.mark.usefixtures("no_memory_store")
def test_chat_turns_over_the_api_are_rate_limited_per_person(demo, monkeypatch):
    monkeypatch.setattr(ChatThrottle, "THROTTLE_RATES", {"chat": "2/min"})
    session = Session.objects.create(owner=demo["alice"])
    client = APIClient()
    client.force_authenticate(demo["alice"])
    url = f"/api/v1/sessions/{session.pk}/messages/"
    answers = [client.post(url, {"text": "hello"}, format="json") for _ in range(3)]
    assert [a.status_code for a in answers] == [201, 201, 429]
    assert "Retry-After" in answers[-1].headers
    other = Session.objects.create(owner=demo["erin"])
    erin = APIClient()
    erin.force_authenticate(demo["erin"])
    assert erin.post(f"/api/v1/sessions/{other.pk}/messages/", {"text": "hello"}, format="json").status_code == 201

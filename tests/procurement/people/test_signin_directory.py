"""Sign-in with the company directory over OIDC, against a provider on loopback
(tests/oidc_provider.py): people are created on first sign-in with the roles their groups give,
lose a role when they leave its group, and a bad token signs nobody in and creates nothing."""
from urllib.parse import urlsplit

import pytest
import requests
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from procurement.models import Department, Membership
from tests.oidc_provider import Provider

pytestmark = pytest.mark.django_db
GROUPS = {"eng-staff": {"department": "ENG", "role": "requester"},
          "eng-managers": [{"department": "ENG", "role": "manager", "approval_limit": "100000"}],
          "directors": {"department": None, "role": "director", "approval_limit": 5000000}}
MEI = {"sub": "u-1001", "email": "mei@example.com", "preferred_username": "mei", "given_name": "Mei",
       "family_name": "Lin"}


@pytest.fixture(scope="module")
def provider():
    provider = Provider().start()
    yield provider
    provider.stop()


@pytest.fixture
def directory(provider, settings, demo):
    found = requests.get(f"{provider.url}/.well-known/openid-configuration", timeout=5).json()
    settings.OIDC_RP_CLIENT_ID, settings.OIDC_RP_CLIENT_SECRET = provider.client_id, "secret"
    settings.OIDC_OP_ISSUER = found["issuer"]
    settings.OIDC_OP_AUTHORIZATION_ENDPOINT = found["authorization_endpoint"]
    settings.OIDC_OP_TOKEN_ENDPOINT, settings.OIDC_OP_JWKS_ENDPOINT = found["token_endpoint"], found["jwks_uri"]
    settings.OIDC_GROUP_MAP = GROUPS
    provider.faults = set()
    return provider


def sign_in(client: Client, provider: Provider, groups, faults=(), **claims):
    provider.claims, provider.faults = {**MEI, "groups": list(groups), **claims}, set(faults)
    start = client.get(reverse("oidc_authentication_init"))
    assert start.status_code == 302 and start["Location"].startswith(provider.url)
    back = requests.get(start["Location"], allow_redirects=False, timeout=5)
    callback = urlsplit(back.headers["Location"])
    return client.get(f"{callback.path}?{callback.query}")


def roles(user) -> set:
    return {(m.department.code if m.department_id else None, m.role, m.approval_limit)
            for m in Membership.objects.filter(user=user).select_related("department")}


def test_a_new_person_signs_in_and_lands_with_the_role_her_group_gives(directory):
    client = Client()
    landed = sign_in(client, directory, ["eng-managers", "unrelated"])
    assert landed.status_code == 302 and landed["Location"] == "/"
    mei = get_user_model().objects.get(username="mei")
    assert (mei.email, mei.first_name, mei.has_usable_password()) == ("mei@example.com", "Mei", False)
    assert roles(mei) == {("ENG", "manager", 100000)}
    assert set(mei.groups.values_list("name", flat=True)) == {"ENG manager"}
    home = client.get("/", follow=True)  # a manager lands on her approvals
    assert home.status_code == 200 and home.redirect_chain == [(reverse("approval-inbox"), 302)]


def test_someone_removed_from_a_group_loses_its_role_at_the_next_sign_in(directory):
    sign_in(Client(), directory, ["eng-managers", "eng-staff"])
    mei = get_user_model().objects.get(username="mei")
    local = Membership.objects.create(user=mei, department=Department.objects.get(code="OPS"),
                                      role=Membership.Role.REQUESTER)
    assert sign_in(Client(), directory, ["eng-staff"]).status_code == 302
    assert roles(mei) == {("ENG", "requester", 0), ("OPS", "requester", 0)}
    assert Membership.objects.filter(pk=local.pk).exists()  # a role the map does not govern stays
    assert set(mei.groups.values_list("name", flat=True)) == {"ENG requester", "OPS requester"}
    assert get_user_model().objects.filter(email="mei@example.com").count() == 1


@pytest.mark.parametrize("fault", ["audience", "signature", "expired"])
def test_a_bad_token_signs_nobody_in_and_creates_nothing(directory, fault):
    client = Client()
    users = get_user_model().objects.count()
    refused = sign_in(client, directory, ["directors"], faults=[fault])
    assert refused.status_code == 302 and refused["Location"] == "/accounts/login/?directory=refused"
    assert get_user_model().objects.count() == users and not Membership.objects.filter(role="director",
                                                                                       user__username="mei").exists()
    assert client.get("/").status_code == 302  # still signed out
    page = client.get(refused["Location"], HTTP_ACCEPT_LANGUAGE="zh-hant").content.decode()
    assert "使用公司帳號登入沒有成功" in page


def test_the_sign_in_page_offers_the_company_account_only_when_configured(directory, settings):
    page = Client().get(reverse("login"), HTTP_ACCEPT_LANGUAGE="zh-hant").content.decode()
    assert "使用公司帳號登入" in page and reverse("oidc_authentication_init") in page
    settings.OIDC_RP_CLIENT_ID = ""
    page = Client().get(reverse("login"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "company account" not in page
    assert Client().get(reverse("oidc_authentication_init")).status_code == 404


def test_local_accounts_still_sign_in_beside_the_directory(directory):
    client = Client()
    response = client.post(reverse("login"), {"username": "alice", "password": "demo"})
    assert response.status_code == 302 and client.get("/").status_code == 200



@pytest.mark.parametrize("locale, language", [("zh-TW", "zh-hant"), ("zh_Hant_TW", "zh-hant"), ("en-US", "en"),
                                              ("zh-CN", None), ("", None)])
def test_the_directorys_locale_claim_gives_a_new_person_her_language(directory, locale, language):
    from procurement.models import UserPreference

    assert sign_in(Client(), directory, ["eng-staff"], locale=locale).status_code == 302
    mei = get_user_model().objects.get(username="mei")
    assert UserPreference.objects.filter(user=mei).values_list("language", flat=True).first() == language


def test_the_directorys_locale_claim_never_overrides_a_language_she_chose(directory):
    from procurement.people.language import language_of, user_language_set

    sign_in(Client(), directory, ["eng-staff"])
    mei = get_user_model().objects.get(username="mei")
    user_language_set(user=mei, language="en")
    assert sign_in(Client(), directory, ["eng-staff"], locale="zh-TW").status_code == 302
    assert language_of(mei) == "en"

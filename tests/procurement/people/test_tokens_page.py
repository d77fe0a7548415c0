"""The API tokens page (reached from the header beside her name): a person sees her own tokens
that still work, by name, when made and when they expire, and revokes one with a POST (CSRF
enforced); the page and the htmx fragment, in zh-Hant and English; someone else's token cannot
be revoked from it (404, in her language) and keeps working."""
import pytest
from django.test import Client
from django.urls import reverse
from django.utils.timezone import localtime
from rest_framework.test import APIClient

from procurement.people.tokens import token_issue, tokens_of

from tests.procurement.page_text import english_words, visible_text

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}
PAGE = reverse("api-tokens")
WORDS = {"en": {"title": "API tokens", "made": "Made", "revoke": "Revoke “laptop”", "revoked": "The token was revoked",
                "none": "You have no such API token"},
         "zh-hant": {"title": "API 存取權杖", "made": "建立於", "revoke": "撤銷「laptop」", "revoked": "權杖已撤銷",
                     "none": "您沒有這個 API 存取權杖"}}


def client_for(user, language, csrf=False):
    client = Client(enforce_csrf_checks=csrf, HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    return client


def works(key) -> bool:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client.get("/api/v1/tasks/").status_code == 200


def revoke_url(token):
    return reverse("api-token-revoke", args=[token.token_key])


@pytest.fixture
def tokens(demo):
    alice = demo["alice"]
    laptop, laptop_key = token_issue(user=alice, name="laptop")
    connector, connector_key = token_issue(user=alice, name="ERP connector")
    bobs, bobs_key = token_issue(user=demo["bob"], name="bob-script")
    return {"laptop": (laptop, laptop_key), "connector": (connector, connector_key), "bob": (bobs, bobs_key)}


@pytest.mark.parametrize("language", ["zh-hant", "en"])
def test_the_page_lists_her_tokens_by_name_made_and_expiry_in_her_language(demo, tokens, language):
    answer = client_for(demo["alice"], language).get(PAGE)
    assert answer.status_code == 200
    body = answer.content.decode()
    text = visible_text(body)
    words = WORDS[language]
    assert words["title"] in text and words["revoke"] in text and text.count(words["made"]) == 2
    assert "ERP connector" in text and "bob-script" not in text
    laptop = tokens["laptop"][0]
    assert localtime(laptop.expiry).strftime("%Y-%m-%d %H:%M") in text
    assert laptop.digest not in body and tokens["laptop"][1] not in body, "never the key or its digest"
    assert f'action="{revoke_url(laptop)}"' in body and "<script>" not in body.split("</head>")[1]
    if language == "zh-hant":
        keys = [token.token_key for token, _key in tokens.values()]
        assert english_words(text, names=["laptop", "ERP connector", "alice", *keys]) == []


def test_the_header_links_to_the_page(demo):
    assert f'href="{PAGE}"' in client_for(demo["alice"], "en").get("/").content.decode()


@pytest.mark.parametrize("language", ["zh-hant", "en"])
def test_revoking_from_the_page_stops_that_token_and_leaves_the_other(demo, tokens, language):
    client = client_for(demo["alice"], language, csrf=True)
    page = client.get(PAGE)
    csrf = page.cookies["csrftoken"].value
    laptop, laptop_key = tokens["laptop"]
    assert client.post(revoke_url(laptop)).status_code == 403, "a post without CSRF is refused"
    assert works(laptop_key)
    answer = client.post(revoke_url(laptop), {"csrfmiddlewaretoken": csrf})
    assert answer.status_code == 302 and answer["Location"] == PAGE
    assert not works(laptop_key) and works(tokens["connector"][1])
    assert "laptop" not in visible_text(client.get(PAGE).content.decode())


@pytest.mark.parametrize("language", ["zh-hant", "en"])
def test_an_htmx_revoke_answers_only_the_list_saying_it_was_revoked(demo, tokens, language):
    answer = client_for(demo["alice"], language).post(revoke_url(tokens["laptop"][0]), **HX)
    body = answer.content.decode()
    assert answer.status_code == 200 and body.lstrip().startswith('<div id="token-list">') and "<html" not in body
    assert WORDS[language]["revoked"] in visible_text(body) and "ERP connector" in body and "laptop" not in body
    assert answer["Vary"] and "HX-Request" in answer["Vary"]


@pytest.mark.parametrize("language", ["zh-hant", "en"])
@pytest.mark.parametrize("htmx", [False, True])
def test_someone_elses_token_answers_404_in_her_language_and_keeps_working(demo, tokens, language, htmx):
    bobs, bobs_key = tokens["bob"]
    answer = client_for(demo["alice"], language).post(revoke_url(bobs), **(HX if htmx else {}))
    assert answer.status_code == 404 and WORDS[language]["none"] in visible_text(answer.content.decode())
    assert works(bobs_key) and list(tokens_of(demo["bob"])) == [bobs]
    assert len(tokens_of(demo["alice"])) == 2


def test_a_token_id_that_is_no_token_answers_404(demo, tokens):
    answer = client_for(demo["alice"], "en").post(reverse("api-token-revoke", args=["not-a-token%00"]))
    assert answer.status_code == 404


def test_the_page_asks_for_sign_in_and_is_not_revoked_by_get(demo, tokens):
    assert Client().get(PAGE).status_code == 302
    laptop, laptop_key = tokens["laptop"]
    assert client_for(demo["alice"], "en").get(revoke_url(laptop)).status_code == 405
    assert works(laptop_key)


def test_with_no_token_the_page_says_how_a_program_gets_one(demo):
    text = visible_text(client_for(demo["carol"], "en").get(PAGE).content.decode())
    assert "You hold no API token that still works" in text and "/api/v1/auth/token/" in text

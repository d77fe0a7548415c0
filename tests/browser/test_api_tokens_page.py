"""The API tokens page in a real browser, in zh-Hant and English, on a phone (390 px) and a
desktop: it is reached from the header, fits the phone, keeps a clean console (no CSP violation)
and axe finds nothing serious; revoking asks first, then the list shows the token gone and the
other one still listed (the same checks test_console_and_axe runs on every main page)."""
import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from procurement.people.tokens import token_issue, tokens_of

from tests.browser.conftest import ARTIFACTS
from tests.browser.test_console_and_axe import AXE_OPTIONS, BLOCKING, DESKTOP, PHONE, console_watch

pytestmark = pytest.mark.django_db(transaction=True)
FITS = "document.scrollingElement.scrollWidth"
WORDS = {"zh-hant": {"link": "API 存取權杖", "revoke": "撤銷「laptop」", "revoked": "權杖已撤銷"},
         "en": {"link": "API tokens", "revoke": "Revoke “laptop”", "revoked": "The token was revoked"}}


@pytest.mark.parametrize("language", ["zh-hant", "en"])
def test_the_tokens_page_fits_a_phone_is_clean_and_revokes_after_asking(demo, signed_in, live_server, language):
    alice = demo["alice"]
    token_issue(user=alice, name="ERP connector")
    token_issue(user=alice, name="laptop")
    page = signed_in("alice", viewport=PHONE)
    said: list[str] = []
    console_watch(page, said)
    if page.locator("html").get_attribute("lang") != language:
        with page.expect_navigation():
            page.select_option("#lang", language)
    words = WORDS[language]
    page.get_by_role("link", name=words["link"]).click()
    expect(page.get_by_role("heading", level=1)).to_have_text(words["link"])
    axe = Axe()
    for viewport in (PHONE, DESKTOP):
        page.set_viewport_size(viewport)
        page.reload()
        page.wait_for_load_state("networkidle")
        violations = axe.run(page, options=AXE_OPTIONS).response["violations"]
        assert [v["id"] for v in violations if v["impact"] in BLOCKING] == [], f"{viewport['width']} px"
    page.set_viewport_size(PHONE)
    assert page.evaluate(FITS) <= PHONE["width"], "the page scrolls sideways"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"api-tokens-{language}-390.png"), full_page=True)
    asked = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
    page.get_by_role("button", name=words["revoke"]).click()
    expect(page.get_by_role("status")).to_contain_text(words["revoked"])
    assert asked and "laptop" in asked[0]
    expect(page.locator("#token-list li")).to_have_count(1)
    expect(page.locator("#token-list")).to_contain_text("ERP connector")
    assert [token.name for token in tokens_of(alice)] == ["ERP connector"]
    assert page.evaluate(FITS) <= PHONE["width"]
    assert said == [], "\n".join(said)

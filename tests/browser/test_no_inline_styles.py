"""The pages that used to carry style="" attributes, under a CSP that allows no inline style:
the browser reports no CSP violation on any of them, and the classes that replaced the
attributes still shape the page on a phone (390 px): nothing scrolls sideways, the language
picker stays narrow beside its label, memory text keeps its line breaks."""
import pytest
from playwright.sync_api import expect

from agentstate.memory.services import memory_confirm, memory_correct, memory_propose
from agentstate.models import Session, Turn

pytestmark = pytest.mark.django_db(transaction=True)
PHONE = {"width": 390, "height": 844}
WIDTH = "document.scrollingElement.scrollWidth"


@pytest.fixture
def entry(demo):
    """alice's preference, corrected once (a history of two) with a change waiting for her (pending)."""
    alice, carol = demo["alice"], demo["carol"]
    said = Turn.objects.create(session=Session.objects.create(owner=alice), seq=1, role="user", text="Remember this")
    entry = memory_confirm(entry=memory_propose(turn=said, scope="user", subject="alice", kind="preference",
                                                content="Keep my requests\nunder 50k"), by=alice)
    entry = memory_correct(entry=entry, by=carol, content="Keep my requests\nunder 40k", reason="lowered")
    memory_propose(entry=entry, by=carol, content="Keep my requests\nunder 30k", reason="asked by phone")
    return entry


def csp_watch(page) -> list[str]:
    """Chromium reports every refused inline style or script on the console."""
    refused = []
    page.on("console", lambda message: refused.append(message.text)
            if "Content Security Policy" in message.text else None)
    return refused


def test_the_sign_in_page_has_no_csp_violation_and_a_narrow_form(browser, live_server):
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    refused = csp_watch(page)
    page.goto(f"{live_server.url}/accounts/login/")
    expect(page.get_by_role("button", name="Sign in")).to_be_visible()
    assert page.evaluate(WIDTH) <= PHONE["width"]
    page.set_viewport_size({"width": 1100, "height": 900})
    form_width = page.evaluate("document.querySelector('form.narrow').getBoundingClientRect().width")
    assert form_width <= 22 * 16 + 1, "the sign-in form keeps its 22rem width on a wide screen"
    assert refused == []
    context.close()


@pytest.mark.parametrize("language", ["en", "zh-hant"])
def test_memory_pages_and_the_header_have_no_csp_violation_on_a_phone(entry, signed_in, live_server, language):
    carol = signed_in("carol", viewport=PHONE)
    refused = csp_watch(carol)
    if language != "en":
        with carol.expect_navigation():
            carol.select_option("#lang", language)
    carol.goto(f"{live_server.url}/memory/?subject=alice")
    expect(carol.locator("#memory-results")).to_contain_text("under 40k")
    assert carol.evaluate(WIDTH) <= PHONE["width"], "the memory list scrolls sideways"
    label, select = (carol.evaluate(f"document.querySelector('{css}').getBoundingClientRect().width")
                     for css in ("label.lang-label", "#lang"))
    assert select < PHONE["width"] / 2 and label < PHONE["width"] / 2, "the language picker stays beside its label"
    carol.goto(f"{live_server.url}/memory/{entry.pk}/")
    expect(carol.locator("[data-pending-diff]")).to_be_visible()
    assert carol.evaluate(WIDTH) <= PHONE["width"], "the memory entry scrolls sideways"
    kept = carol.evaluate("[...document.querySelectorAll('.memory-text')].map(e => getComputedStyle(e).whiteSpace)")
    assert len(kept) >= 3 and set(kept) == {"pre-wrap"}, "current text, pending change and history keep line breaks"
    assert refused == [], refused

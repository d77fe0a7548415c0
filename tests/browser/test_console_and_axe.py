"""Every main page in a real browser, in zh-Hant and English, on a phone (390 px) and a desktop
(1280 px): the console stays clean (no Content-Security-Policy violation, no script error, no
failed load) and axe-core (the copy that the axe-playwright-python package ships) finds no
serious or critical accessibility violation. One test walks all the pages, so the browser starts
once; what axe found, by rule and impact, goes to test-artifacts/axe.json."""
import json
from collections import Counter

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from agentstate.memory.services import memory_confirm, memory_propose
from agentstate.models import Approval, Session, Turn
from procurement.people.tokens import token_issue
from procurement.purchase import services

from tests.browser.conftest import ARTIFACTS
from tests.procurement.invoicing.support import ordered

pytestmark = pytest.mark.django_db(transaction=True)
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
# The rules of WCAG 2.0–2.2 A and AA, as axe tags them, and its best practices (landmarks, headings).
AXE_OPTIONS = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa",
                                                      "best-practice"]},
               "resultTypes": ["violations"]}
BLOCKING = {"serious", "critical"}


@pytest.fixture
def pages(demo, erp, eager):
    """Who opens which page: a request waiting for bob (from a chat), one with its PO out, and
    alice's remembered preference and her API token."""
    alice = demo["alice"]
    session = Session.objects.create(owner=alice, title="laptops")
    waiting = services.request_submit(requester=alice, department="ENG", justification="new hires in March",
                                      lines=[{"description": "Laptop", "quantity": 2},
                                             {"description": "Monitor", "quantity": 2}], session=session)
    approval = Approval.objects.get(task=waiting, status="pending")
    done = ordered(alice, demo["bob"])
    said = Turn.objects.create(session=session, seq=99, role="user", text="Remember this")
    entry = memory_confirm(entry=memory_propose(turn=said, scope="user", subject="alice", kind="preference",
                                                content="Keep my requests under 50k"), by=alice)
    token_issue(user=alice, name="ERP connector")
    return {
        "alice": ["/", "/requests/", "/chat/", f"/chat/{session.pk}/", f"/tasks/{waiting.pk}/", f"/tasks/{done.pk}/",
                  "/notices/", "/memory/", f"/memory/{entry.pk}/", "/requests/new/", "/api-tokens/"],
        # The ordered request as its manager sees it: with the form to close the rest short.
        "bob": ["/approvals/", f"/approvals/{approval.pk}/", "/delegations/", "/notices/", f"/tasks/{done.pk}/"],
        "carol": ["/review/", "/invoices/", f"/tasks/{done.pk}/invoice/",
                  f"/tasks/{done.pk}/", "/memory/"],
    }


def console_watch(page, said: list):
    page.on("console", lambda m: said.append(f"{m.type}: {m.text}") if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda error: said.append(f"pageerror: {error}"))


def test_every_main_page_has_a_clean_console_and_no_serious_accessibility_violation(pages, signed_in,
                                                                                     live_server):
    axe = Axe()
    console, blocking, found = [], [], Counter()
    views = 0
    for username, urls in pages.items():
        page = signed_in(username, viewport=PHONE)
        said: list[str] = []
        console_watch(page, said)
        for language in ("zh-hant", "en"):
            if page.locator("html").get_attribute("lang") != language:
                with page.expect_navigation():
                    page.select_option("#lang", language)
                expect(page.locator("html")).to_have_attribute("lang", language)
            for url in urls:
                for viewport in (PHONE, DESKTOP):
                    page.set_viewport_size(viewport)
                    said.clear()
                    page.goto(f"{live_server.url}{url}")
                    page.wait_for_load_state("networkidle")
                    where = f"{username} {language} {viewport['width']}px {url}"
                    console.extend(f"{where}: {line}" for line in said)
                    results = axe.run(page, options=AXE_OPTIONS).response["violations"]
                    views += 1
                    for violation in results:
                        found[(violation["impact"], violation["id"])] += len(violation["nodes"])
                        if violation["impact"] in BLOCKING:
                            targets = [" ".join(map(str, n["target"])) for n in violation["nodes"]][:3]
                            blocking.append(f"{where}: {violation['id']} ({violation['impact']}) {targets}")
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "axe.json").write_text(json.dumps(
        {"page_views": views, "nodes_by_impact_and_rule": {f"{i} {r}": n for (i, r), n in sorted(found.items())},
         "console": console}, indent=2, ensure_ascii=False))
    assert views == 2 * 2 * sum(len(urls) for urls in pages.values())
    assert console == [], "\n".join(console)
    assert blocking == [], "\n".join(blocking)

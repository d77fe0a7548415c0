"""A real browser: the `playwright` package driving Debian's chromium by its path (no download).

Pages are served by pytest-django's live server; agent steps run in that process as soon as
each request commits (the `eager` fixture), against the ERP simulator on a real socket.
Screenshots of failing tests go to test-artifacts/."""
import os
import shutil
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
# Playwright's sync API keeps an event loop in this thread; the ORM calls tests make between
# browser steps are still plain synchronous calls.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.skip(f"needs Chromium at {CHROMIUM}: install Debian's chromium package (.ci/run does)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                  "--no-first-run", "--disable-sync"])
        yield browser
        browser.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" and report.failed:
        for name, page in getattr(item, "_pages", {}).items():
            ARTIFACTS.mkdir(exist_ok=True)
            try:
                page.screenshot(path=str(ARTIFACTS / f"{item.name}-{name}.png"), full_page=True)
            except Exception:
                pass


@pytest.fixture
def signed_in(browser, live_server, request):
    """signed_in("alice") → a page in its own browser context, signed in through the form."""
    contexts = []
    request.node._pages = {}

    def sign_in(username, viewport=None):
        context = browser.new_context(viewport=viewport or {"width": 1100, "height": 900})
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(15_000)
        page.goto(f"{live_server.url}/accounts/login/")
        page.get_by_label("Username").fill(username)
        page.get_by_label("Password").fill("demo")
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_load_state()
        request.node._pages[username] = page
        return page

    yield sign_in
    for context in contexts:
        context.close()

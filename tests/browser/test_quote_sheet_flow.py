"""Seed 000 in a browser at phone size, in Traditional Chinese: alice attaches a sheet of 20
quotes in the chat, answers the agent's three questions about its exceptions one at a time, and
submits; the request's panel links the version of the file that was read."""
import pytest
from playwright.sync_api import expect

from agentstate.models import Session, Task
from procurement.people.language import user_language_set
from tests.procurement.quote_sheets import xlsx_bytes

from tests.browser.conftest import ARTIFACTS

pytestmark = pytest.mark.django_db(transaction=True)
PHONE = {"width": 390, "height": 844}


@pytest.fixture(autouse=True)
def artifact_dir(settings, tmp_path):
    settings.STORAGES = {**settings.STORAGES, "artifacts": {
        "BACKEND": "django.core.files.storage.FileSystemStorage", "OPTIONS": {"location": str(tmp_path / "store")}}}


def say(page, text):
    page.get_by_label("訊息", exact=True).fill(text)
    page.get_by_role("button", name="送出", exact=True).click()


def test_alice_attaches_a_quote_sheet_in_chinese_chat_and_answers_its_questions(demo, erp, eager, signed_in,
                                                                                  tmp_path):
    user_language_set(user=demo["alice"], language="zh-hant")
    sheet = tmp_path / "報價.xlsx"
    sheet.write_bytes(xlsx_bytes())
    alice = signed_in("alice", viewport=PHONE)
    alice.get_by_role("button", name="用對話提出請購").click()
    agent = alice.locator(".turns li.agent")
    say(alice, "我需要 2 台筆電給新進工程師")
    expect(agent).to_have_count(1)

    alice.get_by_text("附上報價單").click()
    alice.get_by_label("報價單（Excel 或 CSV）").set_input_files(str(sheet))
    alice.get_by_label("訊息（選填）").fill("請幫我檢查這 20 筆報價並送出")
    alice.get_by_role("button", name="附上", exact=True).click()
    expect(agent).to_have_count(2)
    expect(agent.last).to_contain_text("第 1 題（共 3 題）")
    expect(agent.last).to_contain_text("雷射印表機")
    expect(alice.locator(".turns li.user").last).to_have_text("請幫我檢查這 20 筆報價並送出")

    say(alice, "刪除")
    expect(agent.last).to_contain_text("第 2 題（共 3 題）")
    say(alice, "統編是 90473155")
    expect(agent.last).to_contain_text("第 3 題（共 3 題）")
    say(alice, "確認")
    expect(agent.last).to_contain_text("都已回覆")
    expect(agent.last).to_contain_text("確認送出嗎")
    assert alice.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"], "the chat scrolls sideways"
    alice.screenshot(path=str(ARTIFACTS / "quote-sheet-chat-zh-390.png"), full_page=True)

    say(alice, "好，送出")
    expect(alice.locator("#task-panel [data-state]")).to_have_text("等待核准")
    task = Task.objects.get(pk=Session.objects.get(owner=demo["alice"]).task_id)
    link = alice.locator(".quote-sheet a[download]")
    expect(link).to_have_text("報價.xlsx（版本 1）")
    assert link.get_attribute("href") == f"/tasks/{task.pk}/files/{task.data['quote_sheet']['file']['version_id']}/"
    with alice.expect_download() as download:
        link.click()
    assert open(download.value.path(), "rb").read() == sheet.read_bytes()

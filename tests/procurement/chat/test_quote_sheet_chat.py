"""Seed 000's running example in the chat: alice attaches 20 quotes, 3 of them exceptions, and
the agent asks exactly 3 questions, one at a time, in her language; her answers resolve them and
the request goes on with the sheet's rows as quotes for it."""
import pytest
from django.utils import translation

from agentstate.artifacts.models import ArtifactVersion, Blob
from agentstate.errors import Conflict
from agentstate.models import Session, Task, TaskEvent
from procurement.chat.attach import chat_attach
from procurement.quotesheet.reader import SheetRefused
from procurement.words import refusal
from tests.procurement.chat.support import agent_turns, open_session, talk
from tests.procurement.quote_sheets import csv_bytes, xlsx_bytes

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


@pytest.fixture(autouse=True)
def artifact_dir(settings, tmp_path):
    settings.STORAGES = {**settings.STORAGES, "artifacts": {
        "BACKEND": "django.core.files.storage.FileSystemStorage", "OPTIONS": {"location": str(tmp_path)}}}
    return tmp_path


def attach(session, user, content=None, text="", filename="報價.xlsx"):
    return chat_attach(session=session, user=user, content=xlsx_bytes() if content is None else content,
                       filename=filename, text=text)


def sheet_of(session):
    session.refresh_from_db()
    return Task.objects.get(pk=session.task_id).data["quote_sheet"]


def open_count(session):
    return sum(1 for q in sheet_of(session)["questions"] if q["status"] == "open")


@pytest.mark.django_db(transaction=True)
def test_alice_in_chinese_answers_three_questions_one_at_a_time_and_submits(demo, erp, eager):
    alice = demo["alice"]
    session = open_session(alice)
    talk(session, alice, "我需要 2 台筆電給新進工程師")
    result = attach(session, alice, text="請幫我檢查這 20 筆報價並送出")
    assert "20 筆報價" in result.reply and "3 筆需要您回覆" in result.reply
    assert "第 1 題（共 3 題）" in result.reply and "第 5 列" in result.reply and "第 2 題" not in result.reply
    assert open_count(session) == 3

    result = talk(session, alice, "刪除")
    assert "第 5 列不列入" in result.reply and "第 2 題（共 3 題）" in result.reply and "第 9 列" in result.reply
    assert open_count(session) == 2

    result = talk(session, alice, "12345678")  # still not a listed supplier's 統一編號: asked again
    assert "不是我們供應商名單上" in result.reply and "第 2 題（共 3 題）" in result.reply
    assert open_count(session) == 2
    result = talk(session, alice, "統編是 90473155")
    assert "第 9 列" in result.reply and "第 3 題（共 3 題）" in result.reply and "第 14 列" in result.reply
    assert "83%" in result.reply

    result = talk(session, alice, "價格應該是 6,480")
    assert open_count(session) == 0
    assert "都已回覆" in result.reply and "確認送出嗎" in result.reply
    assert "Row" not in result.reply and "Question" not in result.reply

    result = talk(session, alice, "好，送出")
    task = Task.objects.get(pk=session.task_id)
    assert task.state == "awaiting_approval"
    # Row 9, recorded as Formosa's by the 統一編號 she gave, offers the laptop at 33,000: below the
    # catalogue's best (34,900), so the sheet's rows were compared as quotes for this request.
    assert task.data["award"]["supplier"] == "福爾摩沙電腦股份有限公司"
    assert task.data["award"]["lines"][0]["unit_price"] == "33000.00"
    sheet = task.data["quote_sheet"]
    assert sheet["file"]["version"] == 1 and len(sheet["file"]["sha256"]) == 64
    answered = [q["answer"]["action"] for q in sheet["questions"]]
    assert answered == ["drop", "tax_id", "price"]


def test_each_agent_turn_asks_at_most_one_question(demo):
    alice = demo["alice"]
    session = open_session(alice)
    attach(session, alice, text="請幫我檢查這些報價")
    talk(session, alice, "刪除", "刪除", "確認")
    asked = [t.text for t in agent_turns(session)]
    assert [sum(f"第 {n} 題" in text for n in (1, 2, 3)) for text in asked] == [1, 1, 1, 0]


def test_an_answer_that_is_no_answer_asks_the_same_question_again(demo):
    alice = demo["alice"]
    session = open_session(alice)
    attach(session, alice, text="請檢查")
    result = talk(session, alice, "嗯")
    assert "第 1 題（共 3 題）" in result.reply and open_count(session) == 3


def test_in_english_the_questions_are_english(demo):
    alice = demo["alice"]
    session = open_session(alice)
    result = attach(session, alice, text="please check these 20 quotes and submit")
    assert "Question 1 of 3" in result.reply and "Row 5" in result.reply
    result = talk(session, alice, "drop it")
    assert "Row 5 is left out" in result.reply and "Question 2 of 3" in result.reply


def test_the_same_file_twice_is_stored_once_and_asks_nothing_new(demo, artifact_dir):
    alice = demo["alice"]
    session = open_session(alice)
    content = xlsx_bytes()
    attach(session, alice, content=content, text="請檢查")
    session.refresh_from_db()
    version = Task.objects.get(pk=session.task_id).version
    result = attach(session, alice, content=content, text="再傳一次")
    assert "同一個檔案" in result.reply and "第 1 題（共 3 題）" in result.reply
    assert Blob.objects.count() == 1 and ArtifactVersion.objects.count() == 1
    assert len([p for p in artifact_dir.rglob("*") if p.is_file()]) == 1
    assert Task.objects.get(pk=session.task_id).version == version  # State unchanged


def test_a_changed_file_is_a_new_version_read_afresh(demo):
    alice = demo["alice"]
    session = open_session(alice)
    attach(session, alice, text="請檢查")
    talk(session, alice, "刪除")
    fixed = xlsx_bytes(rows=[["Laptop", "新竹科技供應股份有限公司", "24536806", 34000, 5]])
    result = attach(session, alice, content=fixed, text="這是改過的")
    sheet = sheet_of(session)
    assert sheet["file"]["version"] == 2 and open_count(session) == 0 and len(sheet["rows"]) == 1
    assert ArtifactVersion.objects.filter(artifact__task_id=session.task_id).count() == 2
    assert "版本 2" in result.reply


@pytest.mark.parametrize("content,words", [
    (csv_bytes(header=["名稱", "價錢", "x", "y", "z"]), "品項"),
    (b"\x89PNG\r\n\x1a\n" + bytes(range(256)), "不是試算表"),
    (xlsx_bytes(rows=[["Laptop", "新竹科技供應股份有限公司", "24536806", "=A1*2", 5]]), "公式"),
], ids=["wrong-columns", "not-a-spreadsheet", "formula-price"])
def test_a_bad_file_is_refused_in_chinese_and_nothing_is_stored(demo, content, words):
    alice = demo["alice"]
    session = open_session(alice)
    talk(session, alice, "我需要 2 台筆電給新進工程師")
    task = Task.objects.get(pk=Session.objects.get(pk=session.pk).task_id)
    events, turns = TaskEvent.objects.count(), session.turns.count()
    with pytest.raises(SheetRefused) as caught:
        chat_attach(session=session, user=alice, content=content, filename="q.xlsx", text="請檢查")
    with translation.override("zh-hant"):  # worded on read, in the reader's language
        assert words in refusal(caught.value)
    assert (TaskEvent.objects.count(), session.turns.count(), Blob.objects.count()) == (events, turns, 0)
    assert Task.objects.get(pk=task.pk).version == task.version


@pytest.mark.django_db(transaction=True)
def test_a_submitted_request_takes_no_sheet(demo, erp, eager):
    alice = demo["alice"]
    session = open_session(alice)
    talk(session, alice, "我需要 2 台筆電給新進工程師", "好，送出")
    with pytest.raises(Conflict) as caught:
        attach(session, alice, text="請檢查")
    assert "草稿" in str(caught.value) and Blob.objects.count() == 0


def test_while_questions_are_open_she_may_still_change_the_draft_or_cancel_it(demo):
    alice = demo["alice"]
    session = open_session(alice)
    talk(session, alice, "我需要 2 台筆電給新進工程師")
    attach(session, alice, text="請檢查")
    result = talk(session, alice, "改成 3 台筆電")
    assert Task.objects.get(pk=session.task_id).data["draft"]["lines"] == [{"description": "Laptop", "quantity": 3}]
    assert "第 1 題（共 3 題）" in result.reply and open_count(session) == 3  # asked again, still open
    result = talk(session, alice, "取消")
    assert Task.objects.get(pk=session.task_id).state == "cancelled"


def test_naming_the_item_checks_its_price_like_any_other_row(demo):
    alice = demo["alice"]
    session = open_session(alice)
    attach(session, alice, text="請檢查")
    result = talk(session, alice, "是筆電")  # row 5 says NT$9,800: 72% below the laptop median
    assert "第 5 列：已記為筆電" in result.reply and "第 2 題（共 4 題）" in result.reply
    questions = sheet_of(session)["questions"]
    assert [(q["n"], q["row"], q["kind"], q["status"]) for q in questions][-1] == (4, 5, "price", "open")

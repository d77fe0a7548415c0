"""A quote sheet on the pages and the API: attached in the chat (page and htmx) or by
`POST /api/v1/sessions/{id}/attachments/`; refused early and in the reader's language when it
is too big, the wrong shape or no spreadsheet; downloaded only by those who may see the request,
at the version it read, which the approval page links."""
import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient

from agentstate.artifacts.models import Blob
from agentstate.models import Approval, Session, Task, TaskEvent
from procurement.chat.attach import chat_attach
from tests.procurement.chat.support import talk
from tests.procurement.quote_sheets import HSINCHU, csv_bytes, entity_bomb_xlsx, row, xlsx_bytes

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]
HX = {"HTTP_HX_REQUEST": "true"}
ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-hant"}
CLEAN = [row("Laptop", HSINCHU, 34500)]


@pytest.fixture(autouse=True)
def artifact_dir(settings, tmp_path):
    settings.STORAGES = {**settings.STORAGES, "artifacts": {
        "BACKEND": "django.core.files.storage.FileSystemStorage", "OPTIONS": {"location": str(tmp_path)}}}
    return tmp_path


def client_for(user, csrf=False):
    client = Client(enforce_csrf_checks=csrf)
    client.force_login(user)
    return client


def api_for(user):
    client = APIClient()
    client.force_authenticate(user)
    return client


def upload(content, name="報價.xlsx"):
    return SimpleUploadedFile(name, content, content_type="application/octet-stream")


@pytest.fixture
def session(demo):
    return Session.objects.create(owner=demo["alice"])


def test_attaching_in_the_chat_page_shows_the_first_question_in_chinese(demo, session):
    client = client_for(demo["alice"])
    response = client.post(f"/chat/{session.pk}/attachments/", {"file": upload(xlsx_bytes()), "text": "請幫我檢查這 20 筆報價並送出"},
                           **HX, **ZH)
    assert response.status_code == 200
    body = response.content.decode()
    assert "請幫我檢查這 20 筆報價並送出" in body and "第 1 題（共 3 題）" in body
    page = client.get(f"/chat/{session.pk}/", **ZH).content.decode()
    assert "報價單" in page and "報價.xlsx（版本 1）" in page and "尚有 3 個問題待回覆" in page
    assert "已讀取報價單 報價.xlsx（版本 1）：20 筆報價，3 個問題" in page and "quote sheet" not in page


def test_the_chat_page_offers_the_attach_form_with_csrf(demo, session):
    client = client_for(demo["alice"], csrf=True)
    page = client.get(f"/chat/{session.pk}/", **ZH).content.decode()
    assert 'enctype="multipart/form-data"' in page and "附上報價單" in page
    response = client.post(f"/chat/{session.pk}/attachments/", {"file": upload(xlsx_bytes())})
    assert response.status_code == 403 and Blob.objects.count() == 0


def test_a_bad_file_in_the_chat_page_is_a_400_in_chinese_with_nothing_stored(demo, session):
    client = client_for(demo["alice"])
    response = client.post(f"/chat/{session.pk}/attachments/",
                           {"file": upload(csv_bytes(header=["名稱", "價錢", "x", "y", "z"]), "q.csv")}, **HX, **ZH)
    assert response.status_code == 400
    assert "需要的欄位：品項、供應商、統一編號、單價（未稅）" in response.content.decode()
    assert Blob.objects.count() == 0 and session.turns.count() == 0


def test_fifty_megabytes_are_refused_from_the_header_before_the_body_is_read(demo, session):
    client = client_for(demo["alice"])
    for path in (f"/chat/{session.pk}/attachments/", f"/api/v1/sessions/{session.pk}/attachments/"):
        response = client.generic("POST", path, b"--x--", content_type="multipart/form-data; boundary=x",
                                  CONTENT_LENGTH=str(50 * 1024 * 1024), **ZH)
        assert response.status_code == 413
        assert "10 MB" in response.content.decode()
    assert Blob.objects.count() == 0


def test_a_file_between_the_limit_and_the_envelope_is_refused_too(demo, session, settings):
    settings.QUOTE_SHEET_MAX_BYTES = 2000
    client = client_for(demo["alice"])
    response = client.post(f"/chat/{session.pk}/attachments/", {"file": upload(csv_bytes() * 3, "q.csv")}, **HX)
    assert response.status_code == 413 and Blob.objects.count() == 0


def test_other_routes_keep_the_one_megabyte_body_limit(demo, session):
    client = client_for(demo["alice"])
    response = client.generic("POST", f"/chat/{session.pk}/messages/", b"x", content_type="multipart/form-data; boundary=x",
                              CONTENT_LENGTH=str(2 * 1024 * 1024))
    assert response.status_code == 413


def test_the_api_attaches_and_answers_201_with_the_artifact_and_the_reply(demo, session):
    response = api_for(demo["alice"]).post(f"/api/v1/sessions/{session.pk}/attachments/",
                                           {"file": upload(xlsx_bytes()), "text": "請幫我檢查這 20 筆報價並送出"},
                                           format="multipart")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["open_questions"] == 3 and body["artifact"]["version"] == 1 and body["task"]["state"] == "draft"
    assert "第 1 題（共 3 題）" in body["reply"]
    assert body["artifact"]["download"].endswith(f"/tasks/{body['task']['id']}/files/{body['artifact']['version_id']}/")
    answered = api_for(demo["alice"]).post(f"/api/v1/sessions/{session.pk}/messages/", {"text": "刪除"}, format="json")
    assert "第 2 題（共 3 題）" in answered.json()["reply"]


@pytest.mark.parametrize("content,status,words", [
    (csv_bytes(header=["名稱", "價錢", "x", "y", "z"]), 400, "品項"),
    (b"\x89PNG\r\n\x1a\n" + bytes(range(256)), 400, "不是試算表"),
    (xlsx_bytes(rows=[row("Laptop", HSINCHU, "=A1*2")]), 400, "公式"),
], ids=["wrong-columns", "not-a-spreadsheet", "formula-price"])
def test_the_api_refuses_bad_files_in_the_callers_language(demo, session, content, status, words):
    client = api_for(demo["alice"])
    response = client.post(f"/api/v1/sessions/{session.pk}/attachments/", {"file": upload(content), "text": "請檢查"},
                           format="multipart", **ZH)
    assert response.status_code == status and words in response.json()["detail"]
    assert response.json()["errors"]["file"]
    assert Blob.objects.count() == 0 and Task.objects.count() == 0 and session.turns.count() == 0


def test_a_sheet_declaring_nested_entities_is_refused_with_400_on_the_api_and_the_chat_page(demo, session):
    bomb = entity_bomb_xlsx()
    response = api_for(demo["alice"]).post(f"/api/v1/sessions/{session.pk}/attachments/",
                                           {"file": upload(bomb), "text": "請檢查"}, format="multipart", **ZH)
    assert response.status_code == 400 and "實體" in response.json()["detail"]
    assert response.json()["errors"]["file"]
    page = client_for(demo["alice"]).post(f"/chat/{session.pk}/attachments/", {"file": upload(bomb)}, **HX, **ZH)
    assert page.status_code == 400 and "實體" in page.content.decode()
    assert Blob.objects.count() == 0 and session.turns.count() == 0


def multipart_with_name(name: str) -> bytes:
    # Built by hand: the test client's uploaded file cuts its own name to 255 characters first.
    return (f'--x\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
            f"Content-Type: text/csv\r\n\r\n").encode() + csv_bytes(CLEAN) + b"\r\n--x--\r\n"


@pytest.mark.parametrize("length", [201, 300, 1000])
def test_a_long_file_name_is_refused_as_json_on_the_api_and_as_a_message_on_the_page(demo, session, length):
    body = multipart_with_name("q" * (length - 4) + ".csv")
    kind = "multipart/form-data; boundary=x"
    response = api_for(demo["alice"]).generic("POST", f"/api/v1/sessions/{session.pk}/attachments/", body,
                                              content_type=kind, **ZH)
    assert response.status_code == 400 and response["Content-Type"] == "application/json"
    assert "檔名超過 200 個字元" in response.json()["detail"] and response.json()["errors"]["file"]
    page = client_for(demo["alice"]).generic("POST", f"/chat/{session.pk}/attachments/", body, content_type=kind,
                                             **HX, **ZH)
    assert page.status_code == 400 and "檔名超過 200 個字元" in page.content.decode()
    assert Blob.objects.count() == 0 and session.turns.count() == 0


def test_a_name_of_two_hundred_characters_is_kept_whole(demo, session):
    name = "q" * 196 + ".csv"
    response = api_for(demo["alice"]).generic("POST", f"/api/v1/sessions/{session.pk}/attachments/",
                                              multipart_with_name(name), content_type="multipart/form-data; boundary=x")
    assert response.status_code == 201 and response.json()["artifact"]["filename"] == name


def test_the_api_without_a_file_is_400(demo, session):
    response = api_for(demo["alice"]).post(f"/api/v1/sessions/{session.pk}/attachments/", {"text": "x"},
                                           format="multipart")
    assert response.status_code == 400 and "file" in response.json()["errors"]


def test_someone_elses_session_is_404(demo, session):
    response = api_for(demo["erin"]).post(f"/api/v1/sessions/{session.pk}/attachments/",
                                          {"file": upload(xlsx_bytes())}, format="multipart")
    assert response.status_code == 404 and Blob.objects.count() == 0


def test_the_schema_documents_the_upload():
    schema = yaml.safe_load(APIClient().get("/api/v1/schema/").content)
    operation = schema["paths"]["/api/v1/sessions/{id}/attachments/"]["post"]
    assert "multipart/form-data" in operation["requestBody"]["content"]
    assert {"201", "400", "413"} <= operation["responses"].keys()


def test_download_is_for_those_who_may_see_the_request(demo, session):
    content = xlsx_bytes()
    result = chat_attach(session=session, user=demo["alice"], content=content, filename="報價.xlsx", text="請檢查")
    url = f"/tasks/{result.task.pk}/files/{result.task.data['quote_sheet']['file']['version_id']}/"
    mine = client_for(demo["alice"]).get(url)
    assert mine.status_code == 200 and b"".join(mine.streaming_content) == content
    assert "attachment" in mine["Content-Disposition"]
    assert client_for(demo["erin"]).get(url).status_code == 404  # another requester
    assert client_for(demo["dave"]).get(url).status_code == 404  # another department's manager
    assert Client().get(url).status_code == 302  # signed out: to the sign-in page
    other = Session.objects.create(owner=demo["erin"])
    theirs = chat_attach(session=other, user=demo["erin"], content=csv_bytes(CLEAN), filename="x.csv", text="check")
    foreign = f"/tasks/{result.task.pk}/files/{theirs.task.data['quote_sheet']['file']['version_id']}/"
    assert client_for(demo["alice"]).get(foreign).status_code == 404  # a version of another task


@pytest.mark.django_db(transaction=True)
def test_the_approval_page_links_the_version_that_was_read(demo, erp, eager):
    alice = demo["alice"]
    session = Session.objects.create(owner=alice)
    talk(session, alice, "我需要 2 台筆電給新進工程師")
    chat_attach(session=session, user=alice, content=csv_bytes(CLEAN), filename="v1.csv", text="請檢查")
    changed = chat_attach(session=session, user=alice, content=csv_bytes([row("Laptop", HSINCHU, 34000)]),
                          filename="v2.csv", text="改過的")
    talk(session, alice, "好，送出")
    approval = Approval.objects.get(task_id=changed.task.pk, status="pending")
    file = Task.objects.get(pk=changed.task.pk).data["quote_sheet"]["file"]
    assert file["version"] == 2
    page = client_for(demo["bob"]).get(f"/approvals/{approval.pk}/", **ZH).content.decode()
    assert f"/tasks/{changed.task.pk}/files/{file['version_id']}/" in page and "v2.csv（版本 2）" in page
    assert client_for(demo["bob"]).get(f"/tasks/{changed.task.pk}/files/{file['version_id']}/").status_code == 200
    assert TaskEvent.objects.filter(task_id=changed.task.pk, reason__contains="quote sheet v2.csv (version 2) read").exists()


def test_on_the_drafts_page_the_sheet_goes_into_its_conversation(demo, session):
    alice = demo["alice"]
    talk(session, alice, "我需要 2 台筆電給新進工程師")
    session.refresh_from_db()
    page = client_for(alice).get(f"/tasks/{session.task_id}/", **ZH).content.decode()
    assert f'action="/tasks/{session.task_id}/quote-sheet/"' in page and "附上報價單" in page
    response = client_for(alice).post(f"/tasks/{session.task_id}/quote-sheet/", {"file": upload(xlsx_bytes())}, **ZH)
    assert response.status_code == 302 and response["Location"] == f"/chat/{session.pk}/"
    assert "第 1 題（共 3 題）" in session.turns.order_by("-seq").first().text
    assert client_for(demo["erin"]).post(f"/tasks/{session.task_id}/quote-sheet/",
                                         {"file": upload(xlsx_bytes())}).status_code == 404


def test_on_the_page_a_bad_file_is_shown_there_with_nothing_stored(demo, session):
    alice = demo["alice"]
    talk(session, alice, "我需要 2 台筆電給新進工程師")
    session.refresh_from_db()
    response = client_for(alice).post(f"/tasks/{session.task_id}/quote-sheet/",
                                      {"file": upload(b"\x89PNG\r\n\x1a\n" + bytes(range(256)), "q.csv")}, **ZH)
    assert response.status_code == 400 and "不是試算表" in response.content.decode()
    assert Blob.objects.count() == 0


@pytest.mark.django_db(transaction=True)
def test_a_submitted_requests_page_offers_no_sheet_and_refuses_one(demo, erp, eager):
    alice = demo["alice"]
    session = Session.objects.create(owner=alice)
    talk(session, alice, "我需要 2 台筆電給新進工程師", "好，送出")
    session.refresh_from_db()
    assert "quote-sheet/" not in client_for(alice).get(f"/tasks/{session.task_id}/").content.decode()
    response = client_for(alice).post(f"/tasks/{session.task_id}/quote-sheet/", {"file": upload(xlsx_bytes())}, **ZH)
    assert response.status_code == 409 and "草稿" in response.content.decode() and Blob.objects.count() == 0


def test_a_task_whose_state_names_the_version_read_downloads_it_as_its_own(demo, session):
    """A fork starts from its original's understanding, quote sheet included: its page links the
    same file, and the same people as ever may download it."""
    from tests.engine_support import task_in_state

    content = xlsx_bytes()
    result = chat_attach(session=session, user=demo["alice"], content=content, filename="報價.xlsx", text="請檢查")
    sheet = result.task.data["quote_sheet"]
    fork = task_in_state(state="draft", initiator=demo["alice"], kind="purchase", tenant="ENG",
                         data={"quote_sheet": sheet})
    url = f"/tasks/{fork.pk}/files/{sheet['file']['version_id']}/"
    response = client_for(demo["alice"]).get(url)
    assert response.status_code == 200 and b"".join(response.streaming_content) == content
    assert client_for(demo["erin"]).get(url).status_code == 404
    unrelated = task_in_state(state="draft", initiator=demo["alice"], kind="purchase", tenant="ENG", data={})
    assert client_for(demo["alice"]).get(f"/tasks/{unrelated.pk}/files/{sheet['file']['version_id']}/").status_code == 404


def _pruned_request(demo, session):
    """alice's request with a sheet, cancelled 31 days ago, after the retention pass."""
    from datetime import timedelta

    from django.utils import timezone

    from agentstate.retention import state_prune
    from procurement.purchase import services

    result = chat_attach(session=session, user=demo["alice"], content=csv_bytes(CLEAN), filename="報價.csv",
                         text="請檢查")
    task = services.request_cancel(task_id=result.task.pk, user=demo["alice"], reason="不需要了")
    Task.objects.filter(pk=task.pk).update(updated_at=timezone.now() - timedelta(days=31))
    assert not Task.objects.get(pk=task.pk).runnable  # the cancellation's step ran
    assert state_prune().artifacts.blobs == 1
    return task, task.data["quote_sheet"]["file"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("language,words", [
    ("zh-hant", "此檔案的內容已依資料保存政策移除"),
    ("en", "The content of this file was removed under the retention policy"),
])
def test_after_retention_the_request_page_and_the_download_say_the_content_was_removed(demo, erp, eager, session,
                                                                                       language, words):
    task, file = _pruned_request(demo, session)
    alice = client_for(demo["alice"])
    page = alice.get(f"/tasks/{task.pk}/", HTTP_ACCEPT_LANGUAGE=language)
    assert page.status_code == 200 and words in page.content.decode()
    assert "報價.csv" in page.content.decode() and f"/files/{file['version_id']}/" not in page.content.decode()
    download = alice.get(f"/tasks/{task.pk}/files/{file['version_id']}/", HTTP_ACCEPT_LANGUAGE=language)
    assert download.status_code == 410 and words in download.content.decode()
    assert "報價.csv" in download.content.decode()
    assert client_for(demo["erin"]).get(f"/tasks/{task.pk}/files/{file['version_id']}/").status_code == 404

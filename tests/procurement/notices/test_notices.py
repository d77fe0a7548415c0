"""Notices through the outbox: who hears of what, once each, in their language, with absolute
links; the supplier's purchase order only after the ERP confirmed it; 退回 as the agent's
question in the requester's conversation."""
import email
import io
import os
import subprocess
import sys
import threading
from datetime import timedelta
from email import policy

import pytest
from pypdf import PdfReader
from django.conf import settings
from django.db import connection
from django.utils import timezone

from agentstate.models import Approval, Session, Task
from procurement.purchase import services
from procurement import tasks
from procurement.people.language import user_language_set
from procurement.models import Notice, NoticeSource, Notification
from procurement.notices.derive import approval_reminders, notices_catch_up, notices_for_task
from procurement.infra.outbox import outbox_dispatch

pytestmark = pytest.mark.django_db(transaction=True)
SITE = "https://buy.example.tw"
LAPTOPS = [{"description": "Laptop", "quantity": 2}]


@pytest.fixture(autouse=True)
def site(settings):
    settings.SITE_URL = SITE


@pytest.fixture
def mail_folder(settings, tmp_path):
    folder = tmp_path / "mail"
    settings.MAILERS = {"default": {"BACKEND": "django.core.mail.backends.filebased.EmailBackend",
                                    "OPTIONS": {"file_path": str(folder)}}}
    return folder


def folder_mails(folder) -> list:
    """Every message the file backend wrote, parsed."""
    messages = []
    for path in sorted(folder.glob("*.log")) if folder.exists() else []:
        for raw in path.read_bytes().split(b"\n" + b"-" * 79 + b"\n"):
            if raw.strip():
                messages.append(email.message_from_bytes(raw.strip(), policy=policy.default))
    return messages


def submit(user, lines=LAPTOPS, session=None):
    task = services.request_submit(requester=user, department="ENG", lines=lines, justification="new hires",
                                   session=session)
    task.refresh_from_db()
    return task


def decide(task, user, decision, comment=""):
    approval = Approval.objects.get(task=task, status="pending")
    services.approval_decide(approval_id=approval.pk, user=user, decision=decision, comment=comment,
                             state_version=approval.state_version, scope_hash=approval.scope_hash)
    task.refresh_from_db()
    return approval


def kinds(user) -> list[str]:
    return sorted(Notice.objects.filter(recipient=user).values_list("kind", flat=True))


def passes_again():
    """Everything that may run the notice pass again: the step's hook, the safety net, beat."""
    for task_id in Task.objects.values_list("pk", flat=True):
        notices_for_task(task_id)
    notices_catch_up()
    approval_reminders()
    tasks.recover()


def test_each_person_hears_of_an_approved_request_once_with_absolute_links(demo, erp, eager, mailoutbox):
    alice, bob, frank = demo["alice"], demo["bob"], demo["frank"]
    task = submit(alice)
    approval = Approval.objects.get(task=task, status="pending")
    assert kinds(bob) == kinds(frank) == ["approval_new"] and kinds(alice) == []
    [to_bob] = [m for m in mailoutbox if m.to == ["bob@example.com"]]
    assert f"{SITE}/approvals/{approval.pk}/" in to_bob.body and "NT$" in to_bob.subject
    assert task.purchase_request.number in to_bob.subject
    assert Notice.objects.get(recipient=bob).url == f"{SITE}/approvals/{approval.pk}/"

    decide(task, bob, "approve")
    assert task.state == "externally_confirmed"
    assert kinds(alice) == ["approved", "po_issued"]
    po_number = task.data["purchase_order"]["id"]
    [po_mail] = [m for m in mailoutbox if m.to == ["alice@example.com"] and po_number in m.subject]
    assert f"{SITE}/tasks/{task.pk}/" in po_mail.body and po_number in Notice.objects.get(kind="po_issued").text
    assert task.purchase_request.number in po_mail.subject

    sent = len(mailoutbox)
    passes_again()
    passes_again()
    assert kinds(alice) == ["approved", "po_issued"] and kinds(bob) == ["approval_new"]
    assert len(mailoutbox) == sent
    assert Notification.objects.filter(task=task).exclude(status="sent").count() == 0
    assert len({m.extra_headers["Message-ID"] for m in mailoutbox}) == len(mailoutbox)


def test_the_supplier_gets_the_purchase_order_only_after_the_erp_confirms_it(demo, erp, eager, mail_folder):
    erp.fault(mode="down", path="/purchase-orders")
    task = submit(demo["alice"])
    approval = decide(task, demo["bob"], "approve")
    supplier = approval.scope["supplier"]["email"]
    assert supplier and approval.scope["emails"] == [supplier]
    assert task.state == "needs_review", "the order's outcome is unknown while the ERP is down"
    assert [m["To"] for m in folder_mails(mail_folder) if m["To"] == supplier] == []
    assert "needs_review" in kinds(demo["alice"])

    erp.clear_faults()
    for _ in range(5):
        tasks.recover()
        task.refresh_from_db()
        if task.state == "externally_confirmed":
            break
    assert task.state == "externally_confirmed", list(task.events.values_list("event", "reason"))
    tasks.recover()
    [order] = [m for m in folder_mails(mail_folder) if m["To"] == supplier]
    po_number = task.data["purchase_order"]["id"]
    body = order.get_body().get_content()
    assert po_number in order["Subject"] and po_number in body
    assert "未稅小計：NT$" in body and "營業稅 5%：NT$" in body and "含稅總計：NT$" in body
    assert not any(label + ":" in body for label in ("未稅小計", "營業稅 5%", "含稅總計")), "full-width colons, as beside them"
    assert [line["description"] for line in approval.scope["lines"]] == ["Laptop"]
    assert "1. 筆電 × 2 @ NT$34,900" in body and "Laptop" not in body, "the supplier reads the item in Chinese"
    assert "部門：工程部（成本中心 ENG-01）" in body and "Engineering" not in body, "and the department too"
    assert order["Message-ID"]
    # the PO's facts beside its lines, as on its PDF, which rides along
    for fact in (f"買方：{settings.COMPANY_NAME}，統一編號 {settings.COMPANY_TAX_ID}。", f"聯絡人：{settings.COMPANY_CONTACT}",
                 f"賣方統一編號：{approval.scope['supplier']['tax_id']}。", f"交貨地點：{settings.COMPANY_SHIP_TO}",
                 f"付款條件：{settings.PAYMENT_TERMS}", f"採購單 {po_number} 的 PDF 如附件。"):
        assert fact in body, fact
    [pdf] = [part for part in order.iter_attachments()]
    assert pdf.get_filename() == f"{po_number}.pdf" and pdf.get_content_type() == "application/pdf"
    text = "".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf.get_content())).pages)
    assert po_number in text and "採購單" in text and settings.COMPANY_TAX_ID in text


def test_a_zh_hant_requester_gets_zh_hant_mail_and_notices_and_the_approver_english(demo, erp, eager, mailoutbox):
    alice, bob = demo["alice"], demo["bob"]
    user_language_set(user=alice, language="zh-hant")
    task = submit(alice)
    decide(task, bob, "reject", comment="Use the laptops IT already has")
    [rejected] = [m for m in mailoutbox if m.to == ["alice@example.com"]]
    assert "駁回" in rejected.subject and "Use the laptops IT already has" in rejected.body
    assert "rejected" not in rejected.body
    notice = Notice.objects.get(recipient=alice)
    assert notice.kind == "rejected" and "駁回" in notice.text and "Use the laptops IT already has" in notice.text
    assert "（筆電 × 2）" in rejected.body and "（筆電 × 2）" in notice.text and "Laptop" not in rejected.body
    [to_bob] = [m for m in mailoutbox if m.to == ["bob@example.com"]]
    assert to_bob.subject.startswith("Approval needed")
    assert ": Laptop × 2, NT$73,290 incl. tax" in to_bob.body and "筆電" not in to_bob.body


def test_the_order_notice_names_the_supplier_right_after_the_chinese_words(demo, erp, eager):
    task = submit(demo["alice"])
    decide(task, demo["bob"], "approve")
    supplier = Approval.objects.get(task=task, status="approved").scope["supplier"]["name"]
    notice = Notice.objects.get(recipient=demo["alice"], kind="po_issued")
    assert f"，供應商為{supplier}。" in notice.text_in("zh-hant")
    assert f" from {supplier}." in notice.text_in("en")


def test_a_zh_hant_approver_reads_the_items_of_a_new_approval_in_chinese(demo, erp, eager, mailoutbox):
    user_language_set(user=demo["bob"], language="zh-hant")
    submit(demo["alice"], lines=[{"description": "Laptop", "quantity": 2}, {"description": "USB-C dock", "quantity": 1}])
    [to_bob] = [m for m in mailoutbox if m.to == ["bob@example.com"]]
    notice = Notice.objects.get(recipient=demo["bob"], kind="approval_new")
    for text in (to_bob.body, notice.text):
        assert "筆電 × 2、USB-C 擴充座 × 1" in text
        assert "Laptop" not in text and "dock" not in text


def test_an_office_that_reads_chinese_sends_an_approver_who_never_signed_in_his_first_mail_in_chinese(
        demo, erp, eager, mailoutbox, settings):
    """LANGUAGE_CODE=zh-hant: bob has never signed in nor chosen a language, so he is written to in
    the office's language; his own choice, once made, wins."""
    from procurement.models import UserPreference

    settings.LANGUAGE_CODE = "zh-hant"
    bob = demo["bob"]
    UserPreference.objects.filter(user=bob).delete()
    submit(demo["alice"])
    [to_bob] = [m for m in mailoutbox if m.to == ["bob@example.com"]]
    assert "筆電 × 2" in to_bob.body and "Laptop" not in to_bob.body and "Approval needed" not in to_bob.subject

    user_language_set(user=bob, language="en")
    mailoutbox.clear()
    submit(demo["alice"])
    [to_bob] = [m for m in mailoutbox if m.to == ["bob@example.com"]]
    assert to_bob.subject.startswith("Approval needed") and "Laptop" in to_bob.body


def site_language(value: str) -> subprocess.CompletedProcess:
    """Start the settings with LANGUAGE_CODE=value, as a deployment would, and print the language."""
    from django.conf import settings as django_settings

    return subprocess.run([sys.executable, "-c", "import django; django.setup(); from django.conf import settings; "
                           "print(settings.LANGUAGE_CODE)"], capture_output=True, text=True, cwd=django_settings.BASE_DIR,
                          env={**os.environ, "LANGUAGE_CODE": value, "DJANGO_SETTINGS_MODULE": "procurement.settings"})


def test_the_office_language_comes_from_the_environment_as_written_in_either_case():
    assert site_language("zh-Hant").stdout.strip() == "zh-hant"
    assert site_language("").stdout.strip() == "en"


def test_a_language_code_the_site_does_not_speak_stops_it_from_starting_and_says_which_it_speaks():
    run = site_language("fr")
    assert run.returncode != 0
    assert "LANGUAGE_CODE must be one of en, zh-hant, not 'fr'" in run.stderr


def test_a_return_puts_the_comment_in_alice_latest_conversation_as_the_agents_question(demo, erp, eager,
                                                                                        mailoutbox):
    alice, bob = demo["alice"], demo["bob"]
    first = Session.objects.create(owner=alice)
    task = submit(alice, session=first)
    latest = Session.objects.create(owner=alice, task=task)  # "continue my last request" in a new chat
    comment = "請改成 14 吋的機型，並說明為什麼需要兩台"
    decide(task, bob, "return", comment=comment)

    assert task.state == "awaiting_input" and task.data["question"] == comment
    turn = latest.turns.order_by("-seq").first()
    assert turn.role == "agent" and comment in turn.text
    assert turn.data["expects"] == "revision" and turn.data["question"] == comment
    assert turn.data["task"] == str(task.pk) and turn.data["did"] == "return"
    assert not first.turns.filter(text__contains=comment).exists()
    [returned] = [m for m in mailoutbox if m.to == ["alice@example.com"]]
    assert comment in returned.body and f"{SITE}/chat/{latest.pk}/" in returned.body
    assert f"{SITE}/tasks/{task.pk}/" in returned.body

    passes_again()
    assert latest.turns.filter(role="agent", text__contains=comment).count() == 1
    assert kinds(alice) == ["returned"]


def test_a_return_of_a_request_made_through_the_api_opens_a_conversation_for_it(demo, erp, eager):
    alice = demo["alice"]
    task = submit(alice)
    assert not Session.objects.filter(owner=alice).exists()
    decide(task, demo["bob"], "return", comment="Which project is this for?")
    [session] = Session.objects.filter(owner=alice)
    assert session.task_id == task.pk
    [turn] = session.turns.all()
    assert turn.role == "agent" and "Which project is this for?" in turn.text and turn.data["expects"] == "revision"


def test_approvers_are_reminded_once_before_expiry_and_alice_hears_once_that_it_expired(demo, erp, eager,
                                                                                       settings, mailoutbox):
    settings.APPROVAL_REMINDER_SECONDS = 3600
    task = submit(demo["alice"])
    approval = Approval.objects.get(task=task, status="pending")
    tasks.recover()
    assert "approval_reminder" not in kinds(demo["bob"]), "not yet within the reminder window"

    Approval.objects.filter(pk=approval.pk).update(created_at=timezone.now() - timedelta(days=3),
                                                   expires_at=timezone.now() + timedelta(minutes=30))
    tasks.recover()
    tasks.recover()
    assert kinds(demo["bob"]) == kinds(demo["frank"]) == ["approval_new", "approval_reminder"]
    reminder = Notice.objects.get(recipient=demo["bob"], kind="approval_reminder")
    assert reminder.url == f"{SITE}/approvals/{approval.pk}/"

    Approval.objects.filter(pk=approval.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    for _ in range(3):
        tasks.recover()
    task.refresh_from_db()
    assert task.state == "expired"
    assert kinds(demo["alice"]) == ["expired"]
    assert len([m for m in mailoutbox if m.to == ["alice@example.com"]]) == 1


def test_above_every_limit_the_requester_hears_it_needs_review(demo, erp, eager):
    task = submit(demo["alice"], lines=[{"description": "Laptop", "quantity": 200}])
    assert task.state == "needs_review"
    [notice] = Notice.objects.filter(recipient=demo["alice"])
    assert notice.kind == "needs_review" and notice.url == f"{SITE}/tasks/{task.pk}/"


@pytest.mark.postgres
def test_two_passes_and_two_dispatchers_racing_write_and_send_each_notice_once(demo, erp, eager, mailoutbox):
    task = submit(demo["alice"])
    # Forget what the step's hook did, so two passes find the same unnoticed event at once.
    Notice.objects.all().delete()
    Notification.objects.all().delete()
    NoticeSource.objects.all().delete()
    mailoutbox.clear()
    barrier = threading.Barrier(2)

    def run(work):
        try:
            barrier.wait()
            work()
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(lambda: notices_for_task(task.pk),)) for _ in range(2)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    assert NoticeSource.objects.count() == 1
    assert kinds(demo["bob"]) == kinds(demo["frank"]) == ["approval_new"]
    assert Notification.objects.filter(status="queued").count() == 2

    threads = [threading.Thread(target=run, args=(outbox_dispatch,)) for _ in range(2)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    assert sorted(m.to[0] for m in mailoutbox) == ["bob@example.com", "frank@example.com"]
    assert Notification.objects.filter(status="sent").count() == 2


@pytest.mark.postgres
def test_a_pass_leaves_an_event_another_pass_holds_and_the_catch_up_tells_it_once_if_that_one_rolls_back(
        demo, erp, eager):
    """Two passes on one new event (the approver's on commit, the worker's after the next step): the
    second does not wait for the first's commit. The first failing before its commit, the recovery
    pass writes the notices, once."""
    from agentstate.models import TaskEvent
    from procurement.notices.derive import _handle

    task = submit(demo["alice"])
    Notice.objects.all().delete()
    Notification.objects.all().delete()
    NoticeSource.objects.all().delete()
    event = TaskEvent.objects.get(task=task, event="request_approval")
    holding, done, failed = threading.Event(), threading.Event(), []

    def first_pass():
        def build():
            holding.set()
            done.wait(10)
            raise RuntimeError("the first pass fails before its commit")
        try:
            _handle(f"event:{event.pk}", event, build)
        except RuntimeError as error:
            failed.append(error)
        finally:
            connection.close()

    holder = threading.Thread(target=first_pass)
    holder.start()
    assert holding.wait(10)
    written = notices_for_task(task.pk)  # would wait here for the first pass's end, and write
    done.set()
    holder.join(10)
    assert written == 0 and failed and kinds(demo["bob"]) == []
    notices_catch_up()
    notices_catch_up()
    assert kinds(demo["bob"]) == kinds(demo["frank"]) == ["approval_new"]
    assert Notification.objects.filter(kind="approval_new").count() == 2


def test_alice_hears_when_someone_else_cancels_her_request_but_not_when_she_does(demo, erp, eager):
    alice = demo["alice"]
    theirs, mine = submit(alice), submit(alice, lines=[{"description": "Keyboard", "quantity": 1}])
    services.request_cancel(task_id=theirs.pk, user=demo["carol"], reason="Duplicate of last week's order")
    services.request_cancel(task_id=mine.pk, user=alice)
    [notice] = Notice.objects.filter(recipient=alice, kind="cancelled")
    assert notice.task_id == theirs.pk and "Carol Wu" in notice.text and "Duplicate of last week's order" in notice.text


def test_a_cancel_too_late_tells_alice_the_order_stands_and_sends_the_supplier_the_order(demo, erp, eager,
                                                                                        mail_folder):
    # The ERP takes the order but the answer is lost, and it cannot be looked up: in review.
    erp.fault(mode="drop", path="/purchase-orders", method="POST", times=1)
    erp.fault(mode="down", path="/purchase-orders", method="GET")
    task = submit(demo["alice"])
    approval = decide(task, demo["bob"], "approve")
    assert task.state == "needs_review"
    supplier = approval.scope["supplier"]["email"]
    assert not [m for m in folder_mails(mail_folder) if m["To"] == supplier]

    erp.clear_faults()
    services.request_cancel(task_id=task.pk, user=demo["alice"], reason="not needed after all")
    task.refresh_from_db()
    assert task.state == "externally_confirmed"
    assert kinds(demo["alice"]) == ["approved", "needs_review", "po_issued"]
    [order] = [m for m in folder_mails(mail_folder) if m["To"] == supplier]
    assert task.data["purchase_order"]["id"] in order["Subject"]


def test_a_requester_who_never_chose_a_language_gets_notices_and_mail_in_the_one_her_browser_reads(
        demo, erp, eager, mailoutbox):
    from django.test import Client

    from procurement.models import UserPreference

    alice, bob = demo["alice"], demo["bob"]
    UserPreference.objects.filter(user=alice).delete()
    browser = Client(HTTP_ACCEPT_LANGUAGE="zh-TW,zh;q=0.9,en;q=0.5")
    browser.force_login(alice)
    assert browser.get("/notices/").status_code == 200
    assert UserPreference.objects.get(user=alice).language == "zh-hant"
    task = submit(alice)
    decide(task, bob, "reject", comment="Use the laptops IT already has")
    [rejected] = [m for m in mailoutbox if m.to == ["alice@example.com"]]
    assert "駁回" in rejected.subject and "rejected" not in rejected.body
    assert "駁回" in Notice.objects.get(recipient=alice).text
    page = browser.get("/notices/").content.decode()
    assert "駁回" in page and "rejected your request" not in page


def test_an_explicit_language_is_never_replaced_by_the_browsers_and_is_looked_up_once_per_session(demo):
    from django.db import connection as db
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from procurement.models import UserPreference

    alice, erin = demo["alice"], demo["erin"]
    user_language_set(user=alice, language="en")
    browser = Client(HTTP_ACCEPT_LANGUAGE="zh-TW")
    browser.force_login(alice)
    browser.get("/notices/")
    assert UserPreference.objects.get(user=alice).language == "en"
    UserPreference.objects.filter(user=erin).delete()
    no_language_asked = Client()  # no cookie, no Accept-Language: the site's default is not a choice
    no_language_asked.force_login(erin)
    no_language_asked.get("/notices/")
    assert not UserPreference.objects.filter(user=erin).exists()
    browser.get("/notices/")
    with CaptureQueriesContext(db) as queries:
        browser.get("/notices/")
    assert not [q for q in queries.captured_queries if "userpreference" in q["sql"].lower()]


def test_writing_the_chat_in_chinese_keeps_chinese_for_someone_who_never_chose(demo):
    from procurement.chat.runtime import chat_turn
    from procurement.models import UserPreference

    alice, erin = demo["alice"], demo["erin"]
    UserPreference.objects.filter(user=alice).delete()
    chat_turn(session=Session.objects.create(owner=alice), user=alice, text="我想買兩台筆電給新同事")
    assert UserPreference.objects.get(user=alice).language == "zh-hant"
    user_language_set(user=erin, language="en")
    chat_turn(session=Session.objects.create(owner=erin), user=erin, text="我想買兩台筆電給新同事")
    assert UserPreference.objects.get(user=erin).language == "en"


def test_an_approver_who_first_signs_in_after_his_notice_was_written_reads_it_in_the_language_of_his_pages(
        demo, erp, eager, mailoutbox):
    """bob had no language yet when alice's approval opened: his mail went in the site's default
    (English). Signing in later from a zh-Hant browser, his notices page and the API show the
    same notice in Chinese; from an English browser, in English."""
    from django.test import Client

    from procurement.models import UserPreference

    bob = demo["bob"]
    UserPreference.objects.filter(user=bob).delete()
    submit(demo["alice"])
    [to_bob] = [m for m in mailoutbox if m.to == ["bob@example.com"]]
    assert to_bob.subject.startswith("Approval needed")
    notice = Notice.objects.get(recipient=bob, kind="approval_new")
    assert "Laptop" in notice.text and set(notice.texts) == {"en", "zh-hant"}

    zh = Client(HTTP_ACCEPT_LANGUAGE="zh-TW,zh;q=0.9")
    zh.force_login(bob)
    page = zh.get("/notices/").content.decode()
    assert "筆電 × 2" in page and "Laptop" not in page and "asks you to approve" not in page
    [row] = zh.get("/api/v1/notifications/").json()["results"]
    assert "筆電 × 2" in row["text"] and "Laptop" not in row["text"]

    en = Client(HTTP_ACCEPT_LANGUAGE="en")
    en.force_login(bob)
    page = en.get("/notices/").content.decode()
    assert "Laptop × 2" in page and "筆電" not in page


@pytest.mark.parametrize("language, words", [("en", "Nothing to decide any more"), ("zh-hant", "已不需簽核")])
def test_an_approval_notice_says_on_the_list_once_there_is_nothing_left_to_decide(demo, erp, eager, language, words):
    import re

    from django.test import Client

    waiting = submit(demo["alice"])
    cancelled = submit(demo["alice"], lines=[{"description": "Keyboard", "quantity": 1}])
    services.request_cancel(task_id=cancelled.pk, user=demo["alice"])
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(demo["bob"])
    items = re.findall(r"<li\b.*?</li>", client.get("/notices/").content.decode(), re.DOTALL)
    about = {task.pk: [item for item in items if any(f"/approvals/{a.pk}/" in item for a in task.approvals.all())]
             for task in (waiting, cancelled)}
    assert about[cancelled.pk] and all(words in item for item in about[cancelled.pk])
    assert about[waiting.pk] and not any(words in item for item in about[waiting.pk])


def test_the_notice_of_a_replaced_version_is_marked_and_the_new_versions_is_not(demo, erp, eager):
    import re

    from django.test import Client

    task = submit(demo["alice"])
    first = Approval.objects.get(task=task, status="pending")
    services.request_amend(task_id=task.pk, user=demo["alice"], lines=[{"description": "Laptop", "quantity": 1}])
    second = Approval.objects.get(task=task, status="pending")
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(demo["bob"])
    items = re.findall(r"<li\b.*?</li>", client.get("/notices/").content.decode(), re.DOTALL)
    [old] = [item for item in items if f"/approvals/{first.pk}/" in item]
    [new] = [item for item in items if f"/approvals/{second.pk}/" in item]
    assert "Nothing to decide any more" in old and "Nothing to decide any more" not in new

"""Accounts payable hears of its invoices (DESIGN §16): carol (accounts_payable) is told when an
invoice is posted to the ERP and when one starts waiting for its goods, in both languages, once
each however often the pass runs; the requester is not told of them."""
import pytest

from procurement.models import Notice, Notification
from procurement.notices.invoices import invoice_notices, invoice_notices_catch_up
from procurement.people.language import user_language_set
from tests.procurement.invoicing.support import invoice_body, ordered, receive as billed_for_returned
from tests.procurement.receiving.support import client_for, receipts_url

pytestmark = pytest.mark.django_db(transaction=True)


def receive(demo, task, accepted):
    answer = client_for(demo["alice"]).post(receipts_url(task), {"lines": [{"line": 0, "accepted": accepted}]},
                                            format="json")
    assert answer.status_code == 201, answer.json()


def enter(demo, task) -> dict:
    answer = client_for(demo["carol"]).post("/api/v1/invoices/", invoice_body(task), format="json")
    assert answer.status_code == 201, answer.json()
    return answer.json()


def test_ap_is_told_when_an_invoice_waits_for_its_goods_and_again_when_it_is_posted(demo, erp, eager):
    task = ordered(demo["alice"], demo["bob"])
    receive(demo, task, 2)

    assert enter(demo, task)["status"] == "waiting_receipt"

    waiting = Notice.objects.get(recipient=demo["carol"], kind="invoice_waiting")
    assert "AB12345678" in waiting.texts["zh-hant"] and "部分到貨（2/3）" in waiting.texts["zh-hant"]
    assert "到貨後會自動核對並過帳" in waiting.texts["zh-hant"]
    assert "waits, and is matched and posted on its own" in waiting.texts["en"]
    assert "/invoices/" in waiting.url
    assert not Notice.objects.filter(kind="invoice_posted").exists()

    receive(demo, task, 1)

    posted = Notice.objects.get(recipient=demo["carol"], kind="invoice_posted")
    assert "AB12345678" in posted.texts["zh-hant"] and "已過帳至 ERP" in posted.texts["zh-hant"]
    assert "was posted to the ERP" in posted.texts["en"]
    assert not Notice.objects.filter(recipient=demo["alice"], kind__startswith="invoice_").exists()
    assert invoice_notices(task.pk) == 0 and invoice_notices_catch_up() == 0
    assert Notice.objects.filter(kind__startswith="invoice_").count() == 2


@pytest.mark.parametrize("language, subject, says, never", [
    ("zh-hant", "待您簽核發票異常：", ("發票 AB12345678", "三方比對不符：發票數量 3，已驗收 2", "您決定之前不會入帳"),
     "請您核准"),
    ("en", "Invoice exception to approve:", ("invoice AB12345678", "does not match: Invoiced quantity 3, accepted 2",
                                            "Nothing is posted before you decide"), "asks you to approve")])
def test_the_approvers_mail_on_an_exception_says_it_is_an_invoice_not_a_purchase(demo, erp, eager,
                                                                                language, subject, says, never):
    """Billed 3 for 2 accepted: bob's mail names the invoice and what does not match, and says what
    approving does, in his language; it does not read like a new purchase for three monitors."""
    user_language_set(user=demo["bob"], language=language)
    task = ordered(demo["alice"], demo["bob"])
    billed_for_returned(demo, task, 2, rejected=1, reason="damaged")
    assert enter(demo, task)["status"] == "exception"
    [mail] = [m for m in Notification.objects.filter(to=demo["bob"].email) if "AB12345678" in m.subject]
    assert mail.subject.startswith(subject), mail.subject
    for words in says:
        assert words in mail.body, mail.body
    assert never not in mail.body, mail.body

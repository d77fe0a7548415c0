"""bob decides carol's invoice exception on the same approval page as any approval, the variance
in plain words in his language; accounts payable's list shows it too (DESIGN §16)."""
import re

import pytest
from django.urls import reverse

from procurement.infra.erp import ErpClient
from procurement.models.invoicing import SupplierInvoice
from tests.procurement.invoicing.support import exception, page_client  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("language, words, title", [
    ("zh-hant", "發票數量 3，已驗收 2：多 1 台，NT$6,720", "這張發票有異常，仍要核准嗎？"),
    ("en", "Invoiced quantity 3, accepted 2: 1 unit too many, NT$6,720", "Approve this invoice despite its exception?"),
])
def test_the_approver_reads_the_variance_in_his_language_and_no_return_is_offered(demo, exception, language, words,
                                                                                   title):
    body = page_client(demo["bob"], language).get(reverse("approval-page", args=[exception.pk])).content.decode()

    assert words in body and title in body
    assert 'value="return"' not in body and 'value="approve"' in body and 'value="reject"' in body


def test_approving_on_the_page_posts_the_invoice(demo, exception, erp):
    client = page_client(demo["bob"], "zh-hant")
    answer = client.post(reverse("approval-decide", args=[exception.pk]), {
        "decision": "approve", "state_version": exception.state_version, "scope_hash": exception.scope_hash})

    assert answer.status_code == 200
    assert "發票已過帳至 ERP，並記錄差異。" in answer.content.decode()
    assert SupplierInvoice.objects.get().status == "posted"
    assert len(ErpClient(erp.url, 2).list_supplier_invoices()) == 1


def test_accounts_payable_sees_the_exception_in_words(demo, exception):
    body = page_client(demo["carol"], "zh-hant").get(reverse("invoices")).content.decode()
    assert "發票數量 3，已驗收 2：多 1 台，NT$6,720" in body


@pytest.mark.parametrize("language, why, purchase_words", [
    ("zh-hant", "發票差異 NT$6,720（含稅）在", "含稅總計 NT$6,720"),
    ("en", "The invoice's variance of NT$6,720 (incl. tax) is within", "The total NT$6,720"),
])
def test_why_it_came_to_him_speaks_of_the_invoices_variance_not_of_a_purchase(demo, exception, language, why,
                                                                              purchase_words):
    body = page_client(demo["bob"], language).get(reverse("approval-page", args=[exception.pk])).content.decode()
    about = re.sub(r"<[^>]+>", "", body.split('id="about"')[1].split("</section>")[0])  # amounts are nowrap spans

    assert why in about and purchase_words not in about
    assert ("由部門主管決定這張發票是否過帳" if language == "zh-hant" else "decides whether the invoice is posted") in about


@pytest.mark.parametrize("language, changed", [("zh-hant", "與前一版本相比的變更"),
                                               ("en", "Changed since the previous version")])
def test_an_exception_is_not_compared_with_the_purchase_it_followed(demo, exception, language, changed):
    """The purchase's approval came before it on the same task; its total and cost centre are not
    'changes' of the invoice exception (NT$20,160 → NT$6,720, ENG-01 → —)."""
    body = page_client(demo["bob"], language).get(reverse("approval-page", args=[exception.pk])).content.decode()

    assert changed not in body

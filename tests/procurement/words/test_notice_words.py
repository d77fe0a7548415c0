"""Every notice kind reads in English and in zh-Hant, and the zh-Hant mail holds no English word
beside its parameters' own values (names, numbers, links): the rendering matrix of
procurement.words extended to notices (templates/notices/<kind>.txt)."""
import re
from datetime import datetime, timezone
from decimal import Decimal

import pytest

from agentstate.said import say
from procurement.notices.render import notice_render
from procurement.words import render
from procurement.words.labels import NOTICE_KIND_LABELS

ALLOWED_LATIN = {"ERP", "NT", "HTTP", "PO", "PDF"}
LINK = "https://buy.example.tw/tasks/3f2c/"
VALUES = {  # one value for each name a notice template takes, none of them English words
    "number": "REQ-2026-00012", "summary": "筆電 × 2", "total": Decimal("73290"), "subtotal": Decimal("69800"),
    "tax": Decimal("3490"), "supplier": "新竹科技供應", "po_number": "PO-000123", "requester": "吳小美",
    "department": "工程部", "cost_centre": "ENG-01", "link": LINK, "task_url": LINK, "chat_url": LINK,
    "fork_url": LINK, "expires_at": datetime(2026, 12, 3, 9, 0, tzinfo=timezone.utc), "deadline": "12 月 3 日",
    "backups": "王大明", "waited_on": "李主管", "instead_of": "李主管", "own_requester": "", "justification": "新人報到",
    "approver": "王大明", "comment": "請盡快", "who": "王大明", "by": "王大明", "reason": "不需要了",
    "fork_number": "REQ-2026-00013", "stays": "處理中", "standing": "部分到貨（2/3）", "next_step": "比價",
    "company": "示範科技股份有限公司", "company_tax_id": "24549210", "contact": "採購部 03-5712121",
    "supplier_tax_id": "24536806", "ship_to": "新竹市東區光復路二段 101 號", "payment_terms": "月結 30 天",
    "need_by": "2026-12-20", "spec": "27 吋",
    "earlier": [{"step": 1, "approver": "李主管", "comment": "可以"}],
    "lines": [{"description": "Laptop", "quantity": 2, "unit_price": Decimal("34900"), "amount": Decimal("69800")}],
}


def english_left(text: str, values: dict) -> set[str]:
    text = re.sub(r"https?://\S+", " ", text)
    for value in values.values():
        if isinstance(value, str) and value:
            text = text.replace(value, " ")
    return set(re.findall(r"[A-Za-z]+", text)) - ALLOWED_LATIN


@pytest.mark.django_db
@pytest.mark.parametrize("kind", sorted(NOTICE_KIND_LABELS))
@pytest.mark.parametrize("why", ["", "coded"])
def test_every_notice_kind_reads_in_both_languages_with_no_english_word_in_zh_hant(kind, why, make_user):
    make_user("carol", first_name="Carol", last_name="Wu")
    values = dict(VALUES)
    if why:  # the reason a notice gives is a code, rendered in the notice's language
        values["why"] = render(say("only_the_requester_could_decide", requester="carol", step=3), "zh-hant")
    english, chinese = notice_render(kind, "en", values), notice_render(kind, "zh-hant", values)
    assert english.subject and chinese.subject and english.body != chinese.body
    assert "{{" not in chinese.body and "%(" not in chinese.body
    assert english_left(f"{chinese.subject}\n{chinese.body}", values) == set(), chinese.body

"""The agent's questions, notes and refusals are codes read in the reader's language; people's own
words stay theirs; the worker's host and pid read as "the agent" (procurement.words, procurement.words.labels)."""
from decimal import Decimal
from types import SimpleNamespace

import pytest
from django.utils import translation

from agentstate.errors import Conflict, DomainError, IllegalTransition, NotPermitted, StaleVersion
from agentstate.said import say
from procurement import words
from procurement.words import labels
from procurement.purchase.budget import BudgetExhausted
from procurement.purchase.pricing import _ask_split, _ask_unknown, _Offer


def event(reason, actor="web-1:4242", name="note", said=None):
    return SimpleNamespace(reason=reason, actor=actor, event=name, data={"said": said.as_json()} if said else {})


@pytest.fixture
def zh():
    with translation.override("zh-hant"):
        yield


@pytest.mark.parametrize("asked, read", [
    (BudgetExhausted(Decimal("1000"), Decimal("73290")).said,
     "部門預算剩 NT$1,000，這筆請購需要 NT$73,290。要減少請購內容，還是稍後再申請？"),
    (_ask_unknown(["monitor arm"], ["Laptop", "Monitor"]),
     "我們沒有「monitor arm」的報價。可以採購的品項有：筆電、螢幕。能否改寫成其中一項，或從請購中移除？"),
])
def test_the_agents_questions_read_in_zh_hant(zh, db, asked, read):
    assert words.render(asked) == read


def test_a_question_keeps_its_english_for_the_log_and_the_model(db):
    asked = _ask_unknown(["monitor arm", "flux capacitor"], ["Laptop"])
    assert str(asked) == ("We have no quote for 'monitor arm', 'flux capacitor'. We can buy: Laptop. Could you "
                          "describe it as one of those, or remove it from the request?")


def test_a_split_question_names_who_quotes_what(zh, db):
    offers = [_Offer("新竹科技供應", quotes={"Laptop": 1}), _Offer("高雄辦公家具", quotes={"Office chair": 1})]
    read = words.render(_ask_split(["Laptop", "Office chair"], offers))
    assert read.startswith("沒有一家供應商同時報價筆電、辦公椅（新竹科技供應報價筆電；高雄辦公家具報價辦公椅）")


def test_a_persons_comment_is_shown_as_written(zh):
    assert words.event_reason(event("please use the 14-inch model", actor="bob")) == "please use the 14-inch model"


def test_an_agent_sentence_nobody_listed_is_not_shown_in_zh_hant_but_is_in_english(zh):
    assert words.event_reason(event("socket timeout talking to 10.0.0.7")) == ""
    with translation.override("en"):
        assert words.event_reason(event("socket timeout talking to 10.0.0.7")) == "socket timeout talking to 10.0.0.7"


def test_the_worker_reads_as_the_agent_and_a_person_by_name(zh, db, make_user):
    make_user("alice", first_name="Alice", last_name="Lin")
    make_user("frank")
    assert labels.actor_label("web-1:4242") == "採購助理"
    assert labels.actor_label("recovery") == "採購助理"
    assert labels.actor_label("alice") == "Alice Lin"  # her full name, as notices name her
    assert labels.actor_label("frank") == "frank"  # no full name: the username
    with translation.override("en"):
        assert labels.actor_label("web-1:4242") == "the agent"


def test_every_event_of_the_transition_table_has_words():
    from procurement.workflow import TRANSITIONS

    assert {t.event for t in TRANSITIONS} - set(labels.EVENT_LABELS) == set()


@pytest.mark.parametrize("exc, read", [
    (DomainError(said=say("comment_required", decision="return")), "退回時必須填寫意見。"),
    (StaleVersion("Expected version 3, found 4 (state 'processing')."), "您開啟後，這筆請購已有變動；請重新整理查看變更。"),
    (IllegalTransition("Event 'cancel' is not allowed in state 'externally_confirmed'; allowed here: none.",
                       state="externally_confirmed", event="cancel"), "請購目前為「已下單」，無法這樣做。"),
    (NotPermitted("bob may not fire 'cancel' on this task; allowed: initiator, agentstate.change_task."),
     "您不能對這筆請購這樣做。"),
    (Conflict(said=say("approval_decided", status="approved")), "這筆核准的狀態已是「已核准」；此次未做任何決定。"),
])
def test_refusals_read_in_zh_hant_without_codes(zh, exc, read):
    assert words.refusal(exc) == read


def test_a_refusal_is_worded_by_its_code_not_by_its_english():
    """An English message that happens to read like a coded refusal is no code: only the raise names one."""
    with translation.override("zh-hant"):
        assert words.refusal(DomainError("Nobody decides their own request.")).startswith("無法完成")
        assert words.refusal(NotPermitted(said=say("own_request"))) == "任何人都不能核准自己的請購。"
    with translation.override("en"):
        assert words.refusal(NotPermitted(said=say("own_request"))) == "Nobody decides their own request."
    assert str(NotPermitted(said=say("own_request"))) == "Nobody decides their own request."


def test_chat_refusals_name_fields_and_states_in_words(zh):
    assert words.refusal(DomainError(said=say("draft_incomplete", fields=["item", "quantity", "department"]))) == \
        "草稿還不完整（缺少：要買什麼、數量、部門）"
    assert words.refusal(Conflict(said=say("request_closed", state="externally_confirmed"))) == \
        "那筆請購已是「已下單」，無法繼續"


def test_a_refused_checkpoint_reads_in_chinese_by_its_code(zh):
    from agentstate.errors import CheckpointForeignTenant, CheckpointTampered, SchemaTooNew

    tampered = CheckpointTampered("Checkpoint v5 does not match its checksum.",
                                  said=say("checkpoint_version_tampered", version=5))
    assert words.refusal(tampered) == "第 5 版儲存的狀態在寫入後遭到更改，未被採用。"
    assert words.refusal(CheckpointForeignTenant("worded elsewhere")) == "那份儲存的狀態屬於其他部門，未被採用。"
    too_new = SchemaTooNew("This purchase data was written by schema version 3.",
                           said=say("schema_version_too_new", found=3, known=2))
    assert "資料格式 3" in words.refusal(too_new) and "Nothing" not in words.refusal(too_new)
    why = event("not resumed: Checkpoint v5 does not match its checksum", actor="recovery",
                said=say("not_resumed_checkpoint", version=5))
    assert words.event_reason(why) == "未接續處理：第 5 版儲存的狀態未通過驗證，未被採用"
    assert labels.event_label("checkpoint_refused") == "已暫停：儲存的狀態未通過驗證"


@pytest.mark.django_db
def test_a_role_the_agent_names_by_its_department_code_reads_by_its_name(demo, zh):
    assert words.refusal(DomainError(said=say("role_lost", role="manager", department="OPS"))) == \
        "您已不再擔任營運部的部門主管。"


def test_the_chat_names_a_supplier_and_the_items_right_after_the_chinese_words():
    from procurement.words.phrases import say

    assert say("po_issued", "zh", number="REQ-2026-00001", po="PO-000123", what="筆電 × 2",
               supplier="新竹科技供應股份有限公司", total="NT$73,290") == \
        "REQ-2026-00001 的採購單號是 PO-000123：向新竹科技供應股份有限公司採購筆電 × 2，含稅 NT$73,290。"
    assert say("amended", "zh", what="筆電 × 1", revision=2).startswith("已修改為筆電 × 1，目前是第 2 版")

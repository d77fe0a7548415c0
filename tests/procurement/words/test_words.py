"""What is said is stored as a code and read in the reader's language (procurement.words): each
code renders in English and zh-Hant, and the zh-Hant words hold no English word."""
import re
import uuid
from types import SimpleNamespace

import pytest
from django.utils import translation

from agentstate.said import Said, quote, say
from procurement import words
from procurement.words import params
from procurement.words.agent import AGENT
from procurement.words.refusals import REFUSALS

SAMPLES = {  # one value for each parameter a code may take
    "supplier": "新竹科技供應", "total": "73290", "released": "73290.50", "department": "ENG", "rule": "director",
    "people": ["bob", "frank"], "id": "PO-000123", "error": "ERP POST /orders: HTTP 503 down", "revision": 2,
    "person": "carol", "who": "carol", "by": "carol", "version": 9, "request": str(uuid.uuid4()),
    "why": "換一家供應商", "steps": 3, "differences": 1, "step": "create_requisition", "n": 4, "note": "查到了",
    "verified": True, "errors": ["ERP GET /requisitions: HTTP 503 down"], "effects": "erp.requisition.cancel",
    "of": 2, "for": "frank", "operation": "erp.purchase_order.issue", "before": "unknown", "after": "confirmed",
    "old": 1, "new": 2, "number": "REQ-2026-00012",
    # refusals, questions and notes (procurement.words.refusals, procurement.words.agent)
    "decision": "return", "role": "manager", "status": "approved", "fields": ["item", "quantity"],
    "state": "externally_confirmed", "name": "carol", "requester": "carol", "hours": "48", "filename": "報價單.xlsx",
    "rows": 3, "questions": 1, "row": 2, "price": "1200", "tax_id": "12345675", "item": "Laptop",
    "quoted": ["螢幕架"], "items": ["Laptop", "Monitor"], "available": "1000", "needed": "73290", "held": "50000",
    "cap": "60000", "found": 3, "known": 2,
    # going back in time, invoices and people (procurement.words.refusals)
    "v": 9, "what": "採購單 PO-000123 已在供應商手上，這裡無法撤回。", "policy": "reassign", "choices": ["cancel"],
    "variance": "1050", "lines": [["Monitor", 2, 1, "damaged"], ["Laptop", -1, 0, "wrong_item"]],
    # looking up, receiving and quote sheets (procurement.words.refusals)
    "thing": "approval", "action": "retry-now", "actions": ["retry", "cancel"], "line": 2, "open": 3, "ordered": 5,
    "received": 2, "size": "12.5", "limit": 10, "mb": 100, "max": 500, "required": ["item", "supplier", "tax_id"],
    "optional": ["lead_time_days"], "headers": ["品名", "Vendor"], "missing": ["tax_id", "unit_price"],
    "text": "約三週", "asked": "tax_id",
}
# Allowed in zh-Hant beside the parameters' own values (names, ids, numbers): the ERP, the currency
# and HTTP, a purchase order's PO- in an example, an API token, and the names of files and their sizes (Excel, XLSX,
# CSV, MB, a workbook's XML and its DOCTYPE), as the zh-Hant pages write them.
ALLOWED_LATIN = {"ERP", "NT", "HTTP", "PO", "API", "Excel", "XLS", "XLSX", "CSV", "MB", "XML", "DOCTYPE"}


PER_CODE = {"ask_split": {"who": [["新竹科技供應", ["Laptop"]], ["高雄辦公家具", ["Monitor"]]]}}


def sample(code: str) -> Said:
    template = str(words.CODES[code].template)
    values = {**SAMPLES, **PER_CODE.get(code, {})}
    return say(code, **{name: value for name, value in values.items() if f"%({name})" in template})


def english_left(text: str, said: Said) -> set[str]:
    """The Latin words in zh-Hant `text` once the values of the Said's parameters are taken out."""
    with translation.override("zh-hant"):
        shown = params.shown(words.CODES[said.code].kinds, said.params).values()
    for value in shown:
        text = text.replace(str(value), " ")
    return set(re.findall(r"[A-Za-z]+", text)) - ALLOWED_LATIN


@pytest.fixture
def zh():
    with translation.override("zh-hant"):
        yield


@pytest.mark.django_db
@pytest.mark.parametrize("code", sorted(words.CODES))
def test_every_code_renders_in_english_and_in_zh_hant_without_an_english_word(code, make_user):
    make_user("carol", first_name="Carol", last_name="Wu")
    said = sample(code)
    english, chinese = words.render(said, "en"), words.render(said, "zh-hant")
    assert english and "%(" not in english and "%(" not in chinese
    assert english != chinese
    assert english_left(chinese, said) == set(), chinese


def test_every_refusal_question_and_note_is_in_the_matrix():
    """The rendering matrix above takes every code: the event reasons, the refusals, the agent's
    questions and notes; a code added to one of them is rendered there in both languages."""
    assert set(REFUSALS) | set(AGENT) <= set(words.CODES)
    assert not set(REFUSALS) & set(AGENT) and len(words.CODES) == len(set(words.CODES))


@pytest.mark.django_db
def test_a_split_question_names_each_supplier_and_what_it_quotes(zh):
    said = say("ask_split", items=["Laptop", "Office chair"], who=[["新竹科技供應", ["Laptop"]], ["高雄辦公家具", ["Office chair"]]])
    assert words.render(said).startswith("沒有一家供應商同時報價筆電、辦公椅（新竹科技供應報價筆電；高雄辦公家具報價辦公椅）")


def event(said: Said | None, reason="", actor="web-1:4242", name="note"):
    return SimpleNamespace(reason=reason, actor=actor, event=name, data={"said": said.as_json()} if said else {})


@pytest.mark.django_db
@pytest.mark.parametrize("said, read", [
    (say("awarded", supplier="新竹科技供應股份有限公司", total="73290"), "決標給新竹科技供應股份有限公司：含稅 NT$73,290"),
    (say("routed", rule="director", people=["frank"]), "送交處長核准：frank"),
    (say("budget_reserved", total="1050000"), "已保留預算 NT$1,050,000\u2060（105\u00a0萬）"),
    (say("order_issued", id="PO-000123"), "已在 ERP 開立採購單 PO-000123"),
    (say("order_refused", error="supplier blocked"), "ERP 拒絕了採購單"),
    (say("pending_verification", operation="erp.purchase_order.issue", error="timed out"), "採購單：結果待確認"),
    (say("receipt_settled", operation="erp.requisition.create", before="unknown", after="confirmed"),
     "ERP 請購單：結果待確認 → 已確認"),
    (say("step_failed", step="create_requisition", n=5, error="ERP unavailable"), "步驟「建立 ERP 請購單」連續失敗 5 次"),
    (say("retried", step="create_requisition", note="ERP 已恢復"), "重試步驟「建立 ERP 請購單」。ERP 已恢復"),
    (say("checked_order", person="carol", id="PO-000007", note="查到了"), "carol 重新查詢 ERP：ERP 已有採購單 PO-000007。查到了"),
    (say("cancel_too_late", id="PO-000007", note=""), "取消太晚了：ERP 已有採購單 PO-000007；沒有取消任何東西，預算維持已支用。"),
    (say("still_in_doubt", errors=["ERP GET /requisitions: HTTP 503 ERP unavailable (fault: down)"], note="稍後再試"),
     "重新查詢 ERP：仍無法確定（ERP 本身發生錯誤（HTTP 503））。稍後再試"),
])
def test_the_agents_coded_reasons_read_in_zh_hant(zh, said, read):
    assert words.event_reason(event(said)) == read


def test_the_person_in_a_reason_is_named_as_everywhere_else_and_logs_keep_the_username(zh, demo):
    said = say("checked", person="carol", note="查到了")
    assert words.render(said) == "Carol Wu 重新查詢 ERP。查到了"
    assert str(said) == "carol checked the ERP again. 查到了"


def test_the_log_line_keeps_what_the_words_leave_out(db):
    assert str(say("step_failed", step="award", n=4, error="quote service exploded")) == \
        "the step “Comparing quotes” failed 4 times in a row; error: quote service exploded"


def test_the_people_a_step_went_to_are_listed_the_way_the_reader_lists(zh, db):
    said = say("routed", rule="manager", people=["bob", "frank"])
    assert words.render(said) == "送交主管核准：bob、frank"
    assert words.render(said, "en") == "routed to the manager: bob, frank"


@pytest.mark.django_db
def test_a_department_named_by_code_reads_by_its_name(demo, zh):
    assert words.render(say("above_every_limit", total="6000000", department="ENG")) == \
        "NT$6,000,000\u2060（600\u00a0萬） 超過工程部所有核准上限"
    assert words.render(say("above_every_limit", total="6000000", department="XYZ")).endswith("超過XYZ所有核准上限")


def test_the_first_event_says_created_once_by_its_label(zh):
    assert words.event_reason(event(say("created"), actor="alice", name="create")) == ""
    assert words.event_reason(event(say("created"), actor="alice", name="note")) == "已建立"


def test_text_nobody_coded_is_shown_whole_as_a_quotation_never_dropped(zh):
    assert words.event_reason(event(quote("socket timeout talking to 10.0.0.7"))) == "「socket timeout talking to 10.0.0.7」"
    with translation.override("en"):
        assert words.event_reason(event(quote("socket timeout"))) == "“socket timeout”"


@pytest.mark.django_db
def test_a_request_is_named_by_its_number_and_one_without_a_number_as_a_draft(zh, demo):
    from procurement.purchase import services

    task = services.request_submit(requester=demo["alice"], department="ENG", justification="new hires",
                                   lines=[{"description": "Laptop", "quantity": 1}])
    said = say("forked_into", person="carol", version=9, request=str(task.pk))
    assert words.render(said) == f"Carol Wu 從第 9 版儲存的狀態分出新請購 {task.purchase_request.number}"
    assert words.render(say("forked_into", person="carol", version=9, request=str(uuid.uuid4()))).endswith("草稿")


def test_a_said_is_immutable_and_round_trips_through_json():
    said = say("routed", rule="manager", people=["bob"])
    assert Said.of(said.as_json()) == said and said.as_json() == {"code": "routed",
                                                                   "params": {"rule": "manager", "people": ["bob"]}}
    with pytest.raises(AttributeError):
        said.code = "other"
    with pytest.raises(TypeError):
        say("x", when=object())


@pytest.mark.parametrize("reason, data, said", [
    ("awarded to Acme: NT$36,750 incl. tax", {}, {"code": "awarded", "params": {"supplier": "Acme", "total": "36750"}}),
    ("routed to manager: bob, frank", {}, {"code": "routed", "params": {"rule": "manager", "people": ["bob", "frank"]}}),
    ("forked by carol at checkpoint v9 into 3f2c; why: 換一家", {"why": "換一家"},
     {"code": "forked_into_why", "params": {"person": "carol", "version": "9", "request": "3f2c", "why": "換一家"}}),
    ("carol recorded the outcome (verified by key in the ERP). ok", {},
     {"code": "recorded", "params": {"person": "carol", "verified": True, "note": "ok"}}),
    ("please use the 14-inch model", {}, {"code": "quoted", "params": {"text": "please use the 14-inch model"}}),
])
def test_the_migration_turns_english_reasons_into_codes_and_keeps_the_rest_quoted(reason, data, said):
    import importlib

    migration = importlib.import_module("procurement.migrations.0013_event_reasons_as_codes")
    assert migration.said_of(reason, data) == said
    assert words.CODES.get(said["code"]) is not None or said["code"] == "quoted"


def test_a_refusal_no_page_answered_is_a_4xx_with_its_words_in_the_readers_language(rf):
    from agentstate.errors import CheckpointNotFound, Conflict
    from procurement.pages.errors import DomainErrorMiddleware

    middleware = DomainErrorMiddleware(lambda request: None)
    with translation.override("zh-hant"):
        answer = middleware.process_exception(rf.get("/tasks/x/"), CheckpointNotFound("No checkpoint 7 of task x."))
        fragment = middleware.process_exception(rf.get("/tasks/x/", HTTP_HX_REQUEST="true"),
                                                Conflict(said=say("no_scope_matches")))
    assert answer.status_code == 404 and "這張請購單沒有這份儲存的狀態" in answer.content.decode()
    assert fragment.status_code == 409 and fragment.content.decode().startswith('<p class="notice error"')
    assert "沒有與此版本相符的核准" in fragment.content.decode()
    assert middleware.process_exception(rf.get("/"), ValueError("not ours")) is None


def test_a_coded_refusal_reads_in_the_api_callers_language_in_the_same_shape(db):
    from agentstate.errors import Conflict
    from procurement.api.errors import exception_handler

    refused = Conflict(said=say("no_scope_matches"), current_version=4)
    assert str(refused) == "no approval matches this version; nothing was sent"
    with translation.override("zh-hant"):
        answer = exception_handler(refused, {})
    assert answer.status_code == 409
    assert answer.data == {"detail": "沒有與此版本相符的核准，未送出任何東西", "current_version": 4}


@pytest.mark.parametrize("text, said", [
    ("step 2 waited more than 48 hours; offered to dave, erin", {"code": "escalated", "params": {
        "n": "2", "hours": "48", "people": ["dave", "erin"]}}),
    ("on behalf of bob. 好", {"code": "decided_for", "params": {"for": "bob", "note": "好"}}),
    ("only alice, the requester, could decide step 1 of the approval chain; nobody decides their own request",
     {"code": "only_the_requester_could_decide", "params": {"requester": "alice", "step": "1"}}),
    ("not resumed: Checkpoint v5 does not match its checksum: changed", {"code": "not_resumed_checkpoint",
                                                                         "params": {"version": "5"}}),
    ("quote sheet question 2 (row 7): price 1,200", {"code": "quote_sheet_price", "params": {
        "n": "2", "row": "7", "price": "1200"}}),
    ("We have no quote for 'monitor arm' or 'dock'. We can buy: Laptop, Monitor. Could you describe it as one of "
     "those, or remove it from the request?", {"code": "ask_unknown_item", "params": {
         "quoted": ["monitor arm", "dock"], "items": ["Laptop", "Monitor"]}}),
    ("No single supplier quotes all of Laptop, Office chair (IT Shop quotes Laptop; Furniture Co quotes Office "
     "chair). A request goes whole to one supplier: could you split it into separate requests?",
     {"code": "ask_split", "params": {"items": ["Laptop", "Office chair"],
                                      "who": [["IT Shop", ["Laptop"]], ["Furniture Co", ["Office chair"]]]}}),
    ("The department has NT$1,000 of budget left; this request needs NT$73,290.",
     {"code": "ask_budget_short", "params": {"available": "1000", "needed": "73290"}}),
])
def test_the_second_migration_turns_the_agents_stored_sentences_into_codes(text, said):
    import importlib

    migration = importlib.import_module("procurement.migrations.0016_words_agent_sentences_as_codes")
    assert migration.said_of(text) == said
    assert words.CODES.get(said["code"]) is not None


def test_a_sentence_the_second_migration_does_not_know_stays_as_it_was():
    import importlib

    migration = importlib.import_module("procurement.migrations.0016_words_agent_sentences_as_codes")
    assert migration.said_of("please use the 14-inch model") is None
    assert migration.said_of("The department has NT$1,000 of budget left.", migration.QUESTIONS) is None


@pytest.mark.parametrize("note", ["WITHDRAWN_ON_CANCEL", "WITHDRAWN_BY_REWIND"])
def test_what_the_app_notes_on_a_receipt_it_withdrew_reads_in_words(zh, note):
    from procurement.words import erp

    shown = words.erp_error(getattr(erp, note))
    assert shown and "ERP" in shown and not set(re.findall(r"[A-Za-z]+", shown)) - ALLOWED_LATIN, shown
    assert words.erp_error("socket closed") == "「socket closed」", "an error of no known shape is quoted"

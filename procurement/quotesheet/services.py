"""Attaching a quote sheet to a request and answering its questions.

`quote_sheet_attach` reads the file first (a bad file is refused with nothing stored), then in
one transaction stores it as the task's artifact "quote sheet" (once by its SHA-256; a changed
file is a new version) and records in State which version was read, its rows and the open
questions. `quote_question_answer` resolves one question. While the request is a draft both
are `update_draft` events, so the transition table and the change guard see them. The rows not
left out are extra quotes for this request only (`sheet_quotes`, read by the award step)."""
from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from agentstate.artifacts.services import artifact_put
from agentstate.errors import Conflict, DomainError
from agentstate.machine import fire
from agentstate.said import Said, say

from procurement import workflow
from procurement.infra.limits import MAX_FILE_NAME_CHARS
from procurement.models import Quote, Supplier
from procurement.purchase import catalogue as words_table
from procurement.purchase import pricing
from procurement.purchase.services import request_draft_save
from procurement.quotesheet import checks
from procurement.quotesheet.reader import SheetRefused, read_sheet
from procurement.purchase.sheets import next_question, open_questions, sheet_quotes, sheet_summary  # noqa: F401

ARTIFACT_NAME = "quote sheet"


class SheetAnswerRefused(DomainError):
    """An answer that cannot resolve the question (an invalid tax ID, a price of zero)."""


@dataclass
class Attached:
    task: object
    sheet: dict
    same_file: bool


def catalogue_medians() -> dict[str, Decimal]:
    today = timezone.localdate()
    return pricing.medians(Quote.objects.filter(valid_until__gte=today, currency="TWD").values("item", "unit_price"))


def supplier_list(vocabulary: pricing.Vocabulary | None = None) -> checks.Suppliers:
    """The listed suppliers, also by the other names the catalogue's words give them."""
    vocabulary = vocabulary or words_table.vocabulary()
    return checks.Suppliers(Supplier.objects.values_list("name", "tax_id"), vocabulary.suppliers)


def quote_sheet_attach(*, user, content: bytes, filename: str, content_type: str = "", task=None,
                       session=None, fields: dict | None = None) -> Attached:
    """See the module docstring. `task` is the draft to attach to; without one a draft is started
    (in `session`, if given) with the draft `fields` given. Only a draft takes a sheet: Conflict otherwise."""
    if len(filename) > MAX_FILE_NAME_CHARS:
        raise SheetRefused(said=say("sheet_file_name_too_long", limit=MAX_FILE_NAME_CHARS))
    rows = read_sheet(content)
    if task is not None and task.state != workflow.DRAFT:
        raise Conflict(said=say("sheet_not_draft", state=task.state), state=task.state)
    vocabulary = words_table.vocabulary()
    catalogue, suppliers = catalogue_medians(), supplier_list(vocabulary)
    states, questions = checks.sheet_check(rows, catalogue=catalogue, suppliers=suppliers, vocabulary=vocabulary,
                                           tolerance_percent=settings.QUOTE_SHEET_PRICE_TOLERANCE_PERCENT)
    with transaction.atomic():
        if task is None:
            task = request_draft_save(requester=user, fields=dict(fields or {}), session=session)
            fields = None
        version = artifact_put(task=task, name=ARTIFACT_NAME, content=content, filename=filename,
                               content_type=content_type, created_by=user)
        current = task.data.get("quote_sheet") or {}
        if (current.get("file") or {}).get("version_id") == str(version.pk):
            return Attached(task, current, same_file=True)
        sheet = {"file": version.ref(), "rows": states, "questions": questions,
                 "tolerance_percent": settings.QUOTE_SHEET_PRICE_TOLERANCE_PERCENT}
        data = {"quote_sheet": sheet}
        if fields:
            data["draft"] = {**(task.data.get("draft") or {}), **fields}
        task = fire(task.pk, "update_draft", actor=user, expected_version=task.version, data=data,
                    reason=say("quote_sheet_read", filename=version.filename, version=version.number,
                               rows=len(states), questions=len(questions)))
    return Attached(task, sheet, same_file=False)


def quote_question_answer(*, task, user, n: int, action: str, value: str = "", expected_version: int) -> dict:
    """Resolve question `n` of the task's sheet: `drop` the row, `confirm` it, or set its `price`,
    `tax_id` or `item`. Returns the sheet as recorded."""
    sheet = task.data.get("quote_sheet") or {}
    question = next((q for q in open_questions(sheet) if q["n"] == n), None)
    if question is None:
        raise Conflict(said=say("sheet_question_answered"))
    sheet = _resolved(sheet, question, action, value)
    with transaction.atomic():
        fire(task.pk, "update_draft", actor=user, expected_version=expected_version, data={"quote_sheet": sheet},
             reason=_answered(n, question["row"], action, value))
    return sheet


def _answered(n: int, row: int, action: str, value: str) -> Said:
    """The event's note of an answered question: the row left out, its price confirmed or set, its tax ID or item."""
    said = {"drop": {}, "confirm": {}, "price": {"price": value}, "tax_id": {"tax_id": value}, "item": {"item": value}}
    return say(f"quote_sheet_{action}", n=n, row=row, **said[action])


def _resolved(sheet: dict, question: dict, action: str, value: str) -> dict:
    rows = [dict(r) for r in sheet["rows"]]
    row = next(r for r in rows if r["row"] == question["row"])
    questions = [dict(q) for q in sheet["questions"]]
    this = next(q for q in questions if q["n"] == question["n"])
    if action == "drop":
        row["status"] = "dropped"
        for other in questions:  # the row's other questions go with it
            if other["row"] == row["row"] and other["status"] == "open":
                other |= {"status": "resolved", "answer": {"action": "drop"}}
    elif action == "confirm" and question["kind"] == checks.PRICE:
        row["status"] = "confirmed"
    elif action == "price" and question["kind"] == checks.PRICE:
        price = Decimal(value)
        if price <= 0:
            raise SheetAnswerRefused(said=say("sheet_price_not_above_zero"))
        row.setdefault("sheet_unit_price", row["unit_price"])  # what the sheet said, before her correction
        row["unit_price"], row["status"] = str(price.quantize(Decimal("0.01"))), "corrected"
    elif action == "tax_id" and question["kind"] == checks.TAX_ID:
        listed = supplier_list().by_tax.get(value) if checks.tax_id_valid(value) else None
        if listed is None:
            raise SheetAnswerRefused(said=say("sheet_tax_id_not_listed", tax_id=value), tax_id=value)
        row["tax_id"], row["listed_supplier"], row["status"] = value, listed, "corrected"
    elif action == "item" and question["kind"] == checks.UNKNOWN_ITEM:
        row["catalogue_item"], row["status"] = value, "corrected"
        # Now that the item is known, its price is checked like any other row's.
        far = checks.price_exception(row, catalogue=_medians_for(value),
                                     tolerance_percent=sheet.get("tolerance_percent", 30))
        if far:
            questions.append({"n": max(q["n"] for q in questions) + 1, "status": "open", **far})
    else:
        raise SheetAnswerRefused(said=say("sheet_answer_does_not_fit", asked=question["kind"]), action=action)
    this |= {"status": "resolved", "answer": {"action": action, "value": value}}
    return {**sheet, "rows": rows, "questions": questions}


def _medians_for(item: str) -> dict[str, Decimal]:
    found = catalogue_medians().get(item)
    return {item: found} if found else {}



"""Receiving's writes (DESIGN §16): record a goods receipt (or a return), post it to the ERP once,
close the rest of an order short. Each write locks the task, checks what is still open, asks the
engine to record the move, and plans its ERP call in the same transaction; the call itself goes
out once that has committed, through the receipts protocol (key stored first, exactly once)."""
from decimal import Decimal

from django.db import transaction

from agentstate.actors import Actor
from agentstate.errors import Conflict, DomainError, StaleVersion
from agentstate.machine import fire
from agentstate.models import Receipt, Task
from agentstate.receipts import receipt_perform, receipt_plan
from agentstate.said import say

from procurement.infra import erp, queueing
from procurement import workflow
from procurement.purchase.budget import budget_release_part
from procurement.purchase.completion import task_complete_if_done
from procurement.purchase.pricing import totals
from procurement.models.receiving import GoodsReceipt, GoodsReceiptLine
from procurement.purchase.progress import Progress, ordered_lines, progress_of


class InvalidReceipt(DomainError):
    """A receipt line past what is open, or without the reason it needs; nothing was written."""


def _invalid(errors: dict) -> InvalidReceipt:
    """The refusal, with what each field says as a code (procurement.words.refusal_errors words it)."""
    return InvalidReceipt(said=say("receipt_invalid"), errors=errors)


def _locked(task_id) -> Task:
    task = Task.objects.select_for_update(no_key=True).get(pk=task_id)
    if task.state != workflow.CONFIRMED:
        raise Conflict(said=say("receipt_not_open"), current_version=task.version)
    return task


def _line_errors(index: int, line: dict, progress: Progress) -> dict:
    where = f"lines.{index}."
    if line["line"] >= len(progress.lines):
        return {where + "line": [say("receipt_no_such_line", line=line["line"])]}
    done, accepted, rejected = progress.lines[line["line"]], line["accepted"], line.get("rejected") or 0
    if accepted == 0 and rejected == 0:
        return {where + "accepted": [say("receipt_line_empty")]}
    if accepted > done.open:
        return {where + "accepted": [say("receipt_over_open", open=done.open, ordered=done.ordered,
                                         received=done.received)]}
    if -accepted > done.received:
        return {where + "accepted": [say("receipt_return_over", received=done.received)]}
    if (rejected or accepted < 0) and not line.get("reason"):
        return {where + "reason": [say("receipt_reason_needed")]}
    return {}


def _check(lines: list[dict], progress: Progress) -> None:
    errors: dict = {}
    if not lines:
        errors["lines"] = [say("receipt_no_lines")]
    seen = set()
    for index, line in enumerate(lines):
        if line["line"] in seen:
            errors[f"lines.{index}.line"] = [say("receipt_line_twice")]
        seen.add(line["line"])
        errors |= _line_errors(index, line, progress)
    if errors:
        raise _invalid(errors)


def _actor(user, task) -> Actor:
    return Actor(user=user, roles=frozenset() if task.initiator_id == user.pk else frozenset({workflow.RECEIVER}))


def goods_receipt_record(*, task_id, user, lines: list[dict], note: str = "") -> GoodsReceipt:
    """Record what arrived per PO line (accepted, rejected and why; a negative accepted quantity is
    a return), as one receipt; its ERP posting goes out once this commits."""
    with transaction.atomic():
        task = _locked(task_id)
        _check(lines, progress_of(task))
        receipt = GoodsReceipt.objects.create(task=task, created_by=user, note=note.strip())
        GoodsReceiptLine.objects.bulk_create([
            GoodsReceiptLine(receipt=receipt, line=line["line"], accepted=line["accepted"],
                             rejected=line.get("rejected") or 0, reason=line.get("reason") or "")
            for line in lines])
        fire(task.pk, "receive_goods", actor=_actor(user, task), expected_version=task.version,
             reason=_said(task, lines, receipt.note), event_data={"goods_receipt": str(receipt.pk)})
        posting = receipt_plan(task=task, operation=erp.POST_GOODS_RECEIPT, scope=f"gr:{receipt.pk}",
                               request=_erp_body(task, receipt))
        queueing.enqueue_erp_send(posting.pk)
        queueing.enqueue_invoices_match(task.pk)  # invoices waiting for these goods are matched again
        queueing.notify_on_commit(task.pk)
    return receipt


def _said(task: Task, lines: list[dict], note: str):
    """The timeline's words for the receipt: per item how many accepted, rejected and why, or returned."""
    descriptions = [line["description"] for line in ordered_lines(task)]
    shown = [[descriptions[line["line"]], line["accepted"], line.get("rejected") or 0, line.get("reason") or ""]
             for line in sorted(lines, key=lambda line: line["line"])]
    return say("goods_received_noted", lines=shown, note=note) if note else say("goods_received", lines=shown)


def _erp_body(task: Task, receipt: GoodsReceipt) -> dict:
    descriptions = [line["description"] for line in ordered_lines(task)]
    return {"purchase_order_id": task.data["purchase_order"]["id"], "external_ref": str(receipt.pk),
            "lines": [{"description": descriptions[row.line], "accepted": row.accepted, "rejected": row.rejected}
                      for row in receipt.lines.all()]}


def erp_receipt_send(*, receipt_id, client=None) -> Receipt:
    """Send a planned receiving call (a goods receipt, a close) under the receipts protocol: once,
    looked up by key when the answer is lost, `unknown` when nobody can tell."""
    receipt = Receipt.objects.get(pk=receipt_id)
    receipt = receipt_perform(receipt=receipt, client=client or erp.ErpClient())
    if receipt.operation == erp.POST_GOODS_RECEIPT and receipt.status == Receipt.Status.CONFIRMED:
        task_complete_if_done(receipt.task_id)  # the last posting the request waited for
    return receipt


def erp_status(goods_receipt: GoodsReceipt) -> str:
    """The ERP posting's receipt status (planned, sent, confirmed, failed, unknown)."""
    found = [r for r in goods_receipt.task.receipts.all() if r.scope == f"gr:{goods_receipt.pk}"]
    return found[0].status if found else Receipt.Status.PLANNED


def close_short_outlook(task: Task) -> tuple[list, Decimal]:
    """What closing short would close: (the open lines, each with its description and how many will
    not come), and the budget released (NT$, tax included)."""
    progress = progress_of(task)
    prices = [Decimal(str(line["unit_price"])) for line in ordered_lines(task)]
    open_ = [line for line in progress.lines if line.open]
    return open_, totals(sum(line.open * prices[line.line] for line in open_))[2]


def purchase_order_close_short(*, task_id, user, reason: str, expected_version: int | None = None) -> Task:
    """Close what is still open (the supplier cannot deliver it): the task ends `closed`, the
    budget the rest would have spent is released, and the ERP's PO is closed once, after the move.
    With `expected_version` (the version the person saw), a request that moved since is refused
    and nothing is closed."""
    reason = (reason or "").strip()
    if not reason:
        raise _invalid({"reason": [say("close_reason_needed")]})
    with transaction.atomic():
        task = Task.objects.select_for_update(no_key=True).get(pk=task_id)
        if expected_version is not None and expected_version != task.version:
            raise StaleVersion(said=say("changed_since_opened", old=expected_version, new=task.version),
                               current_version=task.version)
        progress = progress_of(task)
        if task.state != workflow.CONFIRMED or not any(line.open for line in progress.lines):
            raise Conflict(said=say("close_nothing_open"), current_version=task.version)
        prices = [Decimal(str(line["unit_price"])) for line in ordered_lines(task)]
        unspent = totals(sum(line.open * prices[line.line] for line in progress.lines))[2]
        released = budget_release_part(task_id=task.pk, amount=unspent)
        task = fire(task.pk, "close_short", actor=Actor(user=user, roles=frozenset({workflow.CLOSER})),
                    expected_version=task.version, reason=reason,
                    event_data={"open": {str(line.line): line.open for line in progress.lines if line.open},
                                "released": str(released)})
        closing = receipt_plan(task=task, operation=erp.CLOSE_PURCHASE_ORDER, scope="close",
                               request={"purchase_order_id": task.data["purchase_order"]["id"], "reason": reason})
        queueing.enqueue_erp_send(closing.pk)
        # An invoice waiting for goods that will now never come is matched again against what was
        # accepted (an exception superseded by the close reopens on the closed request).
        queueing.enqueue_invoices_match(task.pk)
        queueing.notify_on_commit(task.pk)
    return task

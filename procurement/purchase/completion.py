"""A purchase task ends `closed` on its own (DESIGN §16) once every ordered quantity is received,
invoiced and matched: each PO line accepted in full (net of returns), billed in full by invoices
the ERP confirmed as posted, no invoice waiting for goods, for a decision or for its posting, and
every goods receipt's ERP posting confirmed. The move goes through the engine (`complete`); it is
checked after each thing that can finish a request: an invoice posted, goods received (invoices
matched again), a goods receipt's posting confirmed."""
from django.db import transaction
from django.db.models import prefetch_related_objects

from agentstate.actors import Actor
from agentstate.machine import fire
from agentstate.models import Receipt, Task

from procurement import workflow
from procurement.infra import erp, queueing
from procurement.models.invoicing import SupplierInvoice
from procurement.purchase.progress import PROGRESS_READS, Progress, progress_of

Status = SupplierInvoice.Status
OPEN_INVOICE = (Status.WAITING_RECEIPT, Status.MATCHED, Status.EXCEPTION)
# ERP writes whose outcome is still to come (an `unknown` one waits for recovery or a person).
UNSETTLED = (Receipt.Status.PLANNED, Receipt.Status.SENT, Receipt.Status.UNKNOWN)


def _done(task: Task) -> Progress | None:
    """The task's progress if nothing is left open on it, else None."""
    prefetch_related_objects([task], *PROGRESS_READS)
    progress = progress_of(task)
    if not progress.lines or any(line.received < line.ordered for line in progress.lines):
        return None
    if any(invoice.status in OPEN_INVOICE for invoice in task.supplier_invoices.all()):
        return None
    # With none matched and still to post, what progress counts as invoiced is what was posted.
    if any(line.invoiced < line.ordered for line in progress.lines):
        return None
    if task.receipts.filter(operation=erp.POST_GOODS_RECEIPT, status__in=UNSETTLED).exists():
        return None
    return progress


def task_complete_if_done(task_id) -> Task | None:
    """Close the task if nothing is left open on it; the closed task, or None (still open, or
    not after its PO). Safe to call any number of times: it moves once."""
    with transaction.atomic():
        task = (Task.objects.select_for_update(no_key=True).filter(pk=task_id, state=workflow.CONFIRMED)
                .first())
        progress = _done(task) if task is not None else None
        if progress is None:
            return None
        moved = fire(task.pk, "complete", actor=Actor.runtime("match"), expected_version=task.version,
                     event_data={"lines": {str(line.line): line.ordered for line in progress.lines}})
        queueing.notify_on_commit(task.pk)
    return moved

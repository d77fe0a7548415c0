"""Demo requests already past the purchase order (DESIGN §10, §16), so that a new user of `make run`
sees every stage after it: ordered and waiting for the goods, partly delivered, received and
waiting for the invoice, an invoice ahead of its goods, an invoice exception waiting for bob, and
one matched and posted.

Each is made the way people make it, through the services: alice or erin submits, the manager
approves, the agent's steps run at once against the ERP simulator (Celery eager), then the goods
are received and carol enters the invoice. The ERP simulator and the receipts therefore agree.

Idempotent and resumable: a request is found again by its requester and justification, and each
of its stages is done only when it is not yet there (a receipt when none is recorded, an invoice
when that number was never entered)."""
from dataclasses import dataclass, field
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.utils import timezone

from agentstate.models import Approval, Task
from procurement import workflow
from procurement.invoicing.po import purchase_order_of
from procurement.invoicing.services import invoice_enter
from procurement.models import PurchaseRequest
from procurement.models.invoicing import SupplierInvoice
from procurement.purchase import services
from procurement.purchase.tax import totals
from procurement.receiving.services import goods_receipt_record

AP = "carol"


@dataclass(frozen=True)
class Stage:
    requester: str
    department: str
    approver: str
    justification: str  # the natural key, with the requester
    lines: list[dict]
    receipt: list[dict] = field(default_factory=list)  # goods_receipt_record's lines; [] for none
    note: str = ""
    invoice: str = ""  # the 統一發票 number carol enters; "" for none
    billed: dict[int, int] = field(default_factory=dict)  # PO line -> invoiced quantity, when not as ordered


STAGES = [
    Stage("alice", "ENG", "bob", "示範：新進同仁的鍵盤（已下單，等待到貨）",
          [{"description": "Keyboard", "quantity": 2}]),
    Stage("alice", "ENG", "bob", "示範：三台 27 吋螢幕（部分到貨，一台刮傷）",
          [{"description": "Monitor", "quantity": 3}],
          receipt=[{"line": 0, "accepted": 2, "rejected": 1, "reason": "damaged"}], note="一台外框刮傷，已退回"),
    Stage("erin", "OPS", "dave", "示範：倉庫辦公椅（已驗收，等待發票）",
          [{"description": "Office chair", "quantity": 2}],
          receipt=[{"line": 0, "accepted": 2}]),
    Stage("erin", "OPS", "dave", "示範：會議室擴充座（發票先到，等待到貨）",
          [{"description": "USB-C dock", "quantity": 2}],
          invoice="QA20000001"),
    Stage("alice", "ENG", "bob", "示範：測試機擴充座（發票數量與驗收不符，待主管簽核）",
          [{"description": "USB-C dock", "quantity": 3}],
          receipt=[{"line": 0, "accepted": 2, "rejected": 1, "reason": "damaged"}], note="一台接頭損壞，已退回",
          invoice="QA20000002", billed={0: 3}),
    Stage("erin", "OPS", "dave", "示範：值班用鍵盤（已驗收、發票相符並已入帳）",
          [{"description": "Keyboard", "quantity": 1}],
          receipt=[{"line": 0, "accepted": 1}], invoice="QA20000003"),
]


def seed_requests(report, write) -> None:
    """Make what is missing of every stage; `report(created, what)` counts, `write(text)` tells."""
    people = {user.username: user for user in get_user_model().objects.filter(
        username__in={AP} | {s.requester for s in STAGES} | {s.approver for s in STAGES})}
    for stage in STAGES:
        task = _ordered(stage, people, report)
        if task is None:
            write(f"stopped  demo request {stage.justification}: its purchase order was not issued "
                  f"(see its events); the next run goes on from there")
            continue
        if stage.receipt and not task.goods_receipts.exists():
            goods_receipt_record(task_id=task.pk, user=people[stage.requester], lines=stage.receipt, note=stage.note)
            report(True, f"goods receipt for {stage.justification}")
        if stage.invoice:
            po = purchase_order_of(task)
            entered = SupplierInvoice.objects.filter(seller_tax_id=po.supplier.tax_id, number=stage.invoice).exists()
            if not entered:
                invoice_enter(user=people[AP], task_id=task.pk, fields=_invoice(po, stage))
            report(not entered, f"invoice {stage.invoice} for {stage.justification}")


def _ordered(stage: Stage, people: dict, report) -> Task | None:
    """The stage's request with its PO issued: found, or submitted and approved now."""
    found = PurchaseRequest.objects.filter(requester=people[stage.requester],
                                           justification=stage.justification).select_related("task").first()
    if found is None:
        task = services.request_submit(requester=people[stage.requester], department=stage.department,
                                       lines=stage.lines, justification=stage.justification)
    else:
        task = found.task
    report(found is None, f"demo request {stage.justification}")
    pending = Approval.objects.filter(task_id=task.pk, status=Approval.Status.PENDING).first()
    task = Task.objects.get(pk=task.pk)
    if pending is not None and task.state == workflow.AWAITING_APPROVAL:
        services.approval_decide(approval_id=pending.pk, user=people[stage.approver], decision="approve",
                                 state_version=pending.state_version, scope_hash=pending.scope_hash)
        task = Task.objects.get(pk=task.pk)
    if task.state == workflow.CLOSED or purchase_order_of(task) is not None:
        return task
    return None


def _invoice(po, stage: Stage) -> dict:
    quantities = [stage.billed.get(n, line.quantity) for n, line in enumerate(po.lines)]
    subtotal, tax, total = totals(sum(q * line.unit_price for q, line in zip(quantities, po.lines)))
    return {"number": stage.invoice, "date": (timezone.localdate() - timedelta(days=1)).isoformat(),
            "seller_tax_id": po.supplier.tax_id,
            "lines": [{"line": n, "quantity": q, "unit_price": str(line.unit_price)}
                      for n, (q, line) in enumerate(zip(quantities, po.lines))],
            "subtotal": str(subtotal), "tax": str(tax), "total": str(total)}

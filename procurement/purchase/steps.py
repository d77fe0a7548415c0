"""The agent's steps for a purchase task. advance() runs them under a lease, one after another
while the task stays runnable (AGENT_STEPS_PER_CLAIM), each its own move.

A step reads the task, does its work (holding no row lock across network I/O), and writes
its result back with the version it read and its lease token. If the task moved meanwhile
(an amendment, a cancel, a reclaimed lease) the write is refused and the result is dropped;
the next advance re-plans from what is there now. Every step is safe to run twice.
"""
import logging
from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from agentstate.actors import Actor
from agentstate.approvals import approval_open, scope_hash
from agentstate.errors import LeaseLost, StaleVersion
from agentstate.leases import Lease
from agentstate.machine import fire
from agentstate.models import Approval, Receipt, Task, TaskEvent
from agentstate.receipts import receipt_perform, receipt_plan, receipt_reconcile
from agentstate.said import Said, say

from procurement.infra import erp
from procurement.purchase.budget import BudgetExhausted, HoldCapReached, budget_hold, budget_release
from procurement.infra.faults import CrashingClient, crash_point
from procurement.models import PurchaseRequest, Quote
from procurement.policy.last_step import chosen_route
from procurement.policy.routing import OnlyTheRequester, one_level_higher, policy_route
from procurement.policy.rules import current_policy
from procurement.policy.tolerances import purchase_order_record
from procurement.purchase.catalogue import vocabulary
from procurement.purchase.completion import task_complete_if_done
from procurement.purchase.pricing import asking, award
from procurement.purchase.given import given_prices, past_tolerance
from procurement.purchase.sheets import sheet_quotes
from procurement.purchase.scope import approval_scope, purchase_order_request, requisition_request

log = logging.getLogger(__name__)
# Events after which an approved scope no longer describes the request.
REQUEST_CHANGES = ("amend", "answer", "rewind")


class StepBlocked(Exception):
    """The step cannot finish now (an outcome is still open); the task stays runnable."""


@dataclass
class Step:
    """One step's context. `erp` is the client every ERP call of the step goes through: the real
    one, or a replay's recorder (agentstate.timetravel.Recorder), which never sends."""

    task: Task
    lease: Lease | None
    erp: object = None

    def __post_init__(self):
        if self.erp is None:
            self.erp = client()

    @property
    def revision(self) -> int:
        return self.task.data.get("revision", 1)

    def move(self, event: str, *, reason: Said | str = "", **kwargs) -> Task:
        token = self.lease.token if self.lease else None
        self.task = fire(self.task.pk, event, actor=_runtime(self),
                         expected_version=self.task.version, lease_token=token, reason=reason, **kwargs)
        return self.task

    def fence(self):
        """Refuse to send once this step's result could no longer be written back: its lease was
        fenced off or the task moved on (an amendment, a cancel). receipt_perform calls it under
        the task's row lock in the transaction that marks the receipt `sent`, so whoever takes the
        task over sees either that mark (and settles the send) or no send at all."""
        current = (Task.objects.select_for_update(no_key=True).filter(pk=self.task.pk)
                   .values("version", "lease_token").get())
        if self.lease is not None and current["lease_token"] != self.lease.token:
            raise LeaseLost(f"Lease token {self.lease.token} was fenced off by token {current['lease_token']}; "
                            "nothing was sent.", current_version=current["version"])
        if current["version"] != self.task.version:
            raise StaleVersion(f"The task moved from version {self.task.version} to {current['version']} "
                               "while this step ran; nothing was sent.", current_version=current["version"])


def _runtime(step: Step) -> Actor:
    return Actor.runtime(step.lease.worker if step.lease else "recovery")


def client():
    return CrashingClient(erp.ErpClient())


def run(task: Task, lease: Lease | None, erp=None) -> Task:
    """Run the task's step; the task as the step's last move wrote it (as given when it made none)."""
    handler = HANDLERS.get(task.step)
    if handler is None:
        raise LookupError(f"No step {task.step!r} for a purchase task in state {task.state!r}.")
    step = Step(task, lease, erp)
    handler(step)
    return step.task


# -- processing ------------------------------------------------------------------

def start(step: Step):
    step.move("start")


def revise(step: Step):
    """After an amendment or an answer: undo what the old version set up outside."""
    cancel_live_requisitions(step)
    budget_release(task_id=step.task.pk)
    step.move("record", step="award", reason=say("requisition_replaced"))


def compare_quotes(step: Step):
    request = PurchaseRequest.objects.prefetch_related("lines").get(task=step.task)
    lines = [{"description": line.description, "quantity": line.quantity} for line in request.lines.all()]
    quotes = Quote.objects.select_related("supplier")
    # The rows of an attached quote sheet are quotes for this request only, beside the catalogue's.
    extra = sheet_quotes(step.task)
    choice = step.task.data.get("supplier_choice")
    if choice:
        # A fork that tries another supplier compares that supplier's quotes only.
        quotes = quotes.filter(supplier__name=choice)
        extra = [quote for quote in extra if quote["supplier"] == choice]
    quotes = [*quotes, *extra]
    result = award(lines, quotes, timezone.localdate(), vocabulary())
    if result.question:
        step.move("ask", data={**asking(result.question), "comparison": result.comparison}, reason=result.question)
        return
    if request.budget is not None and result.total > request.budget:
        question = say("ask_over_cap", supplier=result.supplier, total=str(result.total), cap=str(request.budget))
        step.move("ask", data={**asking(question), "award": result.as_json()}, reason=question)
        return
    awarded = result.as_json()
    step.move("record", step="route", data={"award": awarded, "question": "", "asked": None,
                                            "given_prices": given_prices(step.task, awarded)},
              reason=say("awarded", supplier=result.supplier, total=str(result.total)))


def route(step: Step):
    request = PurchaseRequest.objects.select_related("department", "requester").get(task=step.task)
    award_ = step.task.data["award"]
    total = Decimal(award_["total"])
    found = policy_route(department=request.department, total=total, requester=request.requester,
                         categories={line.get("item") or line["description"] for line in award_.get("lines", [])},
                         supplier=award_.get("supplier") or "")
    if found is None or isinstance(found, OnlyTheRequester):
        # Nobody by the policy: the person an admin named from the work queue, if any.
        policy = current_policy()
        found = chosen_route(step.task, department=request.department, total=total,
                             policy_version=policy.version if policy else None) or found
    if isinstance(found, dict) and past_tolerance(step.task.data.get("given_prices") or []):
        found = one_level_higher(found, department=request.department, requester=request.requester)
    if isinstance(found, OnlyTheRequester):
        step.move("escalate", reason=found.reason)
        return
    if found is None:
        step.move("escalate", reason=say("above_every_limit", total=str(total), department=request.department.code))
        return
    step.move("record", step="reserve_budget", data={"route": found},
              reason=say("routed", rule=found["rule"], people=list(found["usernames"])))


def reserve_budget(step: Step):
    """A soft hold until approval, or a capped hard reservation (procurement.purchase.budget, BUDGET_HOLD)."""
    total = Decimal(step.task.data["award"]["total"])
    try:
        with transaction.atomic():
            held = budget_hold(department_code=step.task.tenant, task_id=step.task.pk,
                               requester_id=step.task.initiator_id, amount=total)
            how = "budget_held" if held.status == held.Status.HELD else "budget_reserved"
            step.move("record", step="create_requisition", reason=say(how, total=str(total)))
    except BudgetExhausted as exc:
        step.move("ask", data=asking(exc.said), reason=exc.said)
    except HoldCapReached as exc:
        step.move("ask", data=asking(exc.said), reason=exc.said)


def create_requisition(step: Step):
    request = PurchaseRequest.objects.select_related("department", "requester").get(task=step.task)
    receipt = receipt_plan(task=step.task, operation=erp.CREATE_REQUISITION, scope=f"r{step.revision}",
                           request=requisition_request(step.task, request))
    crash_point("receipt_planned")

    def recorded(receipt):
        if receipt.status == Receipt.Status.CONFIRMED:
            step.move("record", step="open_approval", refs=[_ref(receipt)],
                      data={"requisition": {"id": receipt.external_id, "key": receipt.idempotency_key}},
                      reason=say("requisition_created", id=receipt.external_id))
        else:
            step.move("escalate", reason=say("requisition_refused", error=receipt.error))

    _perform(step, receipt, recorded)


def open_approval(step: Step):
    request = PurchaseRequest.objects.select_related("department", "requester").get(task=step.task)
    scope = approval_scope(step.task, request)
    route_ = step.task.data["route"]
    with transaction.atomic():
        task = step.move("request_approval", reason=say("approval_waiting", rule=route_["rule"]))
        # The approvers hear of it from the event log (notices), once this commits.
        approval_open(task=task, scope=scope, approvers=route_["user_ids"],
                      rule={k: v for k, v in route_.items() if k != "chain"}, chain=route_.get("chain"),
                      ttl_seconds=settings.APPROVAL_TTL_SECONDS)


# -- after approval --------------------------------------------------------------

def issue_purchase_order(step: Step):
    approval = (Approval.objects.filter(task=step.task, status=Approval.Status.APPROVED)
                .order_by("-decided_at").first())
    if approval is None or not _scope_intact(approval, step.task):
        step.move("fail", reason=say("no_scope_matches"))
        return
    receipt = receipt_plan(task=step.task, operation=erp.ISSUE_PURCHASE_ORDER, scope=f"r{step.revision}",
                           request=purchase_order_request(step.task, approval.scope))
    crash_point("receipt_planned")

    def recorded(receipt):
        if receipt.status == Receipt.Status.CONFIRMED:
            step.move("confirm", refs=[_ref(receipt)], data={"purchase_order": purchase_order_record(step.task, receipt.external_id)},
                      reason=say("order_issued", id=receipt.external_id))
        else:
            step.move("fail", reason=say("order_refused", error=receipt.error))

    _perform(step, receipt, recorded)


def _perform(step: Step, receipt: Receipt, recorded):
    """Send under the receipt protocol; a receipt already decided (settled by recovery or a person
    while the task waited) is recorded on the task as it stands, without calling the ERP again."""
    if receipt.status in (Receipt.Status.CONFIRMED, Receipt.Status.FAILED):
        recorded(receipt)
        return
    receipt_perform(receipt=receipt, client=step.erp, on_outcome=recorded, fence=step.fence)


def _scope_intact(approval: Approval, task: Task) -> bool:
    """The approved scope is still what this version would send: its hash holds, it names the
    live requisition, and nothing changed the request since the click (a work-queue retry may
    have moved the task on since, without changing what was approved)."""
    changed = TaskEvent.objects.filter(task_id=task.pk, version__gt=approval.state_version,
                                       event__in=REQUEST_CHANGES).exists()
    return (scope_hash(approval.scope) == approval.scope_hash and not changed
            and approval.scope["erp_requisition"] == (task.data.get("requisition") or {}).get("id"))


# -- compensation ----------------------------------------------------------------

def compensate(step: Step):
    cancel_live_requisitions(step)
    if ordered(step.task):
        # Budget is released only when nothing was ordered (DESIGN §7): a real order keeps it.
        step.move("compensated", reason=say("requisitions_cancelled_order_kept"))
        return
    released = budget_release(task_id=step.task.pk)
    if not released and not Receipt.objects.filter(task=step.task, operation=erp.CREATE_REQUISITION).exists():
        step.move("compensated", reason=say("nothing_to_undo"))
        return
    step.move("compensated", reason=say("requisitions_cancelled", released=str(released)))


def ordered(task: Task) -> bool:
    return Receipt.objects.filter(task_id=task.pk, operation=erp.ISSUE_PURCHASE_ORDER,
                                  status=Receipt.Status.CONFIRMED).exists()


def cancel_live_requisitions(step: Step):
    """Cancel every requisition this task created, first settling creates still in doubt."""
    creates = Receipt.objects.filter(task=step.task, operation=erp.CREATE_REQUISITION)
    for receipt in creates.filter(status__in=[Receipt.Status.SENT, Receipt.Status.UNKNOWN]):
        if receipt_reconcile(receipt=receipt, client=step.erp).status not in (Receipt.Status.CONFIRMED,
                                                                              Receipt.Status.FAILED):
            raise StepBlocked(f"requisition {receipt.idempotency_key} is still in doubt; will retry")
    for created in creates.filter(status=Receipt.Status.CONFIRMED):
        cancel = receipt_plan(task=step.task, operation=erp.CANCEL_REQUISITION, scope=created.external_id,
                              request={"requisition_id": created.external_id})
        if receipt_perform(receipt=cancel, client=step.erp).status != Receipt.Status.CONFIRMED:
            raise StepBlocked(f"cancelling requisition {created.external_id} did not confirm; will retry")


def _ref(receipt: Receipt) -> dict:
    return {"receipt": str(receipt.pk), "operation": receipt.operation, "external_id": receipt.external_id}


HANDLERS = {
    "start": start, "revise": revise, "award": compare_quotes, "route": route, "reserve_budget": reserve_budget,
    "create_requisition": create_requisition, "open_approval": open_approval,
    "issue_purchase_order": issue_purchase_order, "compensate": compensate,
}


# -- recovery --------------------------------------------------------------------

def receipt_resolved(receipt: Receipt):
    """Recovery settled a doubtful receipt: move the task on if it still waits on it. A goods
    receipt's posting confirmed may be the last thing the request waited for: its closing check
    runs once the settling has committed, as it does after a posting answered at once."""
    if receipt.operation == erp.POST_GOODS_RECEIPT:
        if receipt.status == Receipt.Status.CONFIRMED:
            task_id = receipt.task_id
            transaction.on_commit(lambda: task_complete_if_done(task_id))
        return
    task = Task.objects.get(pk=receipt.task_id)
    if receipt.scope != f"r{task.data.get('revision', 1)}":
        return  # an older version's effect; compensation cancels it
    step = Step(task, None)
    if receipt.operation == erp.CREATE_REQUISITION and receipt.status == Receipt.Status.CONFIRMED:
        event = "resume" if task.state == "needs_review" else "record"
        step.move(event, step="open_approval", refs=[_ref(receipt)],
                  data={"requisition": {"id": receipt.external_id, "key": receipt.idempotency_key}},
                  reason=say("requisition_verified", id=receipt.external_id))
    elif receipt.operation == erp.ISSUE_PURCHASE_ORDER and receipt.status == Receipt.Status.CONFIRMED:
        step.move("confirm", refs=[_ref(receipt)], data={"purchase_order": purchase_order_record(step.task, receipt.external_id)},
                  reason=say("order_verified", id=receipt.external_id))

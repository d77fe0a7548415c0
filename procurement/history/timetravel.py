"""Resume, replay, rewind and fork for a purchase request (DESIGN §13): who may do which
(services, for the API and the pages), and what the engine's agentstate.timetravel needs to know
of a purchase task (PurchaseHooks): its effects outside and how each is undone, how its steps run.

A checkpoint restores the agent's understanding, never the world: a requisition the ERP holds is
cancelled by a compensation with its own receipt; a purchase order and sent mail are not undone.
"""
from django.utils.translation import gettext as _

from agentstate import timetravel as engine
from agentstate.actors import Actor
from agentstate.errors import Conflict, DomainError, NotPermitted
from agentstate.external import Indeterminate, Outcome
from agentstate.models import Approval, MergedData, Receipt, Task
from agentstate.receipts import receipt_plan, receipt_reconcile, receipt_record
from agentstate.said import say
from agentstate.timetravel import IRREVERSIBLE, Effect

from procurement.infra import erp
from procurement.purchase import steps
from procurement import workflow
from procurement.purchase.budget import LIVE as LIVE_HOLDS
from procurement.purchase.budget import budget_release
from procurement.words.labels import department_label
from procurement.models import BudgetReservation, Notification, PurchaseRequest, RequestLine, Supplier
from procurement.words.erp import WITHDRAWN_BY_REWIND
from procurement.words.money import ntd
from procurement.purchase.numbering import request_number_next
from procurement.infra.queueing import notify_on_commit
from procurement.selectors import may_review, may_travel, task_for, task_to_travel
from procurement.history.review import RETRY_EVENTS
from agentstate.machine import fire

BUDGET_RESERVE, BUDGET_RELEASE, EMAIL = "budget.reserve", "budget.release", "email"
IN_DOUBT = (Receipt.Status.SENT, Receipt.Status.UNKNOWN)
SETTLED = (Receipt.Status.CONFIRMED, Receipt.Status.FAILED)


# -- who may do what --------------------------------------------------------------------

def _admin_task(user, task_id) -> Task:
    return task_to_travel(user, task_id)  # 404 for anyone who may not see it, 403 for anyone else but admins


def task_checkpoints(*, user, task_id) -> list:
    return engine.checkpoints_of(task_for(user, task_id))


def task_replay(*, user, task_id, checkpoint, reason: str = "") -> engine.Replay:
    """The dry run; the requester is told who looked and why (it changed nothing)."""
    replay = engine.task_replay(task=_admin_task(user, task_id), checkpoint_id=checkpoint, actor=user, why=reason)
    notify_on_commit(replay.task.pk)
    return replay


def task_rewind_preview(*, user, task_id, checkpoint) -> engine.RewindPlan:
    return engine.task_rewind_preview(task=_admin_task(user, task_id), checkpoint_id=checkpoint, actor=user)


def task_rewind(*, user, task_id, checkpoint, expected_version: int | None = None,
                reason: str = "") -> engine.RewindPlan:
    """The rewind; the requester is told who moved her request back, why and where it goes on."""
    task = _admin_task(user, task_id)
    plan = engine.task_rewind(task=task, checkpoint_id=checkpoint, actor=user, expected_version=expected_version,
                              why=reason)
    notify_on_commit(task.pk)
    return plan


def task_fork(*, user, task_id, checkpoint, lines: list | None = None, supplier: str | None = None,
              reason: str = "") -> Task:
    """The fork; the requester is told of the new request (its number and link) and why."""
    task = _admin_task(user, task_id)
    changes = {k: v for k, v in {"lines": lines, "supplier": supplier}.items() if v}
    fork = engine.task_fork(task=task, checkpoint_id=checkpoint, actor=user, changes=changes, why=reason)
    notify_on_commit(task.pk)
    return fork


def task_pause(*, user, task_id) -> Task:
    task = task_for(user, task_id)
    if not (task.initiator_id == user.pk or may_travel(user, task)):
        raise NotPermitted(said=say("pause_not_allowed"))
    if task.state not in workflow.PAUSABLE:
        raise Conflict(said=say("pause_not_working"), current_version=task.version)

    return fire(task.pk, "pause", actor=user, reason=say("paused", person=user.get_username()))


def task_resume(*, user, task_id) -> Task:
    task = task_for(user, task_id)
    if not (task.initiator_id == user.pk or may_travel(user, task) or may_review(user, task)):
        # Someone who could resume it in no state at all (a watcher) is refused before the state is read.
        raise NotPermitted(said=say("resume_not_allowed"))
    if task.state == workflow.PAUSED:
        if not (task.initiator_id == user.pk or may_travel(user, task)):
            raise NotPermitted(said=say("resume_not_allowed"))
    elif task.state == workflow.NEEDS_REVIEW:
        if not may_review(user, task):
            raise NotPermitted(said=say("resume_review_not_allowed", department=task.tenant))
        # A department's manager resumes from review as the work queue does, in the reviewer's role.
        return engine.task_resume(task=task, actor=Actor(user=user, roles=frozenset({workflow.REVIEWER})))
    else:
        raise Conflict(said=say("resume_not_stopped"), current_version=task.version)
    return engine.task_resume(task=task, actor=user)


# -- what the engine asks of a purchase task ----------------------------------------------

class PurchaseHooks:
    rewind_event = "rewind"
    fork_event = "fork"
    rewind_to = frozenset({workflow.PROCESSING})

    def effects_after(self, task: Task, checkpoint) -> list[Effect]:
        """What the request did outside after the checkpoint, oldest first, and how each is undone."""
        receipts = list(Receipt.objects.filter(task_id=task.pk).order_by("created_at"))
        cancelled = {r.request.get("requisition_id") for r in receipts
                     if r.operation == erp.CANCEL_REQUISITION and r.status == Receipt.Status.CONFIRMED}
        effects = []
        for r in receipts:
            if r.created_at <= checkpoint.created_at or r.status in (Receipt.Status.PLANNED, Receipt.Status.FAILED):
                continue
            ref = r.external_id or r.idempotency_key
            if r.operation == erp.CREATE_REQUISITION and r.external_id not in cancelled:
                effects.append(Effect(r.operation, ref, erp.CANCEL_REQUISITION, ref=str(r.pk),
                                      text=_("ERP requisition %(id)s will be cancelled.") % {"id": ref}))
            elif r.operation == erp.ISSUE_PURCHASE_ORDER:
                effects.append(Effect(r.operation, ref, IRREVERSIBLE, blocks=True, ref=str(r.pk),
                                      text=_("Purchase order %(id)s is with the supplier: it cannot be undone "
                                             "here.") % {"id": ref}))
        reservation = BudgetReservation.objects.filter(
            task_id=task.pk, status__in=LIVE_HOLDS, created_at__gt=checkpoint.created_at
        ).select_related("department").first()
        if reservation is not None:
            released = _("%(amount)s of the %(department)s budget will be released.") % {
                "amount": ntd(reservation.amount), "department": department_label(reservation.department)}
            effects.append(Effect(BUDGET_RESERVE, str(reservation.pk), BUDGET_RELEASE, ref=str(reservation.pk),
                                  text=released))
        for n in Notification.objects.filter(task_id=task.pk, created_at__gt=checkpoint.created_at).exclude(
                status=Notification.Status.QUEUED):
            effects.append(Effect(EMAIL, n.message_id, IRREVERSIBLE, ref=str(n.pk),
                                  text=_("The email “%(subject)s” to %(to)s was sent: it cannot be taken back.")
                                  % {"subject": n.subject, "to": n.to}))
        return effects

    def still_blocking(self, task: Task, effects: list[Effect]) -> list[Effect]:
        """A purchase order blocks the rewind unless the ERP confirms it is cancelled or was never made.
        A requisition whose creation is in doubt is settled by key first; one still in doubt refuses
        the rewind (409), since it could not be cancelled once the rewind has moved on."""
        blocking = []
        for effect in effects:
            receipt = Receipt.objects.get(pk=effect.ref)
            if effect.operation == erp.ISSUE_PURCHASE_ORDER:
                try:
                    found = steps.client().lookup(receipt.operation, receipt.idempotency_key, receipt.request)
                except Indeterminate:
                    blocking.append(effect)
                    continue
                if found is not None and found.response.get("status") != "cancelled":
                    blocking.append(effect)
            elif effect.undo == erp.CANCEL_REQUISITION and receipt.status in IN_DOUBT:
                if receipt_reconcile(receipt=receipt, client=steps.client()).status not in SETTLED:
                    raise Conflict(said=say("rewind_requisition_in_doubt", id=effect.external_id))
        return blocking

    def compensations_plan(self, task: Task, effects: list[Effect]) -> list[Receipt]:
        """Inside the rewind's transaction: a planned cancel receipt for each listed requisition (the
        key is the same on every try, so it is never cancelled twice), and an order the ERP confirmed
        it holds no live copy of (still_blocking) withdrawn, never to be sent again. Nothing leaves
        here: the engine sends the planned cancels once the rewind has committed."""
        planned = []
        for effect in effects:
            if effect.operation == erp.ISSUE_PURCHASE_ORDER:
                receipt_record(receipt=Receipt.objects.get(pk=effect.ref), outcome=Outcome(
                    ok=False, reason=WITHDRAWN_BY_REWIND))
            if effect.undo != erp.CANCEL_REQUISITION:
                continue
            created = Receipt.objects.get(pk=effect.ref)
            if created.status != Receipt.Status.CONFIRMED:
                continue  # never made in the ERP (still_blocking settled the ones in doubt)
            planned.append(receipt_plan(task=task, operation=erp.CANCEL_REQUISITION, scope=created.external_id,
                                        request={"requisition_id": created.external_id}))
        return planned

    def on_rewound(self, task: Task, effects: list[Effect]) -> None:
        if any(e.undo == BUDGET_RELEASE for e in effects):
            budget_release(task_id=task.pk)

    def restored_data(self, task: Task, checkpoint) -> dict:
        """The checkpoint's data, with what came later cleared, under a new revision: the steps that
        run again make new receipts (new keys) and an approval of the old version cannot be used."""
        data = dict(checkpoint.snapshot["data"])
        current = Task.objects.filter(pk=task.pk).values_list(MergedData(), flat=True).get()
        for key in current:
            data.setdefault(key, None)
        data["forked_from"] = current.get("forked_from")
        data["revision"] = int(current.get("revision") or 1) + 1
        return data

    def resume_event(self, task: Task) -> str | None:
        if task.state == workflow.PAUSED:
            return "resume"
        if task.state == workflow.NEEDS_REVIEW:
            return RETRY_EVENTS.get(task.step, "reconcile")
        return None

    def fork_start(self, original: Task, fork: Task, checkpoint, changes: dict) -> tuple[str, dict]:
        request = PurchaseRequest.objects.filter(task=original).select_related("department").first()
        if request is None:
            raise DomainError(said=say("fork_never_submitted"))
        lines = changes.get("lines") or [{"description": line.description, "quantity": line.quantity}
                                         for line in request.lines.all()]
        supplier = changes.get("supplier") or ""
        if supplier and not Supplier.objects.filter(name=supplier).exists():
            raise DomainError(said=say("fork_no_such_supplier", name=supplier),
                              errors={"supplier": [_("Pick a supplier from the list.")]})
        copy = PurchaseRequest.objects.create(task=fork, number=request_number_next(), department=request.department,
                                              requester=request.requester, justification=request.justification,
                                              budget=request.budget)
        RequestLine.objects.bulk_create(
            RequestLine(request=copy, position=n, description=line["description"], quantity=line["quantity"])
            for n, line in enumerate(lines, start=1))
        kept = checkpoint.snapshot["data"].get("award") and not changes
        step = "route" if kept and checkpoint.snapshot.get("state") == workflow.PROCESSING else "award"
        data = {"revision": 1, "requisition": None, "purchase_order": None, "question": "", "asked": None,
                "supplier_choice": supplier or None, "route": None}
        if step == "award":
            data["award"] = None
        return step, data

    def replay_prepare(self, task: Task, checkpoint) -> None:
        """Inside the replay's rolled-back transaction: the request as it stood at the checkpoint."""
        Approval.objects.filter(task_id=task.pk, status=Approval.Status.PENDING).update(
            status=Approval.Status.SUPERSEDED)
        if BudgetReservation.objects.filter(task_id=task.pk, created_at__gt=checkpoint.created_at).exists():
            budget_release(task_id=task.pk)

    def replay_step(self, task: Task, client) -> None:
        steps.run(task, None, erp=client)


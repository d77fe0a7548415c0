"""Resume, replay, rewind and fork of a purchase request (DESIGN §13), each with one meaning,
against the ERP simulator across a real socket, steps run in-process."""
import hashlib
import json

import pytest

from agentstate.errors import CheckpointRefused, Conflict, DomainError, NotFound, NotPermitted, SchemaTooNew
from agentstate.models import Approval, Checkpoint, Receipt, Task, TaskEvent
from procurement.infra import erp as erp_ops
from procurement.purchase import services
from procurement.history import timetravel as tt
from procurement.models import BudgetReservation, Department, PurchaseRequest, Quote

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

LAPTOPS = [{"description": "Laptop", "quantity": 2}]


def submit(user):
    return services.request_submit(requester=user, department="ENG", lines=LAPTOPS, justification="new hires")


def fresh(task) -> Task:
    return Task.objects.get(pk=task.pk)


def checkpoint_at(task, cursor: str) -> int:
    """The checkpoint taken while the agent was about to run `cursor`."""
    return next(c.id for c in tt.task_checkpoints(user=task.initiator, task_id=task.pk)
                if c.cursor == cursor and c.state == "processing")


def erp_requests(erp) -> int:
    return erp.stats()["requests"]


def receipts_of(task) -> list[tuple]:
    return list(Receipt.objects.filter(task_id=task.pk).order_by("created_at")
                .values_list("operation", "idempotency_key", "status", "external_id"))


def waiting_for_approval(demo):
    task = fresh(submit(demo["alice"]))
    assert task.state == "awaiting_approval"
    return task


# -- checkpoints -------------------------------------------------------------------------

def test_checkpoints_list_oldest_first_with_the_state_each_was_taken_in(demo, erp, eager):
    task = waiting_for_approval(demo)

    points = tt.task_checkpoints(user=demo["alice"], task_id=task.pk)

    assert [p.version for p in points] == sorted(p.version for p in points)
    assert points[0].label == "create" and points[-1].state == "awaiting_approval"
    assert "create_requisition" in [p.cursor for p in points]


# -- replay ------------------------------------------------------------------------------

def test_replay_sends_nothing_to_the_erp_and_leaves_the_task_as_it_was(demo, erp, eager):
    task = waiting_for_approval(demo)
    before = (erp_requests(erp), receipts_of(task), Approval.objects.filter(task_id=task.pk).count())

    replay = tt.task_replay(user=demo["carol"], task_id=task.pk, checkpoint=checkpoint_at(task, "award"))

    assert (erp_requests(erp), receipts_of(task), Approval.objects.filter(task_id=task.pk).count()) == before
    after = fresh(task)
    assert (after.state, after.version, after.data) == (task.state, task.version, task.data)
    calls = [c for s in replay.steps for c in s.would_call]
    assert [c.operation for c in calls] == [erp_ops.CREATE_REQUISITION]
    [requisition] = erp.requisitions()
    assert calls[0].answered_from == requisition["id"], "answered from the receipt it really has"
    assert [s.step for s in replay.steps][:4] == ["award", "route", "reserve_budget", "create_requisition"]
    assert replay.differences == 0, [s.as_json() for s in replay.steps]
    assert BudgetReservation.objects.get(task_id=task.pk).status == "held"  # a soft hold until approval
    viewed = TaskEvent.objects.filter(task_id=task.pk).last()
    assert (viewed.event, viewed.actor, viewed.version) == ("replay", "carol", task.version)


def test_replay_of_a_step_that_never_ran_says_would_call_and_still_sends_nothing(demo, erp, eager):
    erp.fault(mode="down", path="/requisitions")
    task = fresh(submit(demo["alice"]))
    assert task.state == "needs_review"
    erp.clear_faults()
    Receipt.objects.filter(task_id=task.pk).delete()  # as if the step had never reached the ERP
    count = erp_requests(erp)

    replay = tt.task_replay(user=demo["carol"], task_id=task.pk, checkpoint=checkpoint_at(task, "create_requisition"))

    [call] = replay.steps[0].would_call
    assert (call.operation, call.answered_from) == (erp_ops.CREATE_REQUISITION, "")
    assert call.request["department"] == "ENG"
    assert erp_requests(erp) == count and erp.requisitions() == []
    assert replay.steps[0].differs, "the dry run reached approval where the real run went to review"


# -- rewind ------------------------------------------------------------------------------

def test_rewind_lists_the_requisition_and_budget_first_and_changes_nothing(demo, erp, eager):
    task = waiting_for_approval(demo)
    [requisition] = erp.requisitions()
    count = erp_requests(erp)

    plan = tt.task_rewind_preview(user=demo["carol"], task_id=task.pk, checkpoint=checkpoint_at(task, "award"))

    assert [(e.operation, e.external_id, e.undo) for e in plan.effects][:2] == [
        (erp_ops.CREATE_REQUISITION, requisition["id"], erp_ops.CANCEL_REQUISITION),
        ("budget.reserve", str(BudgetReservation.objects.get(task_id=task.pk).pk), "budget.release")]
    assert (fresh(task).version, erp_requests(erp)) == (task.version, count)


def test_rewind_past_the_requisition_cancels_it_releases_the_budget_and_runs_again_with_new_keys(demo, erp, eager):
    task = waiting_for_approval(demo)
    [old] = erp.requisitions()
    reserved = Department.objects.get(code="ENG").budget_reserved

    tt.task_rewind(user=demo["carol"], task_id=task.pk, checkpoint=checkpoint_at(task, "award"),
                   expected_version=task.version)

    after = fresh(task)
    assert after.state == "awaiting_approval" and after.version > task.version
    requisitions = {r["id"]: r["status"] for r in erp.requisitions()}
    assert requisitions[old["id"]] == "cancelled" and len(requisitions) == 2
    assert Department.objects.get(code="ENG").budget_reserved == reserved, "released, then reserved again"
    rewind = TaskEvent.objects.get(task_id=task.pk, event="rewind")
    assert rewind.actor == "carol" and old["id"] in rewind.reason and "erp.requisition.cancel" in rewind.reason
    assert Approval.objects.filter(task_id=task.pk, status="superseded").count() == 1
    keys = [r[1] for r in receipts_of(task) if r[0] == erp_ops.CREATE_REQUISITION]
    assert len(set(keys)) == 2
    assert TaskEvent.objects.filter(task_id=task.pk).count() > 10, "history is kept"


def test_a_compensation_runs_once_under_its_key_whatever_cancels_later(demo, erp, eager):
    task = waiting_for_approval(demo)
    [first] = erp.requisitions()
    tt.task_rewind(user=demo["carol"], task_id=task.pk, checkpoint=checkpoint_at(task, "award"))
    tt.task_rewind(user=demo["carol"], task_id=task.pk, checkpoint=checkpoint_at(task, "award"))
    services.request_cancel(task_id=task.pk, user=demo["alice"])

    cancels = Receipt.objects.filter(task_id=task.pk, operation=erp_ops.CANCEL_REQUISITION)
    assert cancels.filter(scope=first["id"]).count() == 1
    assert {c.status for c in cancels} == {"confirmed"} and cancels.count() == 3
    assert {r["status"] for r in erp.requisitions()} == {"cancelled"}
    assert fresh(task).state == "cancelled"


def test_rewind_past_a_purchase_order_the_erp_holds_is_refused_and_nothing_changes(demo, erp, eager):
    task = waiting_for_approval(demo)
    erp.fault(mode="drop", path="/purchase-orders", method="POST", times=1)
    erp.fault(mode="down", path="/purchase-orders", method="GET", times=3)
    approval = Approval.objects.get(task_id=task.pk, status="pending")
    services.approval_decide(approval_id=approval.pk, user=demo["bob"], decision="approve",
                             state_version=approval.state_version, scope_hash=approval.scope_hash)
    task = fresh(task)
    assert task.state == "needs_review"
    erp.clear_faults()
    before = (receipts_of(task), erp.requisitions())

    plan = tt.task_rewind_preview(user=demo["carol"], task_id=task.pk, checkpoint=checkpoint_at(task, "award"))
    assert [e.undo for e in plan.effects if e.operation == erp_ops.ISSUE_PURCHASE_ORDER] == ["irreversible"]
    with pytest.raises(Conflict) as refused:
        tt.task_rewind(user=demo["carol"], task_id=task.pk, checkpoint=checkpoint_at(task, "award"))

    assert "Purchase order" in str(refused.value)
    assert (fresh(task).version, receipts_of(task), erp.requisitions()) == (task.version, *before)


def test_rewind_past_an_order_the_erp_confirms_it_never_made_withdraws_it_and_goes_ahead(demo, erp, eager):
    task = waiting_for_approval(demo)
    erp.fault(mode="down", path="/purchase-orders")
    approval = Approval.objects.get(task_id=task.pk, status="pending")
    services.approval_decide(approval_id=approval.pk, user=demo["bob"], decision="approve",
                             state_version=approval.state_version, scope_hash=approval.scope_hash)
    task = fresh(task)
    assert task.state == "needs_review"
    erp.clear_faults()

    tt.task_rewind(user=demo["carol"], task_id=task.pk, checkpoint=checkpoint_at(task, "award"))

    [order] = Receipt.objects.filter(task_id=task.pk, operation=erp_ops.ISSUE_PURCHASE_ORDER)
    assert order.status == "failed" and "withdrawn by a rewind" in order.error
    assert erp.purchase_orders() == [] and fresh(task).state == "awaiting_approval"


def test_a_finished_request_cannot_be_rewound(demo, erp, eager):
    task = waiting_for_approval(demo)
    services.request_cancel(task_id=task.pk, user=demo["alice"])
    task = fresh(task)

    with pytest.raises(Conflict, match="has ended"):
        tt.task_rewind_preview(user=demo["carol"], task_id=task.pk, checkpoint=checkpoint_at(task, "award"))
    assert fresh(task).version == task.version


def test_a_checkpoint_of_another_request_is_refused(demo, erp, eager):
    task, other = waiting_for_approval(demo), waiting_for_approval(demo)

    for operation in (tt.task_rewind_preview, tt.task_replay):
        with pytest.raises(DomainError, match="no checkpoint"):
            operation(user=demo["carol"], task_id=task.pk, checkpoint=checkpoint_at(other, "award"))
    with pytest.raises(DomainError, match="no checkpoint"):
        tt.task_fork(user=demo["carol"], task_id=task.pk, checkpoint="not-a-number")
    assert fresh(task).version == task.version and Task.objects.count() == 2


def test_a_checkpoint_of_a_newer_schema_is_refused(demo, erp, eager):
    task = waiting_for_approval(demo)
    point = checkpoint_at(task, "award")
    row = Checkpoint.objects.get(pk=point)
    body = json.loads(row.body)
    body["schema_version"] = 99
    text = json.dumps(body)
    Checkpoint.objects.filter(pk=point).update(body=text, schema_version=99,
                                               checksum=hashlib.sha256(text.encode()).hexdigest())
    count = TaskEvent.objects.filter(task_id=task.pk).count()

    with pytest.raises(SchemaTooNew, match="schema version 99"):
        tt.task_replay(user=demo["carol"], task_id=task.pk, checkpoint=point)
    assert TaskEvent.objects.filter(task_id=task.pk).count() == count
    assert fresh(task).version == task.version


def test_a_tampered_checkpoint_is_refused_with_an_event_and_never_used(demo, erp, eager):
    task = waiting_for_approval(demo)
    point = checkpoint_at(task, "award")
    Checkpoint.objects.filter(pk=point).update(body=Checkpoint.objects.get(pk=point).body.replace("award", "awarx"))

    with pytest.raises(CheckpointRefused):
        tt.task_rewind(user=demo["carol"], task_id=task.pk, checkpoint=point)
    assert fresh(task).version == task.version
    assert TaskEvent.objects.filter(task_id=task.pk).last().event == "checkpoint.refused"
    assert "cancelled" not in [r["status"] for r in erp.requisitions()]


# -- fork --------------------------------------------------------------------------------

def test_fork_tries_another_supplier_with_new_keys_and_leaves_the_original_alone(demo, erp, eager):
    task = waiting_for_approval(demo)
    awarded = task.data["award"]["supplier"]
    other = next(q.supplier.name for q in Quote.objects.filter(item="Laptop").select_related("supplier")
                 if q.supplier.name != awarded)
    before = (receipts_of(task), fresh(task).data, fresh(task).version)

    fork = tt.task_fork(user=demo["carol"], task_id=task.pk, checkpoint=checkpoint_at(task, "award"),
                        supplier=other)

    fork = fresh(fork)
    assert fork.data["forked_from"]["task"] == str(task.pk)
    assert (receipts_of(task), fresh(task).data) == before[:2]
    assert fresh(task).version == before[2], "the original keeps its version; the link is an event"
    from agentstate.timetravel import forks_of

    assert forks_of(task) == [str(fork.pk)]
    assert PurchaseRequest.objects.get(task=fork).number != PurchaseRequest.objects.get(task=task).number
    fork_keys = {r[1] for r in receipts_of(fork)}
    assert fork_keys and not fork_keys & {r[1] for r in receipts_of(task)}
    assert fork.state == "awaiting_approval", fork.data.get("question")
    assert fork.data["award"]["supplier"] == other


def test_fork_with_an_unknown_supplier_is_refused_and_nothing_is_made(demo, erp, eager):
    task = waiting_for_approval(demo)

    with pytest.raises(DomainError, match="No supplier"):
        tt.task_fork(user=demo["carol"], task_id=task.pk, checkpoint=checkpoint_at(task, "award"), supplier="Nobody")
    assert Task.objects.count() == 1


# -- who may --------------------------------------------------------------------------------

def test_only_admins_replay_rewind_and_fork_and_outsiders_get_404(demo, erp, eager):
    task = waiting_for_approval(demo)
    point = checkpoint_at(task, "award")
    for operation in (tt.task_replay, tt.task_rewind_preview, tt.task_fork):
        with pytest.raises(NotPermitted):
            operation(user=demo["alice"], task_id=task.pk, checkpoint=point)
    outsider = next(u for name, u in demo.items() if name not in ("alice", "bob", "carol")
                    and not u.is_superuser and not services.task_for.__name__ == name)
    try:
        services.task_for(outsider, task.pk)
    except NotFound:
        with pytest.raises(NotFound):
            tt.task_replay(user=outsider, task_id=task.pk, checkpoint=point)


# -- pause and resume ------------------------------------------------------------------------

def test_the_requester_pauses_and_resumes_her_request_and_it_goes_on_from_where_it_was(demo, erp, eager, settings):
    from procurement.celery import app

    app.conf.task_always_eager = False
    task = services.request_submit(requester=demo["alice"], department="ENG", lines=LAPTOPS, justification="x")
    paused = tt.task_pause(user=demo["alice"], task_id=task.pk)
    assert paused.state == "paused"
    app.conf.task_always_eager = True

    resumed = tt.task_resume(user=demo["alice"], task_id=task.pk)

    assert resumed.state == "processing"
    assert fresh(task).state == "awaiting_approval"
    assert TaskEvent.objects.get(task_id=task.pk, event="resume").actor == "alice"


def test_resume_of_a_request_that_is_not_paused_is_refused(demo, erp, eager):
    task = waiting_for_approval(demo)
    with pytest.raises(Conflict):
        tt.task_resume(user=demo["alice"], task_id=task.pk)
    assert fresh(task).version == task.version


def test_resume_in_review_settles_the_receipt_by_key_first(demo, erp, eager):
    erp.fault(mode="drop", path="/requisitions", method="POST", times=1)
    erp.fault(mode="down", path="/requisitions", method="GET")
    task = fresh(submit(demo["alice"]))
    assert task.state == "needs_review"
    erp.clear_faults()

    with pytest.raises(NotPermitted):
        tt.task_resume(user=demo["alice"], task_id=task.pk)
    tt.task_resume(user=demo["bob"], task_id=task.pk)

    assert fresh(task).state == "awaiting_approval"
    assert len(erp.requisitions()) == 1, "found by key, never sent again"


def test_during_a_dry_run_the_real_erp_client_refuses_to_send_even_a_read(erp):
    from agentstate.external import SendingForbidden, nothing_leaves
    from procurement.infra.erp import ErpClient

    count = erp_requests(erp)
    with nothing_leaves("a replay is a dry run"), pytest.raises(SendingForbidden, match="dry run"):
        ErpClient(erp.url, timeout=2).list_requisitions()
    assert erp_requests(erp) == count
    assert ErpClient(erp.url, timeout=2).list_requisitions() == [], "outside the block it reaches the ERP"


def test_a_manager_resumes_a_request_in_review_once_nothing_is_in_doubt(demo, erp, eager):
    erp.fault(mode="error", path="/requisitions", method="POST")
    erp.fault(mode="error", path="/requisitions", method="GET")
    task = fresh(submit(demo["alice"]))
    assert task.state == "needs_review"
    erp.clear_faults()
    # What recovery would find: the create was never answered and the ERP has nothing under its key.
    before = erp_requests(erp)

    tt.task_resume(user=demo["bob"], task_id=task.pk)

    assert erp_requests(erp) > before
    assert fresh(task).state == "awaiting_approval"
    assert TaskEvent.objects.filter(task_id=task.pk, actor="bob").exists()

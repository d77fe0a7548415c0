"""What a worker's step costs the database: each advance() of a purchase, from start to the
purchase order, within a fixed number of queries (bench/step_profile.py prints the same counts
with their times). Each advance runs on its own, as a worker runs it: what it queues for later
(the next advance, the outbox) is caught here instead of running inside it."""
from decimal import Decimal
from unittest import mock

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from agentstate.models import Approval, Receipt, Task
from procurement import workflow
from procurement.celery import app
from procurement.infra.queueing import ADVANCE, DISPATCH_OUTBOX
from procurement.models import Department, Membership, Notice, Notification
from procurement.purchase import services

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

# Queries of one advance() by the step it found due (a worker that also ran the step before).
# Issuing the PO reads the match tolerances in force (their version and rules) to freeze them on it: 2 of its 25.
# open_approval: its approvers' mail looks up, once for all of them, the mail of the same step
# still held or lately sent (one mail per approval step, procurement.infra.outbox).
# The award reads the catalogue's words (items, aliases, accessories: one union) to match the lines: 1 of its 8.
# Each step's notice pass also looks, in one query, for the task's invoices posted or waiting for their
# goods that accounts payable has not been told of (procurement.notices.invoices): 1 of every bound.
# A notice names the request (number, lines, total, supplier, department) read with the task in the
# pass's one query, not where it waits or how far its goods came (render.request_facts): open_approval
# 33 -> 25, issue_purchase_order 30 -> 25.
BOUNDS = {"start": 5, "award": 9, "route": 10, "reserve_budget": 8, "create_requisition": 14, "open_approval": 25,
          "issue_purchase_order": 25}

TRANSACTION = {"BEGIN", "COMMIT", "ROLLBACK"}
UP_TO_THE_APPROVAL = ("start", "award", "route", "reserve_budget", "create_requisition", "open_approval")


@pytest.fixture(autouse=True)
def one_step_per_claim(settings):
    """The bounds are each step's own: one step per advance() here (a worker runs a task's due steps
    in a row under one claim, test_a_worker_runs_the_steps_up_to_the_approval_under_one_claim)."""
    settings.AGENT_STEPS_PER_CLAIM = 1


@pytest.fixture
def queued():
    """The messages the steps queue, in order, instead of a broker."""
    messages = []
    with mock.patch.object(app.tasks[ADVANCE], "delay", lambda task_id: messages.append(task_id)), \
            mock.patch.object(app.tasks[ADVANCE], "apply_async",
                              lambda args, kwargs=None, **options: messages.append(args[0])), \
            mock.patch.object(app.tasks[DISPATCH_OUTBOX], "delay", lambda: None):
        yield messages


def run_to_the_order(task, approver, queued) -> dict[str, list[str]]:
    """Advance the task one queued step at a time, approving when it waits: {step: its queries}."""
    advance = app.tasks[ADVANCE]
    spent = {}
    for _ in range(20):
        if not queued:
            task.refresh_from_db()
            if task.state != workflow.AWAITING_APPROVAL:
                break
            approval = Approval.objects.get(task=task, status=Approval.Status.PENDING)
            services.approval_decide(approval_id=approval.pk, user=approver, decision="approve",
                                     state_version=approval.state_version, scope_hash=approval.scope_hash)
            continue
        task_id = queued.pop(0)
        step = Task.objects.values_list("step", flat=True).get(pk=task_id)
        with CaptureQueriesContext(connection) as captured:
            advance.run(task_id)
        # Statements, as bench/step_profile.py counts them (Django logs BEGIN and COMMIT here too).
        spent[step] = [query["sql"] for query in captured.captured_queries if query["sql"] not in TRANSACTION]
    return spent


def test_every_step_of_a_purchase_stays_within_its_queries(demo, erp, queued):
    task = services.request_submit(requester=demo["alice"], department="ENG", justification="new hires",
                                   lines=[{"description": "Laptop", "quantity": 2}])
    spent = run_to_the_order(task, demo["bob"], queued)

    task.refresh_from_db()
    assert task.state == workflow.CONFIRMED
    assert set(Receipt.objects.filter(task=task).values_list("operation", "status")) == {
        ("erp.requisition.create", "confirmed"), ("erp.purchase_order.issue", "confirmed")}
    # What the steps owed people was written too: bob's and frank's approval notices and mail.
    assert Notice.objects.filter(task=task, kind="approval_new").count() == 2
    assert Notification.objects.filter(task=task, kind="approval_new").count() == 2
    assert list(spent) == list(BOUNDS)
    over = {step: len(queries) for step, queries in spent.items() if len(queries) > BOUNDS[step]}
    assert not over, "\n".join(f"{step}: {len(spent[step])} > {BOUNDS[step]}\n  " + "\n  ".join(spent[step])
                               for step in over)


def test_opening_an_approval_costs_the_same_however_many_approvers(demo, erp, queued, make_user):
    """The approvers' permissions, notices and mail are one statement each, however many there are."""
    lines = [{"description": "Laptop", "quantity": 2}]
    two = services.request_submit(requester=demo["alice"], department="ENG", justification="new hires", lines=lines)
    by_two = run_to_the_order(two, demo["bob"], queued)["open_approval"]
    Membership.objects.create(user=make_user("mia"), department=Department.objects.get(code="ENG"),
                              role=Membership.Role.MANAGER, approval_limit=Decimal(100_000))
    three = services.request_submit(requester=demo["alice"], department="ENG", justification="new hires",
                                    lines=lines)
    by_three = run_to_the_order(three, demo["bob"], queued)["open_approval"]

    people = [set(Approval.objects.get(task=t).approvers.values_list("username", flat=True)) for t in (two, three)]
    assert people == [{"bob", "frank"}, {"bob", "frank", "mia"}]
    assert Notification.objects.filter(task=three, kind="approval_new").count() == 3
    assert len(by_three) == len(by_two), "\n".join(by_three)


def test_a_worker_runs_the_steps_up_to_the_approval_under_one_claim(demo, erp, queued, settings):
    """One message takes a new request to the approvers: each step still its own move and event,
    without a claim, a release, a look for notices and a message of its own between them."""
    settings.AGENT_STEPS_PER_CLAIM = 8
    task = services.request_submit(requester=demo["alice"], department="ENG", justification="new hires",
                                   lines=[{"description": "Laptop", "quantity": 2}])
    assert queued == [str(task.pk)]
    with CaptureQueriesContext(connection) as captured:
        app.tasks[ADVANCE].run(queued.pop(0))
    statements = [query["sql"] for query in captured.captured_queries if query["sql"] not in TRANSACTION]

    task.refresh_from_db()
    assert task.state == workflow.AWAITING_APPROVAL
    assert queued == [], "nothing more is due until someone decides"
    assert list(task.events.order_by("version").values_list("event", flat=True))[-6:] == [
        "start", "record", "record", "record", "record", "request_approval"]
    assert Notice.objects.filter(task=task, kind="approval_new").count() == 2
    # The same request's steps one per claim: the chain spares at least a claim and a release per step
    # after the first (it reads each task's JSON once more instead of with the claim).
    settings.AGENT_STEPS_PER_CLAIM = 1
    alone = run_to_the_order(services.request_submit(
        requester=demo["alice"], department="ENG", justification="new hires",
        lines=[{"description": "Laptop", "quantity": 2}]), demo["bob"], queued)
    one_at_a_time = sum(len(alone[step]) for step in UP_TO_THE_APPROVAL)
    assert len(statements) <= one_at_a_time - 2 * (len(UP_TO_THE_APPROVAL) - 1), "\n".join(statements)


def test_a_claim_runs_no_more_steps_than_the_setting_allows(demo, erp, queued, settings):
    settings.AGENT_STEPS_PER_CLAIM = 2
    task = services.request_submit(requester=demo["alice"], department="ENG", justification="new hires",
                                   lines=[{"description": "Laptop", "quantity": 2}])
    app.tasks[ADVANCE].run(queued.pop(0))

    task.refresh_from_db()
    assert (task.state, task.step) == ("processing", "route")
    assert queued == [str(task.pk)], "the rest waits for its own message"

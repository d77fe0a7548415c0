"""Budget holds by policy (DESIGN §7 Budget, issue 12 item 6), on PostgreSQL against the ERP
simulator, steps run in-process. The scenario that started it: alice files five large requests
(NT$3,994,305 each, 109 laptops) and ENG's NT$20,000,000 would be nearly all held with nobody
having approved anything; a colleague's request must still reach approval.

- soft (default): a soft hold at submission blocks nobody; the hard reservation happens at
  approval under the department row lock, and an approval the department can no longer afford
  is refused with the reason and sent back to the requester;
- cap: reserved at submission, but one requester may hold at most BUDGET_HOLD_CAP unapproved."""
import html
import threading
from decimal import Decimal

import pytest
from django.db import connections
from django.test import Client

from agentstate.models import Approval, Task
from procurement.purchase import services
from procurement.models import BudgetReservation, Department, Membership
from tests.procurement.page_text import MONEY_SPAN

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
LARGE = [{"description": "Laptop", "quantity": 109}]   # NT$3,994,305 incl. tax: the director's to approve
TWO_LAPTOPS = [{"description": "Laptop", "quantity": 2}]  # NT$73,290: a manager's


@pytest.fixture
def dan(demo, make_user):
    """alice's colleague in ENG, a requester too."""
    user = make_user("dan")
    Membership.objects.create(user=user, department=Department.objects.get(code="ENG"), role="requester")
    return user


def submit(user, lines=LARGE) -> Task:
    task = services.request_submit(requester=user, department="ENG", justification="new team", lines=lines)
    return Task.objects.get(pk=task.pk)


def approve(task, user):
    approval = Approval.objects.get(task_id=task.pk, status="pending")
    return services.approval_decide(approval_id=approval.pk, user=user, decision="approve",
                                    state_version=approval.state_version, scope_hash=approval.scope_hash)


def eng() -> Department:
    return Department.objects.get(code="ENG")


def test_soft__five_large_requests_hold_nothing_hard_and_a_colleague_still_reaches_approval(demo, dan, erp, eager):
    alices = [submit(demo["alice"]) for _ in range(5)]
    assert [t.state for t in alices] == ["awaiting_approval"] * 5
    assert eng().budget_reserved == 0, "nobody approved anything: nothing is reserved"
    assert BudgetReservation.objects.filter(status="held").count() == 5

    colleague = submit(dan, TWO_LAPTOPS)
    assert colleague.state == "awaiting_approval"

    approve(colleague, demo["bob"])
    assert eng().budget_reserved == Decimal("73290")
    assert BudgetReservation.objects.get(task_id=colleague.pk).status == "reserved"
    assert Task.objects.get(pk=colleague.pk).state == "externally_confirmed"


def test_soft__an_approval_the_department_can_no_longer_afford_is_refused_and_goes_back_to_her(demo, dan, erp,
                                                                                               eager):
    Department.objects.filter(code="ENG").update(budget_total=Decimal("100000"))
    first, second = submit(demo["alice"], TWO_LAPTOPS), submit(dan, TWO_LAPTOPS)
    assert (first.state, second.state) == ("awaiting_approval", "awaiting_approval"), "soft holds block nobody"
    approve(first, demo["bob"])

    with pytest.raises(services.BudgetRefused) as refused:
        approve(second, demo["bob"])

    assert "NT$26,710 of budget left" in str(refused.value) and "NT$73,290" in str(refused.value)
    second = Task.objects.get(pk=second.pk)
    assert second.state == "awaiting_input" and "NT$26,710" in second.data["question"]
    assert Approval.objects.get(task_id=second.pk).status == "superseded", "nothing was approved"
    assert eng().budget_reserved == Decimal("73290")
    assert BudgetReservation.objects.filter(task_id=second.pk, status="reserved").count() == 0


def test_soft__two_concurrent_approvals_that_together_would_overspend__exactly_one_succeeds(demo, dan, erp, eager):
    Department.objects.filter(code="ENG").update(budget_total=Decimal("100000"))
    tasks = [submit(demo["alice"], TWO_LAPTOPS), submit(dan, TWO_LAPTOPS)]
    approvers = [demo["bob"], demo["frank"]]
    start, outcomes = threading.Barrier(2), []

    def click(task, user):
        try:
            start.wait(timeout=10)
            approve(task, user)
            outcomes.append("approved")
        except services.BudgetRefused:
            outcomes.append("refused")
        except Exception as exc:  # noqa: BLE001 - reported below
            outcomes.append(repr(exc))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=click, args=pair) for pair in zip(tasks, approvers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)

    assert sorted(outcomes) == ["approved", "refused"], outcomes
    assert eng().budget_reserved == Decimal("73290") <= eng().budget_total
    assert sorted(Task.objects.get(pk=t.pk).state for t in tasks) == ["awaiting_input", "externally_confirmed"]


def test_cap__her_sixth_large_request_is_told_she_holds_too_much_and_a_colleague_still_gets_through(
        demo, dan, erp, eager, settings):
    settings.BUDGET_HOLD, settings.BUDGET_HOLD_CAP = "cap", 10_000_000
    alices = [submit(demo["alice"]) for _ in range(3)]
    assert [t.state for t in alices] == ["awaiting_approval", "awaiting_approval", "awaiting_input"]
    assert eng().budget_reserved == Decimal("7988610"), "two reserved hard, as before approval"
    question = alices[2].data["question"]
    assert "You already hold NT$7,988,610" in question and "NT$10,000,000 per person" in question

    colleague = submit(dan, TWO_LAPTOPS)
    assert colleague.state == "awaiting_approval"

    # Once one of hers is approved (manager, director, then finance) it no longer counts against her cap.
    for step in ("bob", "frank", "carol"):
        approve(alices[0], demo[step])
    again = submit(demo["alice"])
    assert again.state == "awaiting_approval", (again.data.get("question"), Task.objects.get(pk=alices[0].pk).state)


def test_cap__the_question_is_in_her_language(demo, erp, eager, settings):
    settings.BUDGET_HOLD, settings.BUDGET_HOLD_CAP = "cap", 5_000_000
    submit(demo["alice"])
    task = submit(demo["alice"])
    client = Client()
    client.force_login(demo["alice"])
    client.cookies["django_language"] = "zh-hant"
    page = client.get(f"/tasks/{task.pk}/").content.decode()
    assert "尚未核准" in page and "NT$5,000,000" in page, page[:3000]


@pytest.mark.parametrize("language, words", [
    ("en", "leave NT$19,853,420 of the Engineering budget after this, and NT$15,859,115 "
           "once every other request waiting for approval is approved too"),
    ("zh-hant", "NT$15,859,115\u2060（1,585.91\u00a0萬）")])
def test_the_approval_page_shows_the_budget_left_after_this_and_after_everything_pending(demo, dan, erp, eager,
                                                                                         language, words):
    submit(demo["alice"])
    Department.objects.filter(code="ENG").update(budget_reserved=Decimal("73290"))  # someone's approved order
    colleague = submit(dan, TWO_LAPTOPS)
    approval = Approval.objects.get(task_id=colleague.pk, status="pending")
    client = Client()
    client.force_login(demo["bob"])
    client.cookies["django_language"] = language
    page = MONEY_SPAN.sub(r"\1", client.get(f"/approvals/{approval.pk}/").content.decode())
    assert words in page, page[page.find("data-budget-outlook"):][:600]


def test_with_nothing_else_waiting_the_page_gives_the_budget_left_once(demo, dan, erp, eager):
    colleague = submit(dan, TWO_LAPTOPS)
    approval = Approval.objects.get(task_id=colleague.pk, status="pending")
    client = Client()
    client.force_login(demo["bob"])
    page = MONEY_SPAN.sub(r"\1", html.unescape(client.get(f"/approvals/{approval.pk}/").content.decode()))
    outlook = page[page.find("data-budget-outlook"):][:400]
    assert "leave NT$19,926,710 of the Engineering budget after this." in outlook, outlook
    assert "once every other request" not in outlook


def test_soft__in_a_chain_only_the_last_step_reserves_the_budget(demo, erp, eager):
    task = submit(demo["alice"])  # NT$3,994,305: manager, director, then finance
    for step in ("bob", "frank"):
        approve(task, demo[step])
        assert eng().budget_reserved == 0, f"{step}'s step approves nothing yet"
    approve(task, demo["carol"])
    assert eng().budget_reserved == Decimal("3994305")
    assert BudgetReservation.objects.get(task_id=task.pk).status == "reserved"


@pytest.mark.parametrize("language, words", [
    ("en", "if every other request waiting for approval is approved too, they would exceed the budget by "
           "NT$67,595"),
    ("zh-hant", "若其他等待核准的請購也都核准，將超出預算 NT$67,595")])
def test_when_everything_pending_would_overspend_the_page_says_so_plainly(demo, dan, erp, eager, language, words):
    submit(demo["alice"])  # NT$3,994,305 held, waiting for approval
    Department.objects.filter(code="ENG").update(budget_reserved=Decimal("16000000"))
    colleague = submit(dan, TWO_LAPTOPS)  # NT$73,290: NT$3,926,710 left after it, NT$67,595 short after alice's
    approval = Approval.objects.get(task_id=colleague.pk, status="pending")
    client = Client()
    client.force_login(demo["bob"])
    client.cookies["django_language"] = language
    page = MONEY_SPAN.sub(r"\1", client.get(f"/approvals/{approval.pk}/").content.decode())
    outlook = page[page.find("data-budget-outlook"):][:600]
    assert words in outlook and "NT$-" not in page and "NT$3,926,710" in outlook, outlook

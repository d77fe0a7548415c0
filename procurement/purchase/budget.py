"""Department budget holds (DESIGN §7 Budget). Every hard reservation locks the department row,
so two requests, or two approvals, can never overspend it together.

BUDGET_HOLD decides when the hard reservation happens:
- "soft" (default): the agent's budget step places a soft hold that blocks nobody; the hard
  reservation is made at approval (budget_commit, under the department row lock), and an
  approval the department can no longer afford is refused.
- "cap": the budget step reserves hard, as before approval, but one requester may hold at most
  BUDGET_HOLD_CAP in requests nobody has approved yet.
Either way a reservation is released (budget_release) on cancel, reject or expiry, only when
nothing was ordered."""
from decimal import Decimal

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q, Sum
from django.utils import timezone

from agentstate.said import say

from procurement.models import BudgetReservation, Department

SOFT, CAP = "soft", "cap"
HOLD_POLICIES = (SOFT, CAP)
# Task states in which nobody has approved the request yet (a hard hold there is "unapproved").
UNAPPROVED_STATES = ("received", "processing", "awaiting_input", "awaiting_approval", "paused")
LIVE = (BudgetReservation.Status.RESERVED, BudgetReservation.Status.HELD)


class BudgetExhausted(Exception):
    def __init__(self, available: Decimal, needed: Decimal):
        super().__init__(f"The department has NT${available:,.0f} of budget left; this request needs "
                         f"NT${needed:,.0f}.")
        self.available, self.needed = available, needed

    @property
    def said(self):
        """What the requester is asked (procurement.words.agent)."""
        return say("ask_budget_short", available=str(self.available), needed=str(self.needed))


class HoldCapReached(Exception):
    def __init__(self, held: Decimal, cap: Decimal, needed: Decimal):
        super().__init__(f"You already hold NT${held:,.0f} of budget in requests nobody has approved yet; with this "
                         f"one (NT${needed:,.0f}) that would pass the limit of NT${cap:,.0f} per person.")
        self.held, self.cap, self.needed = held, cap, needed

    @property
    def said(self):
        """What the requester is asked (procurement.words.agent)."""
        return say("ask_hold_cap", held=str(self.held), needed=str(self.needed), cap=str(self.cap))


def hold_policy() -> str:
    return settings.BUDGET_HOLD


def budget_hold(*, department_code: str, task_id, requester_id, amount: Decimal) -> BudgetReservation:
    """The budget step: a soft hold ("soft") or a capped hard reservation ("cap"). Once per task:
    a live hold or reservation is returned as it is."""
    if hold_policy() == CAP:
        return budget_reserve(department_code=department_code, task_id=task_id, amount=amount,
                              cap_for=requester_id)
    # No savepoint of its own: the budget step calls this inside its move's transaction, and
    # whatever goes wrong here undoes that whole transaction (two statements less a step).
    with transaction.atomic(savepoint=False):
        department = Department.objects.get(code=department_code)
        live = BudgetReservation.objects.filter(task_id=task_id, status__in=LIVE).first()
        if live is not None:
            return live
        return BudgetReservation.objects.create(department=department, task_id=task_id, amount=amount,
                                                status=BudgetReservation.Status.HELD)


def budget_reserve(*, department_code: str, task_id, amount: Decimal, cap_for=None) -> BudgetReservation:
    """Reserve `amount` for the task (once; a live reservation is returned as it is). With
    `cap_for` (a requester's id), refuse past what that person may hold unapproved."""
    with transaction.atomic():
        department = Department.objects.select_for_update(no_key=True).get(code=department_code)
        live = BudgetReservation.objects.filter(task_id=task_id, status=BudgetReservation.Status.RESERVED).first()
        if live is not None:
            return live
        if cap_for is not None:
            held = unapproved_held(requester_id=cap_for, excluding_task=task_id)
            if held + amount > settings.BUDGET_HOLD_CAP:
                raise HoldCapReached(held, Decimal(settings.BUDGET_HOLD_CAP), amount)
        if department.budget_available < amount:
            raise BudgetExhausted(department.budget_available, amount)
        Department.objects.filter(pk=department.pk).update(budget_reserved=F("budget_reserved") + amount)
        return BudgetReservation.objects.create(department=department, task_id=task_id, amount=amount)


def budget_commit(*, task_id, department_code: str, amount: Decimal) -> BudgetReservation:
    """At approval: the task's soft hold becomes a hard reservation, under the department row
    lock; BudgetExhausted if the department can no longer afford it. A task already holding a
    hard reservation (cap, or before soft holds) keeps it."""
    with transaction.atomic():
        department = Department.objects.select_for_update(no_key=True).get(code=department_code)
        live = BudgetReservation.objects.select_for_update(no_key=True).filter(task_id=task_id, status__in=LIVE).first()
        if live is not None and live.status == BudgetReservation.Status.RESERVED:
            return live
        needed = live.amount if live is not None else amount
        if department.budget_available < needed:
            raise BudgetExhausted(department.budget_available, needed)
        Department.objects.filter(pk=department.pk).update(budget_reserved=F("budget_reserved") + needed)
        if live is None:
            return BudgetReservation.objects.create(department=department, task_id=task_id, amount=needed)
        live.status = BudgetReservation.Status.RESERVED
        live.save(update_fields=["status"])
        return live


def budget_release(*, task_id) -> Decimal:
    """Release the task's live reservation or soft hold, if any. Returns the amount released
    (a soft hold never counted against the department, so it releases nothing there)."""
    with transaction.atomic():
        live = (BudgetReservation.objects.select_for_update(no_key=True)
                .filter(task_id=task_id, status__in=LIVE).first())
        if live is None:
            return Decimal("0")
        if live.status == BudgetReservation.Status.RESERVED:
            Department.objects.filter(pk=live.department_id).update(budget_reserved=F("budget_reserved") - live.amount)
        live.status, live.released_at = BudgetReservation.Status.RELEASED, timezone.now()
        live.save(update_fields=["status", "released_at"])
        return live.amount


def budget_release_part(*, task_id, amount: Decimal) -> Decimal:
    """Release part of the task's hard reservation: what an order closed short will not spend.
    Returns the amount released (at most what is reserved; a soft hold releases nothing)."""
    with transaction.atomic():
        live = (BudgetReservation.objects.select_for_update(no_key=True)
                .filter(task_id=task_id, status=BudgetReservation.Status.RESERVED).first())
        if live is None:
            return Decimal("0")
        part = min(Decimal(amount), live.amount)
        Department.objects.filter(pk=live.department_id).update(budget_reserved=F("budget_reserved") - part)
        live.amount -= part
        live.save(update_fields=["amount"])
        return part


def unapproved_held(*, requester_id, excluding_task=None) -> Decimal:
    """What one requester holds hard in requests nobody has approved yet."""
    rows = BudgetReservation.objects.filter(status=BudgetReservation.Status.RESERVED, task__initiator_id=requester_id,
                                            task__state__in=UNAPPROVED_STATES)
    if excluding_task is not None:
        rows = rows.exclude(task_id=excluding_task)
    return rows.aggregate(total=Sum("amount"))["total"] or Decimal("0")


def budget_outlook(*, department_code: str, task_id, amount: Decimal) -> dict:
    """For the approval page: the department's budget left after this request, and after every
    other request now waiting (their soft holds) is approved too. Read live, not frozen."""
    department = Department.objects.get(code=department_code)
    mine, held = Q(task_id=task_id), Q(status=BudgetReservation.Status.HELD)
    sums = BudgetReservation.objects.filter(department=department, status__in=LIVE).aggregate(
        mine_hard=Sum("amount", filter=mine & Q(status=BudgetReservation.Status.RESERVED)),
        pending=Sum("amount", filter=held & ~mine))
    after_this = department.budget_total - (department.budget_reserved - (sums["mine_hard"] or 0)) - amount
    after_pending = after_this - (sums["pending"] or 0)
    return {"department": department.code, "after_this": after_this, "after_pending": after_pending,
            "over_pending": -after_pending if after_pending < 0 else None}

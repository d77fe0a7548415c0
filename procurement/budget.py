"""Department budget reservations (DESIGN §7 Budget). Reserving locks the department row,
so two requests can never overspend it together."""
from decimal import Decimal

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from .models import BudgetReservation, Department


class BudgetExhausted(Exception):
    def __init__(self, available: Decimal, needed: Decimal):
        super().__init__(f"The department has NT${available:,.0f} of budget left; this request needs "
                         f"NT${needed:,.0f}.")
        self.available, self.needed = available, needed


def budget_reserve(*, department_code: str, task_id, amount: Decimal) -> BudgetReservation:
    """Reserve `amount` for the task (once; a live reservation is returned as it is)."""
    with transaction.atomic():
        department = Department.objects.select_for_update(no_key=True).get(code=department_code)
        live = BudgetReservation.objects.filter(task_id=task_id, status=BudgetReservation.Status.RESERVED).first()
        if live is not None:
            return live
        if department.budget_available < amount:
            raise BudgetExhausted(department.budget_available, amount)
        Department.objects.filter(pk=department.pk).update(budget_reserved=F("budget_reserved") + amount)
        return BudgetReservation.objects.create(department=department, task_id=task_id, amount=amount)


def budget_release(*, task_id) -> Decimal:
    """Release the task's live reservation, if any. Returns the amount released."""
    with transaction.atomic():
        live = (BudgetReservation.objects.select_for_update(no_key=True)
                .filter(task_id=task_id, status=BudgetReservation.Status.RESERVED).first())
        if live is None:
            return Decimal("0")
        Department.objects.filter(pk=live.department_id).update(budget_reserved=F("budget_reserved") - live.amount)
        live.status, live.released_at = BudgetReservation.Status.RELEASED, timezone.now()
        live.save(update_fields=["status", "released_at"])
        return live.amount

"""The manager's inbox as rows a person reads: on the page and in its CSV and XLSX exports.

One row builder serves all three, so a figure or a reason reads the same everywhere."""
import csv
import io
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from django import forms
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.utils import timezone
from django.utils.functional import cached_property
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext
from openpyxl import Workbook

from procurement.invoicing.exceptions import is_invoice_exception
from procurement.words import labels
from procurement import selectors
from procurement.words.people import people_labels, person_label
from procurement.policy.rules import amount_words
from procurement.policy.shown import approval_status_words
from procurement.words.policy import role_label
from procurement.words.money import ntd
from procurement.selectors.delegations import stands_in_for as running_for

PER_PAGE = 20
EXPORT_LIMIT = 10_000
COUNT_LIMIT = 1_000  # the inbox counts this many rows at most, then says "more than 1,000"


class InboxPaginator(Paginator):
    """Pages the inbox, counting at most COUNT_LIMIT + 1 rows: a director's "all" tab holds most of
    a million approvals, and counting them all read the whole table on every page. Past the limit
    the page says "more than 1,000 approvals" and the pager names no last page."""

    @cached_property
    def count(self) -> int:
        return self.object_list.order_by()[:COUNT_LIMIT + 1].count()

    @property
    def capped(self) -> bool:
        return self.count > COUNT_LIMIT

    def page(self, number):
        """The page's ids first, from the approvals alone (sorted, sliced), then those rows with what
        they show, by id (inbox_rows_by_id): joined to their tasks and people before the slice, the
        "decided" tab sorted every approval its reader decided with its task (bench/scale.py: 20,000 of
        them, a scan of the tasks)."""
        number = self.validate_number(number)
        bottom = (number - 1) * self.per_page
        top = bottom + self.per_page
        if top + self.orphans >= self.count:
            top = self.count
        ids = list(self.object_list.select_related(None).values_list("pk", flat=True)[bottom:top])
        rows = {row.pk: row for row in selectors.inbox_rows_by_id(ids)} if ids else {}
        return self._get_page([rows[pk] for pk in ids if pk in rows], number, self)


class InboxFilter(forms.Form):
    tab = forms.ChoiceField(required=False, choices=[
        ("pending", gettext_lazy("Waiting for me")), ("decided", gettext_lazy("Decided by me")),
        ("all", gettext_lazy("All I may see"))])
    department = forms.CharField(required=False, max_length=20)
    q = forms.CharField(required=False, max_length=100, label=gettext_lazy("Search"))

    def filters(self) -> dict:
        data = self.cleaned_data if self.is_valid() else {}
        return {"tab": data.get("tab") or "pending", "department": data.get("department") or "",
                "search": data.get("q") or ""}


@dataclass
class Row:
    approval: object
    number: str
    summary: str
    requester: str
    department: str
    purpose: str
    total: Decimal
    status: str
    status_label: str  # in words; "request cancelled" for one a cancel withdrew
    created_at: datetime
    expires_at: datetime
    reason: str
    decided_by: str
    decided_at: datetime | None
    comment: str
    po_number: str
    # An invoice exception: its invoice's number; `total` is then the invoice's variance, not a total.
    invoice_number: str = ""

    @property
    def invoice_exception(self) -> bool:
        return bool(self.invoice_number)

    @property
    def overdue(self) -> bool:
        return self.expires_at <= timezone.now()


def route_words(reason: dict) -> str:
    """Why it came to this person, in words: 「NT$100,000 以內：部門主管」, "over NT$100,000: director"."""
    amounts = reason.get("amounts")
    if amounts:
        # A policy rule frozen on the approval: its own amount bounds, not the manager's limit.
        steps = " → ".join(role_label(role) for role in reason.get("roles", []))
        return (_("%(amounts)s: %(steps)s") % {"amounts": amount_words(amounts), "steps": steps}
                if steps else amount_words(amounts))
    limit = reason.get("manager_limit")
    if reason.get("rule") == "manager":
        return _("up to %(limit)s: department manager") % {"limit": ntd(limit)} if limit else _("department manager")
    if reason.get("rule") == "director":
        return _("over %(limit)s: director") % {"limit": ntd(limit)} if limit else _("director")
    if reason.get("chosen_by"):
        return _("above every limit: named by %(admin)s") % {"admin": person_label(reason["chosen_by"])}
    if reason.get("rule") == "chain":
        steps = " → ".join(role_label(role) for role in reason.get("roles", []))
        return _("over %(limit)s: %(steps)s") % {"limit": ntd(limit), "steps": steps} if limit else steps
    return ""


def rows(approvals, viewer=None) -> list[Row]:
    """`viewer`: whose inbox it is; an approval they decide as someone's delegate says so (one query)."""
    approvals = list(approvals)
    limits = selectors.manager_limits(approvals)
    stands_in_for = set()
    if viewer is not None and approvals:
        stands_in_for = {row.delegator for row in running_for(viewer)}
    return [_row(approval, limits, viewer, stands_in_for) for approval in approvals]


def _behalf(approval, viewer, stands_in_for) -> list[str]:
    """The people this approval waits on whom `viewer` stands in for (not when it is theirs in person)."""
    if not stands_in_for or approval.status != "pending":
        return []
    step = approval.chain[approval.step] if approval.chain else {}
    people = step.get("usernames") or (approval.rule or {}).get("usernames") or []
    if viewer.get_username() in people:
        return []
    return sorted(stands_in_for & set(people))


def _row(approval, limits, viewer=None, stands_in_for=()) -> Row:
    task = approval.task
    request = getattr(task, "purchase_request", None)
    data = task.data or {}
    return Row(
        approval=approval, number=(request.number if request else "") or "", summary=_summary(approval.scope),
        requester=person_label(task.initiator),
        department=labels.department_label(request.department) if request else task.tenant,
        purpose=request.justification if request else "", total=Decimal(approval.scope.get("total") or 0),
        status=approval.status, status_label=approval_status_words(approval),
        created_at=approval.created_at, expires_at=approval.expires_at,
        reason=_reason(route_words(selectors.approval_route_reason(approval, limits)),
                       _behalf(approval, viewer, stands_in_for)),
        decided_by=person_label(approval.decided_by),
        decided_at=approval.decided_at, comment=approval.comment,
        po_number=(data.get("purchase_order") or {}).get("id", "") if approval.status == "approved" else "",
        invoice_number=((approval.scope.get("invoice") or {}).get("number") or "") if is_invoice_exception(approval)
        else "")


def _summary(scope: dict) -> str:
    """The items in the reader's language, from the frozen scope's lines (its stored summary is English)."""
    return labels.items_summary(scope["lines"]) if scope.get("lines") else scope.get("summary", "")


def _reason(words: str, behalf: list[str]) -> str:
    if not behalf:
        return words
    on_behalf = _("you decide on behalf of %(people)s") % {
        "people": pgettext("list separator", ", ").join(people_labels(behalf))}
    return f"{words} · {on_behalf}" if words else on_behalf


# -- exports -------------------------------------------------------------------------------

def _columns():
    return [str(labels.REQUEST_NO), _("Items"), _("Requester"), _("Department"), _("Purpose"), _("Total (incl. tax)"),
            _("Status"), _("Requested at"), _("Expires at"), _("Why it came to you"), _("Decided by"),
            _("Decided at"), _("Comment"), _("PO number")]


def _values(row: Row) -> list:
    return [row.number, row.summary, row.requester, row.department, _purpose(row), row.total,
            row.status_label, _local(row.created_at), _local(row.expires_at),
            row.reason, row.decided_by, _local(row.decided_at), row.comment, row.po_number]


def _purpose(row: Row) -> str:
    """An invoice exception has no purpose of its own: its kind, its invoice and that the amount is
    the variance, so the total column is not read as a purchase's total."""
    if not row.invoice_exception:
        return row.purpose
    return _("Invoice exception: invoice %(number)s; the amount is its variance (incl. tax)") % {
        "number": row.invoice_number}


def _local(moment):
    return timezone.localtime(moment).replace(tzinfo=None, microsecond=0) if moment else None


def _cell(value):
    """Text that a spreadsheet would run as a formula is kept as text."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def export_csv(rows_: list[Row], filename: str) -> HttpResponse:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(_columns())
    for row in rows_:
        writer.writerow(["" if v is None else v.isoformat(sep=" ") if isinstance(v, datetime) else _cell(v)
                         for v in _values(row)])
    # A byte-order mark so spreadsheet programs read the Chinese as UTF-8.
    response = HttpResponse("\ufeff" + buffer.getvalue(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}.csv"'
    return response


def export_xlsx(rows_: list[Row], filename: str) -> HttpResponse:
    book = Workbook()
    sheet = book.active
    sheet.title = pgettext("export sheet", "Approvals")[:31]  # 「簽核紀錄」: the "all" tab is not all waiting
    sheet.append(_columns())
    for row in rows_:
        sheet.append([_cell(v) for v in _values(row)])
    for cells in sheet.iter_rows(min_row=2, min_col=6, max_col=6):
        cells[0].number_format = "#,##0"
    for column in ("H", "I", "L"):
        for cells in sheet[f"{column}2:{column}{sheet.max_row}"] if sheet.max_row > 1 else ():
            cells[0].number_format = "yyyy-mm-dd hh:mm"
    buffer = io.BytesIO()
    book.save(buffer)
    response = HttpResponse(buffer.getvalue(),
                            content_type="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
    response["Content-Disposition"] = f'attachment; filename="{filename}.xlsx"'
    return response

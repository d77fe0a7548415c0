"""The requester's home: her requests (by chat or API) as they stand now, and a plain form to
start a new one. Managers land on their approvals and reach their own requests from the menu."""
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.shortcuts import redirect, render
from django.utils.translation import gettext_lazy as _
from django.views.decorators.vary import vary_on_headers

from agentstate.errors import DomainError

from procurement.purchase import services
from procurement.words import refusal, refusal_errors
from procurement.words.people import remember
from procurement.purchase.requests import ALL, FINISHED, OPEN, named_in, request_now, requests_of, stand_ins_for
from procurement.pages.context import Nav
from procurement.pages.request_forms import HomeFilterForm, NewRequestForm, line_formset_more, new_line_formset

PAGE_SIZE = 20
TABS = [(OPEN, _("Open")), (FINISHED, _("Finished")), (ALL, _("All"))]


@login_required
@vary_on_headers("HX-Request")
def home(request):
    """Managers land on what waits for them; everyone else on their requests."""
    if Nav(request.user).is_decider:
        return redirect("approval-inbox")
    return my_requests(request)


@login_required
@vary_on_headers("HX-Request")
def my_requests(request):
    filters = HomeFilterForm(request.GET)
    wanted = filters.cleaned_data if filters.is_valid() else {}
    show = wanted.get("show") or ALL
    page = Paginator(requests_of(request.user, show), PAGE_SIZE).get_page(wanted.get("page") or 1)
    stand_ins = stand_ins_for(page)
    rows = [request_now(task, stand_ins) for task in page]
    remember(named_in(rows))
    context = {"rows": rows, "page": page, "show": show, "tabs": TABS,
               # Poll while anything listed can still move without her doing something.
               "live": any(row.is_open for row in rows)}
    template = "procurement/home.html#rows" if request.htmx else "procurement/home.html"
    return render(request, template, context)


@login_required
def request_new(request):
    """The same request the chat would make, typed into a form."""
    data = request.POST if request.method == "POST" else None
    if data is not None and "add_line" in data:  # what she typed kept, and room for more items
        form = NewRequestForm(initial=data.dict(), user=request.user)
        return render(request, "procurement/request_new.html", {"form": form, "lines": line_formset_more(data, new=True)})
    form, lines = NewRequestForm(data, user=request.user), new_line_formset(data)
    if data is not None and form.is_valid() and lines.is_valid():
        fields = dict(form.cleaned_data)
        needed_by = fields.pop("needed_by")
        try:
            task = services.request_submit(requester=request.user, lines=lines.lines(), notes=lines.notes(),
                                           needed_by=needed_by.isoformat() if needed_by else "", **fields)
        except DomainError as exc:
            for field, messages in (refusal_errors(exc) or {None: [refusal(exc)]}).items():
                for message in messages:
                    form.add_error(field if field in form.fields else None, message)
        else:
            return redirect("task-page", task.pk)
    status = 400 if data is not None else 200
    return render(request, "procurement/request_new.html", {"form": form, "lines": lines}, status=status)

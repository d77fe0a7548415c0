"""The notices page: a person's notices, newest first, each linking to its request or approval;
mark one or all read. One URL gives the page and, to htmx, the list fragment."""
from django import forms
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST
from django.views.decorators.vary import vary_on_headers

from agentstate.errors import NotFound

from procurement.notices.selectors import nothing_left_to_decide, notices_for
from procurement.notices.services import notice_mark_read, notices_mark_all_read

PAGE_SIZE = 30
PAGE = "procurement/notices.html"


class NoticeReadForm(forms.Form):
    """Either one notice (its id) or all of the caller's."""
    notice = forms.IntegerField(required=False, min_value=1)
    all = forms.BooleanField(required=False)

    def clean(self):
        cleaned = super().clean()
        if not cleaned.get("all") and not cleaned.get("notice"):
            raise forms.ValidationError(_("Say which notice to mark as read."))
        return cleaned


@login_required
@vary_on_headers("HX-Request")
def notices_page(request):
    if request.htmx and request.GET.get("part") == "bell":  # the header's count, refreshed in place
        return render(request, "procurement/bell.html")
    return _render(request)


@login_required
@require_POST
@vary_on_headers("HX-Request")
def notices_read(request):
    form = NoticeReadForm(request.POST)
    if not form.is_valid():
        return _render(request, errors=[e for errors in form.errors.values() for e in errors], status=400)
    if form.cleaned_data["all"]:
        notices_mark_all_read(user=request.user)
    else:
        try:
            notice_mark_read(user=request.user, notice_id=form.cleaned_data["notice"])
        except NotFound:
            raise Http404("No such notice.")
    if not request.htmx:
        return redirect("notices")
    return _render(request)


def _render(request, *, errors=(), status=200):
    page = Paginator(notices_for(request.user), PAGE_SIZE).get_page(request.GET.get("page"))
    template = f"{PAGE}#list" if request.htmx and not request.htmx.history_restore_request else PAGE
    notices = list(page)
    return render(request, template, {"page": page, "notices": notices, "errors": list(errors),
                                      "settled": nothing_left_to_decide(notices)}, status=status)

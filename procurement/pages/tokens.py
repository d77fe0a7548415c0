"""The API tokens page: a person's own tokens that still work (the name of the client that holds
each, when it was made, when it expires), each with a button that revokes it. One URL gives the
page and, to htmx, the list fragment; revoking answers the list again."""
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers

from agentstate.errors import NotFound

from procurement.people.tokens import token_revoke_own, tokens_of
from procurement.words import refusal

PAGE = "procurement/api_tokens.html"


@login_required
@require_GET
@vary_on_headers("HX-Request")
def tokens_page(request):
    return _render(request)


@login_required
@require_POST
@vary_on_headers("HX-Request")
def token_revoke_view(request, token_id):
    try:
        token_revoke_own(user=request.user, token_id=token_id)
    except NotFound as exc:
        return _render(request, error=refusal(exc), status=exc.http_status)
    if not request.htmx:
        return redirect("api-tokens")
    return _render(request, revoked=True)


def _render(request, *, error="", revoked=False, status=200):
    template = f"{PAGE}#list" if request.htmx and not request.htmx.history_restore_request else PAGE
    return render(request, template, {"tokens": list(tokens_of(request.user)), "error": error, "revoked": revoked},
                  status=status)

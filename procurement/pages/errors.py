"""A refusal that leaves a page's view (a DomainError) answers 4xx with its words in the reader's
language (procurement.words.refusal): a small fragment to htmx, a short page otherwise; never a 500.
The API has its own handler with the same words (procurement.api.errors)."""
from django.http import HttpResponse
from django.template.loader import render_to_string

from agentstate.errors import DomainError

from procurement.words import refusal


class DomainErrorMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exc):
        if not isinstance(exc, DomainError):
            return None
        template = "input_refused.html#message" if request.headers.get("HX-Request") else "input_refused.html"
        body = render_to_string(template, {"message": refusal(exc), "status": exc.http_status}, request=None)
        return HttpResponse(body, status=exc.http_status)

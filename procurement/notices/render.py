"""One template per notice kind (templates/notices/<kind>.txt), rendered in the recipient's
language: its first line is the mail's subject, its first paragraph the in-page notice, and
the whole of the rest the mail's body. Links are absolute, from SITE_URL."""
from dataclasses import dataclass

from django.conf import settings
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation

from agentstate.models import Task

from procurement.words.labels import department_label_lazy, items_summary_lazy
from procurement.words.money import squeeze
from procurement.models import Department
from procurement.words.people import person_label
from procurement.purchase.requests import request_named

SUBJECT_CHARS = 200


@dataclass(frozen=True)
class Rendered:
    subject: str
    text: str   # the in-page notice
    body: str   # the mail


def absolute(path: str) -> str:
    return f"{settings.SITE_URL}{path}"


def task_url(task_id) -> str:
    return absolute(reverse("task-page", args=[task_id]))


def review_url(task_id) -> str:
    """The work queue, at the request's row."""
    return absolute(f"{reverse('review-queue')}#review-{task_id}")


def approval_url(approval_id) -> str:
    return absolute(reverse("approval-page", args=[approval_id]))


def chat_url(session_id) -> str:
    return absolute(reverse("chat-page", args=[session_id]))


def notice_render(kind: str, language: str, context: dict) -> Rendered:
    with translation.override(language):
        rendered = render_to_string(f"notices/{kind}.txt", context)
    lines = [line.rstrip() for line in rendered.strip().splitlines()]
    subject = squeeze(lines[0])[:SUBJECT_CHARS]
    body = "\n".join(lines[1:]).strip()
    while "\n\n\n" in body:
        body = body.replace("\n\n\n", "\n\n")
    return Rendered(subject=subject, text=body.split("\n\n", 1)[0], body=body)


def request_facts(task: Task) -> dict:
    """What every notice about a request names, from the request as it stands now: its number,
    what it is, its total 含稅, the supplier, the PO number and why it is wanted."""
    now = request_named(task)
    return {
        "number": now.number or "", "summary": items_summary_lazy(now.lines), "total": now.total, "supplier": now.supplier or "",
        "po_number": now.po_number or "", "requester": display_name(task.initiator), "department": now.department_name,
        "task_url": task_url(task.pk), "justification": now.justification,
    }


def scope_summary(scope: dict):
    """What an approval's frozen scope buys, in the language the notice is rendered in."""
    return items_summary_lazy(scope["lines"]) if scope.get("lines") else scope.get("summary", "")


def department_words(code: str):
    """The department an approved scope names by its code, by its name in the language the notice is
    rendered in (「工程部」); the code itself if it is gone."""
    department = Department.objects.filter(code=code).first()
    return department_label_lazy(department) if department else code


def display_name(user) -> str:
    """A person as pages name them too (procurement.words.people)."""
    return person_label(user)

"""`{% quote_sheet_of task as sheet %}`: the quote sheet a request read, for the pages: its file
and version, a download link bound to that version (or, once the retention pass removed its
content, `pruned`), and how its questions stand."""
from django import template
from django.urls import reverse

from agentstate.artifacts.models import Blob

from procurement.chat.context import catalogue
from procurement.chat.sheet import pending_text
from procurement.purchase.sheets import sheet_summary

register = template.Library()


@register.simple_tag(takes_context=True)
def quote_sheet_of(context, task):
    sheet = (getattr(task, "data", None) or {}).get("quote_sheet")
    if not sheet:
        return None
    file = sheet["file"]
    lang = "zh" if (context.get("LANGUAGE_CODE") or getattr(context.get("request"), "LANGUAGE_CODE", "")
                    or "").startswith("zh") else "en"
    return {"file": file, **sheet_summary(sheet),
            "pruned": Blob.objects.filter(pk=file["sha256"], pruned_at__isnull=False).exists(),
            "download": reverse("artifact-download", args=[task.pk, file["version_id"]]),
            "question": pending_text(task, lang, catalogue()) if task.state == "draft" else ""}

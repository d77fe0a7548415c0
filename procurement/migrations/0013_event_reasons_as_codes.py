"""Event reasons written as English sentences, before reasons were codes, become codes (data["said"]).

The sentences are matched here once, by the patterns the code wrote them with; a reason that
matches none is kept whole as quoted text (code "quoted"), shown as such, never dropped. The
reason column is left as it was written: it is the history's log line."""
import re

from django.db import migrations

MONEY = r"NT\$(?P<{}>[\d,]+(?:\.\d+)?)"
USER = r"[\w.@+-]+"
VERIFIED = r"\((?P<verified>verified by key in the ERP|not verified: the ERP did not answer)\)"

PATTERNS = [(re.compile(pattern), code) for pattern, code in [
    (r"created", "created"),
    (r"draft started in chat", "draft_started"),
    (r"request confirmed", "request_confirmed"),
    (r"amended to revision (?P<revision>\d+)", "amended"),
    (r"cancelled by the requester", "cancelled_by_requester"),
    (r"cancelled in chat", "cancelled_in_chat"),
    (rf"cancelled by (?P<who>{USER}), who approved (?P<number>\S+) for the same goods instead", "cancelled_as_twin"),
    (r"previous requisition and budget released", "requisition_replaced"),
    (rf"awarded to (?P<supplier>.+): {MONEY.format('total')} incl\. tax", "awarded"),
    (rf"{MONEY.format('total')} is above every approval limit for (?P<department>\S+)", "above_every_limit"),
    (r"routed to (?P<rule>\w+): (?P<people>.+)", "routed"),
    (rf"{MONEY.format('total')} of budget reserved", "budget_reserved"),
    (rf"{MONEY.format('total')} of budget held until approval", "budget_held"),
    (r"ERP requisition (?P<id>\S+) created", "requisition_created"),
    (r"the ERP refused the requisition: (?P<error>.*)", "requisition_refused"),
    (r"waiting for (?P<rule>\w+) approval", "approval_waiting"),
    (r"no approved scope matches this version; nothing was sent", "no_scope_matches"),
    (r"ERP purchase order (?P<id>\S+) issued", "order_issued"),
    (r"the ERP refused the purchase order: (?P<error>.*)", "order_refused"),
    (r"nothing had reached the ERP or the budget; nothing to undo", "nothing_to_undo"),
    (rf"requisitions cancelled; {MONEY.format('released')} of budget released", "requisitions_cancelled"),
    (r"requisitions cancelled; budget kept: the ERP holds a purchase order", "requisitions_cancelled_order_kept"),
    (r"ERP requisition (?P<id>\S+) verified by key", "requisition_verified"),
    (r"ERP purchase order (?P<id>\S+) verified by key", "order_verified"),
    (rf"paused by (?P<person>{USER})", "paused"),
    (rf"resumed by (?P<person>{USER}) from checkpoint v(?P<version>\d+) after reconciling its receipts",
     "resumed_after_reconciling"),
    (rf"resumed by (?P<person>{USER}): its receipts were settled by key and it went on", "resumed_settled"),
    (rf"rewound by (?P<person>{USER}) to checkpoint v(?P<version>\d+); effects shown and confirmed: (?P<effects>.*)",
     "rewound"),
    (rf"forked by (?P<person>{USER}) from request (?P<request>\S+) at checkpoint v(?P<version>\d+)", "forked_from"),
    (r"forked from checkpoint v(?P<version>\d+) to try another way", "fork_started"),
    (rf"forked by (?P<person>{USER}) at checkpoint v(?P<version>\d+) into (?P<request>\S+)", "forked_into"),
    (rf"dry run from checkpoint v(?P<version>\d+) viewed by (?P<person>{USER}): (?P<steps>\d+) steps, "
     r"(?P<differences>\d+) differences; nothing was sent", "dry_run_viewed"),
    (r"step '(?P<step>\w+)' failed (?P<n>\d+) times in a row; last error: (?P<error>.*)", "step_failed"),
    (r"retry the step '(?P<step>\w+)'\. (?P<note>.*)", "retried"),
    (r"cancelled from the work queue\. (?P<note>.*)", "cancelled_from_queue"),
    (rf"(?P<who>{USER}) named (?P<person>{USER}) to decide above every approval limit\. (?P<note>.*)",
     "approver_named"),
    (rf"(?P<person>{USER}) checked the ERP again: ERP purchase order (?P<id>\S+)\. (?P<note>.*)", "checked_order"),
    (rf"(?P<person>{USER}) recorded the outcome {VERIFIED}: ERP purchase order (?P<id>\S+)\. (?P<note>.*)",
     "recorded_order"),
    (rf"(?P<person>{USER}) checked the ERP again: the ERP has no purchase order under its key; sent again\. "
     r"(?P<note>.*)", "checked_resent"),
    (rf"(?P<person>{USER}) recorded the outcome {VERIFIED}: the ERP has no purchase order under its key; sent "
     r"again\. (?P<note>.*)", "recorded_resent"),
    (r"checked the ERP again: still in doubt \((?P<errors>.*)\)\.(?: (?P<note>.*))?", "still_in_doubt"),
    (rf"(?P<person>{USER}) checked the ERP again\. (?P<note>.*)", "checked"),
    (rf"(?P<person>{USER}) recorded the outcome {VERIFIED}\. (?P<note>.*)", "recorded"),
    (r"The cancel came too late: the ERP holds purchase order (?P<id>\S+); nothing was cancelled and the budget "
     r"stays spent\.(?: (?P<note>.*))?", "cancel_too_late"),
    (rf"(?P<person>{USER}) left the organisation \(offboarded by (?P<by>{USER})\)", "offboarded"),
    (rf"step (?P<n>\d+) of (?P<of>\d+) approved by (?P<who>{USER}) on behalf of (?P<for>{USER})", "step_approved_for"),
    (rf"step (?P<n>\d+) of (?P<of>\d+) approved by (?P<who>{USER})", "step_approved"),
    (r"approval (?P<approval>\S+) expired at (?P<at>\S+)", "approval_expired"),
    (r"(?P<operation>[\w.]+): result pending verification \((?P<error>.*)\)", "pending_verification"),
    (r"lease of (?P<worker>\S+) expired; token fenced", "lease_expired"),
    (r"runnable but idle; handed back to a worker", "idle_handed_back"),
    (r"(?P<operation>[\w.]+) (?P<before>\w+) → (?P<after>\w+)", "receipt_settled"),
    (r"data upgraded from schema version (?P<old>\d+) to (?P<new>\d+)", "data_upgraded"),
]]
WHY = "; why: "
WITH_WHY = {"rewound", "forked_into", "dry_run_viewed"}


def said_of(reason: str, data: dict) -> dict:
    """The Said JSON for an English reason: its code and parameters, or the text quoted."""
    text, why = reason, (data or {}).get("why") or ""
    if why and text.endswith(WHY + why):
        text = text[: -len(WHY + why)]
    for pattern, code in PATTERNS:
        match = pattern.fullmatch(text)
        if match is None:
            continue
        params = {name: value or "" for name, value in match.groupdict().items()}
        for name in ("total", "released"):
            if name in params:
                params[name] = params[name].replace(",", "")
        if "people" in params:
            params["people"] = params["people"].split(", ")
        if "errors" in params:
            params["errors"] = params["errors"].split("; ")
        if "verified" in params:
            params["verified"] = params["verified"].startswith("verified")
        if code in WITH_WHY and why:
            code, params["why"] = f"{code}_why", why
        return {"code": code, "params": params}
    return {"code": "quoted", "params": {"text": reason}}


def forwards(apps, schema_editor):
    TaskEvent = apps.get_model("agentstate", "TaskEvent")
    rows = TaskEvent.objects.exclude(reason="").exclude(data__has_key="said").only("id", "reason", "data")
    for event in rows.iterator(chunk_size=500):
        data = dict(event.data or {})
        data["said"] = said_of(" ".join(event.reason.split()), data)
        TaskEvent.objects.filter(pk=event.pk).update(data=data)


def backwards(apps, schema_editor):
    pass  # the reason column was never changed: the codes may stay


class Migration(migrations.Migration):
    dependencies = [
        ("procurement", "0012_supplier_invoices"),
        ("agentstate", "0016_memory_choice_labels"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]

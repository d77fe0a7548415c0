"""The agent's questions and notes written as English, before they were codes, become codes.

Event reasons (an escalation, a delegate's decision, a recovery note, a refused checkpoint, a
quote sheet read, a question asked) get their Said in data["said"], where they had none or only
the quotation migration 0013 gave them; a task's open question gets its Said in data["asked"].
The sentences are matched here once, by the shapes the code wrote them in; what matches none
stays as it was (quoted text on events, the question as written). The English columns stay."""
import re

from django.db import migrations

MONEY = r"NT\$(?P<{}>[\d,]+(?:\.\d+)?)"
USER = r"[\w.@+-]+"

QUESTIONS = [(re.compile(pattern), code) for pattern, code in [
    (r"The request has no lines yet: what would you like to buy\?", "ask_what_to_buy"),
    (r"We have no quote for (?P<quoted>.+?)\. We can buy: (?P<items>.+?)\. "
     r"Could you describe it as one of those, or remove it from the request\?", "ask_unknown_item"),
    (r"We have no quote for (?P<quoted>.+?)\. Could you describe it as one of those, or remove it from the request\?",
     "ask_unknown_item_no_catalogue"),
    (r"No single supplier quotes all of (?P<items>.+) \((?P<who>.+)\)\. "
     r"A request goes whole to one supplier: could you split it into separate requests\?", "ask_split"),
    (rf"The best offer \((?P<supplier>.+)\) totals {MONEY.format('total')} including tax, above your cap of "
     rf"{MONEY.format('cap')}\. Raise the cap or change the lines\?", "ask_over_cap"),
    (rf"The department has {MONEY.format('available')} of budget left; this request needs "
     rf"{MONEY.format('needed')}\.(?: Reduce the request or ask again later\?)?", "ask_budget_short"),
    (rf"You already hold {MONEY.format('held')} of budget in requests nobody has approved yet; with this one "
     rf"\({MONEY.format('needed')}\) that would pass the limit of {MONEY.format('cap')} per person\.(?: Wait for "
     r"an approval, or cancel or reduce a request\?)?", "ask_hold_cap"),
]]

NOTES = [(re.compile(pattern), code) for pattern, code in [
    (rf"only (?P<requester>{USER}), the requester, could decide step (?P<step>\d+) of the approval chain; nobody "
     r"decides their own request", "only_the_requester_could_decide"),
    (r"not resumed: Checkpoint v(?P<version>\d+) .*", "not_resumed_checkpoint"),
    (r"not resumed: This \w+ data was written by schema version (?P<found>\d+); .*", "not_resumed_schema"),
    (r"Checkpoint v(?P<version>\d+) (?:does not match its checksum|says another version, tenant or schema than "
     r"its row).*", "checkpoint_version_tampered"),
    (r"Checkpoint v(?P<version>\d+) (?:belongs to tenant|was asked for by tenant).*", "checkpoint_version_foreign"),
    (r"Checkpoint v(?P<version>\d+) is a delta whose chain back to a full snapshot is incomplete.*",
     "checkpoint_version_incomplete"),
    (r"This \w+ data was written by schema version (?P<found>\d+); this code knows versions up to (?P<known>\d+)\. "
     r"Nothing was changed\.", "schema_version_too_new"),
    (r"step (?P<n>\d+) waited more than (?P<hours>[\d.]+) hours; offered to (?P<people>.+)", "escalated"),
    (rf"on behalf of (?P<for>{USER})(?:\. (?P<note>.*))?", "decided_for"),
    (r"quote sheet (?P<filename>.+) v(?P<version>\d+) read: (?P<rows>\d+) rows, (?P<questions>\d+) questions",
     "quote_sheet_read"),
    (r"quote sheet question (?P<n>\d+) \(row (?P<row>\d+)\): drop", "quote_sheet_drop"),
    (r"quote sheet question (?P<n>\d+) \(row (?P<row>\d+)\): confirm", "quote_sheet_confirm"),
    (r"quote sheet question (?P<n>\d+) \(row (?P<row>\d+)\): price (?P<price>\S+)", "quote_sheet_price"),
    (r"quote sheet question (?P<n>\d+) \(row (?P<row>\d+)\): tax_id (?P<tax_id>\d+)", "quote_sheet_tax_id"),
    (r"quote sheet question (?P<n>\d+) \(row (?P<row>\d+)\): item (?P<item>.+)", "quote_sheet_item"),
]] + QUESTIONS

MONEY_PARTS = {"total", "cap", "available", "needed", "held", "price"}
LISTS = {"items", "people"}


def _params(match) -> dict:
    params = {name: value or "" for name, value in match.groupdict().items()}
    for name in MONEY_PARTS & set(params):
        params[name] = params[name].replace(",", "")
    for name in LISTS & set(params):
        params[name] = [] if params[name] == "nobody" else params[name].split(", ")
    if "quoted" in params:  # 'a', 'b' or 'c'
        params["quoted"] = re.split(r"', '|' or '", params["quoted"].strip("'"))
    if "who" in params:  # "Acme quotes Laptop, Monitor; Bee quotes Chair"
        params["who"] = [[supplier, quoted.split(", ")] for supplier, _, quoted in
                         (part.partition(" quotes ") for part in params["who"].split("; "))]
    return params


def said_of(text: str, patterns=NOTES) -> dict | None:
    """The Said JSON of an English sentence the agent wrote, or None when it is none of them."""
    text = " ".join(str(text or "").split())
    for pattern, code in patterns:
        match = pattern.fullmatch(text)
        if match is not None:
            return {"code": code, "params": _params(match)}
    return None


def forwards(apps, schema_editor):
    TaskEvent = apps.get_model("agentstate", "TaskEvent")
    Task = apps.get_model("agentstate", "Task")
    for event in TaskEvent.objects.exclude(reason="").only("id", "reason", "data").iterator(chunk_size=500):
        data = dict(event.data or {})
        stored = data.get("said") or {}
        if stored and stored.get("code") != "quoted":
            continue
        said = said_of((stored.get("params") or {}).get("text") or event.reason)
        if said is not None:
            TaskEvent.objects.filter(pk=event.pk).update(data={**data, "said": said})
    for task in Task.objects.exclude(data__question="").filter(data__has_key="question").only("id", "data").iterator(
            chunk_size=500):
        data = dict(task.data or {})
        if data.get("asked") or not isinstance(data.get("question"), str):
            continue
        said = said_of(data["question"], QUESTIONS)
        if said is not None:
            Task.objects.filter(pk=task.pk).update(data={**data, "asked": said})


def backwards(apps, schema_editor):
    pass  # the English columns were never changed: the codes may stay


class Migration(migrations.Migration):
    dependencies = [
        ("procurement", "0015_match_tolerances"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]

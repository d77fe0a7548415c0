"""What a complete request needs, in the order intake asks for it, and how a draft reads.

Shared by the rule brain (to ask one thing at a time) and the runtime (which decides for
itself whether a draft may be confirmed, whatever a brain said)."""
from datetime import date
from decimal import Decimal

from django.utils import timezone
from django.utils.functional import lazy
from django.utils.translation import pgettext_lazy

from procurement.models import department_label
from procurement.words.labels import department_code_label, item_label
from procurement.models import Quote
from procurement.purchase.tax import with_tax
from procurement.purchase.pricing import award
from procurement.chat import vocabulary
from procurement.chat.vocabulary import match_item, words_of
from procurement.words.money import ntd
from procurement.chat.dates import day_words
from procurement.words.phrases import in_lang, language, listed, say

# Asked in this order, one at a time. A budget cap and notes are optional.
REQUIRED = ("item", "quantity", "department", "justification")

# "How many laptops": the word for an unknown number of the item.
PLURALS = {"Laptop": pgettext_lazy("catalogue items", "laptops"),
           "Monitor": pgettext_lazy("catalogue items", "monitors"),
           "Keyboard": pgettext_lazy("catalogue items", "keyboards"),
           "USB-C dock": pgettext_lazy("catalogue items", "USB-C docks"),
           "Office chair": pgettext_lazy("catalogue items", "office chairs")}

# "How many" for each catalogue item, so Chinese asks with the item's counter: 「筆電需要幾台？」,
# 「辦公椅需要幾張？」. Any other item gets q_quantity's general 個.
HOW_MANY = {"Laptop": pgettext_lazy("chat question", "How many laptops do you need?"),
            "Monitor": pgettext_lazy("chat question", "How many monitors do you need?"),
            "Keyboard": pgettext_lazy("chat question", "How many keyboards do you need?"),
            "USB-C dock": pgettext_lazy("chat question", "How many USB-C docks do you need?"),
            "Office chair": pgettext_lazy("chat question", "How many office chairs do you need?")}


def missing(draft: dict) -> list[str]:
    lines = draft.get("lines") or []
    gaps = []
    if not lines:
        gaps += ["item", "quantity"]
    elif any(not line.get("quantity") for line in lines):
        gaps.append("quantity")
    if not draft.get("department"):
        gaps.append("department")
    if not (draft.get("justification") or "").strip():
        gaps.append("justification")
    return [g for g in REQUIRED if g in gaps]


def unknown_items(lines: list[dict], catalogue) -> list[str]:
    """Descriptions nobody quotes: intake asks about these, it never prices them."""
    return [line["description"] for line in lines if match_item(line["description"], catalogue) not in catalogue]


def item_name(item: str, lang: str) -> str:
    with language(lang):
        return item_label(item)


def catalogue_words(catalogue, lang: str) -> str:
    """What can be bought, named and listed in `lang`: 「筆電、螢幕、辦公椅」, "Laptop, Monitor"."""
    return listed([item_name(item, lang) for item in catalogue], lang) or "-"


def department_name(code: str, lang: str, catalogue=()) -> str:
    """「工程部」 / "Engineering" for ENG: the department as the pages name it (from the turn's
    catalogue when it read the departments, else from the database)."""
    with language(lang):
        if vocabulary.read_departments(catalogue):
            return department_label(vocabulary.department_row(code, catalogue)) or code if code else ""
        return department_code_label(code)


def needed_by_words(draft: dict, lang: str) -> str:
    return day_words(date.fromisoformat(draft["needed_by"]), lang) if draft.get("needed_by") else ""


def reason_words(reason: str, item: str, lang: str) -> str:
    """A purpose from why she needs it: 「汰換壞掉的辦公椅」, "for a new hire"."""
    if reason == "broken" and item:
        name = item_name(item, lang)
        return say("reason_broken", lang, item=name if name[1:2].isupper() else name[:1].lower() + name[1:])
    return say("reason_broken_any" if reason == "broken" else "reason_new_hire", lang)


def justification_submitted(draft: dict, lang: str) -> str:
    """The purpose the request carries: with the need-by day and her notes for this request (「這次
    送到新竹辦公室」) when given, as she would write them in the form's purpose box, so the approver
    reads them on the approval page and in its mail (the draft showed them as 「備註：…」)."""
    text = draft["justification"]
    if draft.get("needed_by"):
        text = say("purpose_need_by", lang, text=text, date=needed_by_words(draft, lang))
    for note in draft.get("notes") or []:
        text = say("purpose_note", lang, text=text, note=note)
    return text[:500]


def describe_lines(lines: list[dict], lang: str) -> str:
    parts = [say("line", lang, item=item_name(line["description"], lang), quantity=line["quantity"])
             if line.get("quantity") else say("line_open", lang, item=item_name(line["description"], lang))
             for line in lines]
    return listed(parts, lang) or say("no_items", lang)


# NT$ without decimals; large sums also in 萬 for a Chinese reader (one format with the pages).
# Lazy: rendered in the language of the sentence it goes into (say() renders in the chat's).
money = lazy(ntd, str)


def estimate(lines: list[dict], catalogue=()) -> tuple[Decimal, Decimal] | None:
    """(subtotal, total) of the best offer for complete lines today, or None if it cannot be priced.
    The lines are read with the words `catalogue` carries (read afresh if it carries none)."""
    if not lines or any(not line.get("quantity") for line in lines):
        return None
    result = award(lines, Quote.objects.select_related("supplier"), timezone.localdate(), words_of(catalogue))
    return (result.subtotal, result.total) if result.supplier else None


def cap_incl_tax(draft: dict) -> Decimal | None:
    """The cap compared with the tax-inclusive total: a cap given before tax gains its 營業稅, in
    whole NT dollars as on an invoice (未稅 1,001 -> 1,051)."""
    if not draft.get("budget"):
        return None
    cap = Decimal(str(draft["budget"]))
    return with_tax(cap) if draft.get("budget_tax") == "excluded" else cap


def tax_matters(draft: dict) -> tuple[Decimal, Decimal] | None:
    """The estimate, when a cap of unknown basis would be met one way and missed the other."""
    if not draft.get("budget") or draft.get("budget_tax"):
        return None
    found = estimate(draft.get("lines") or [])
    cap = Decimal(str(draft["budget"]))
    if found and found[0] <= cap < found[1]:
        return found
    return None


def describe_budget(draft: dict, lang: str) -> list[str]:
    if not draft.get("budget"):
        return []
    cap = Decimal(str(draft["budget"]))
    if draft.get("budget_tax") == "excluded":
        parts = [say("cap_excl", lang, cap=money(cap), incl=money(cap_incl_tax(draft)))]
    else:
        parts = [say("cap_incl", lang, cap=money(cap))]
    found = estimate(draft.get("lines") or []) if draft.get("budget_tax") else None
    if found:
        key = "estimate_within" if found[1] <= cap_incl_tax(draft) else "estimate_over"
        parts.append(say(key, lang, total=money(found[1]), subtotal=money(found[0])))
    return parts


def describe(draft: dict, lang: str, catalogue=()) -> str:
    """One plain paragraph of what would be submitted."""
    parts = [describe_lines(draft.get("lines") or [], lang)]
    if draft.get("department"):
        parts.append(say("department", lang, name=department_name(draft["department"], lang, catalogue)))
    if draft.get("justification"):
        parts.append(say("purpose", lang, text=draft["justification"]))
    if draft.get("needed_by"):
        parts.append(say("need_by", lang, date=needed_by_words(draft, lang)))
    parts += describe_budget(draft, lang)
    parts += [say("note", lang, text=note) for note in draft.get("notes") or []]
    return listed(parts, lang, clauses=True)


def question_for(gap: str, draft: dict, lang: str, departments=(), catalogue=()) -> str:
    pending = next((line for line in draft.get("lines") or [] if not line.get("quantity")), None)
    item = ""
    if pending:
        if gap == "quantity" and pending["description"] in HOW_MANY:
            return in_lang(HOW_MANY[pending["description"]], lang)
        item = in_lang(PLURALS.get(pending["description"], pending["description"]), lang)
    options = " / ".join(department_name(code, lang, catalogue) for code in departments or ("ENG", "OPS"))
    return say(f"q_{gap}", lang, item=item, options=options)


def gap_names(gaps, lang: str) -> str:
    return listed([say(f"gap_{g}", lang) for g in gaps], lang)


def confirm_prompt(draft: dict, lang: str, catalogue=()) -> str:
    return say("confirm_prompt", lang, what=describe(draft, lang, catalogue))

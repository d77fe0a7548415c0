"""What the agent says about a quote sheet, from the one gettext catalogue, in the reply's language."""
from django.utils.translation import gettext_lazy as _

from procurement.words.phrases import join, language
from procurement.words.money import ntd
from procurement.words import labels

# The kinds of question a sheet's row raises (procurement.quotesheet.checks finds them).
UNKNOWN_ITEM, TAX_ID, PRICE = "unknown_item", "tax_id", "price"

PHRASES = {
    "read": _("I read {filename} (version {version}): {rows} quotes. {ok} match the catalogue and the supplier "
              "list; {open} need your answer."),
    "read_clean": _("I read {filename} (version {version}): {rows} quotes, and all of them match the catalogue and "
                    "the supplier list."),
    "same_file": _("{filename} is the same file as version {version}, which I have already read; nothing changed."),
    "ask_head": _("Question {n} of {total}:"),
    UNKNOWN_ITEM: _("Row {row}: we have no catalogue item “{item}”. Which item is it ({items})? Or say "
                           "“drop” to leave the row out."),
    TAX_ID: _("Row {row}: the supplier “{supplier}” has no valid tax ID (統一編號) on our supplier list{given}. "
                     "What is its 8-digit tax ID? Or say “drop” to leave the row out."),
    "tax_given": _(" (the sheet says “{tax_id}”)"),
    "tax_known": _(" (the sheet says “{tax_id}”; our supplier list has {known})"),
    PRICE: _("Row {row}: {item} at {price} is {percent}% {direction} the catalogue median of {median}. Is the "
                    "price right? Say “confirm”, give the correct price, or say “drop”."),
    "above": _("above"),
    "below": _("below"),
    "dropped": _("Row {row} is left out."),
    "confirmed": _("Row {row}: price confirmed."),
    "price_set": _("Row {row}: the price is now {price}."),
    "tax_set": _("Row {row}: tax ID {tax_id} recorded."),
    "item_set": _("Row {row}: recorded as {item}."),
    "bad_tax_id": _("{tax_id} is not the tax ID (統一編號) of a supplier on our list."),
    "again": _("I didn't get that."),
    "all_resolved": _("All questions about {filename} are answered: {used} quotes will be compared for this request, "
                      "{dropped} left out."),
    "still_open": _("First, a question about the quote sheet {filename}."),
    "draft_only": _("A quote sheet can be attached while the request is being drafted, before it is submitted. "
                    "This request is {state}; start a new conversation for a new request."),
}


def say(key: str, lang: str, **values) -> str:
    with language(lang):
        return str(PHRASES[key]).format(**values)


def question_text(question: dict, *, total: int, lang: str, items=()) -> str:
    """The question, with its number: 「第 2 題（共 3 題）：第 7 列…」."""
    kind, values = question["kind"], dict(question)
    with language(lang):
        if kind == PRICE:
            values |= {"price": ntd(question["unit_price"]), "median": ntd(question["median"]),
                       "percent": abs(question["percent"]),
                       "direction": str(PHRASES["above" if question["percent"] > 0 else "below"])}
            values["item"] = item_label(question["item"], lang)
        elif kind == TAX_ID:
            given = ""
            if question.get("known_tax_id"):
                given = str(PHRASES["tax_known"]).format(tax_id=question["tax_id"], known=question["known_tax_id"])
            elif question.get("tax_id"):
                given = str(PHRASES["tax_given"]).format(tax_id=question["tax_id"])
            values["given"] = given
        elif kind == UNKNOWN_ITEM:
            values["items"] = "、".join(item_label(item, lang) for item in items) if lang == "zh" else \
                ", ".join(items)
        head = str(PHRASES["ask_head"]).format(n=question["n"], total=total)
        body = str(PHRASES[kind]).format(**values)
        return head + body if head.endswith("：") else join(head, body)


def item_label(item: str, lang: str) -> str:
    with language(lang):
        return labels.item_label(item)

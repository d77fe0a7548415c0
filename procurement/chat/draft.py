"""What a complete request needs, in the order intake asks for it, and how a draft reads.

Shared by the rule brain (to ask one thing at a time) and the runtime (which decides for
itself whether a draft may be confirmed, whatever a brain said)."""
from decimal import Decimal

from ..pricing import match_item

# Asked in this order, one at a time. A budget cap and notes are optional.
REQUIRED = ("item", "quantity", "department", "justification")

ITEM_ZH = {"Laptop": "筆電", "Monitor": "螢幕", "Keyboard": "鍵盤", "USB-C dock": "USB-C 擴充座",
           "Office chair": "辦公椅"}


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
    return ITEM_ZH.get(item, item) if lang == "zh" else item


def describe_lines(lines: list[dict], lang: str) -> str:
    parts = []
    for line in lines:
        name = item_name(line["description"], lang)
        quantity = line.get("quantity")
        parts.append(f"{name} × {quantity}" if quantity else (f"{name}（數量未定）" if lang == "zh"
                                                             else f"{name} (how many?)"))
    return ("、" if lang == "zh" else ", ").join(parts) or ("（尚無品項）" if lang == "zh" else "(no items yet)")


def money(value) -> str:
    return f"NT${Decimal(str(value)):,.0f}"


def describe(draft: dict, lang: str) -> str:
    """One plain paragraph of what would be submitted."""
    zh = lang == "zh"
    parts = [describe_lines(draft.get("lines") or [], lang)]
    if draft.get("department"):
        parts.append(f"部門 {draft['department']}" if zh else f"department {draft['department']}")
    if draft.get("justification"):
        parts.append(f"用途：{draft['justification']}" if zh else f"for: {draft['justification']}")
    if draft.get("budget"):
        parts.append(f"預算上限 {money(draft['budget'])}" if zh else f"budget cap {money(draft['budget'])}")
    for note in draft.get("notes") or []:
        parts.append(f"備註：{note}" if zh else f"note: {note}")
    return ("；" if zh else "; ").join(parts)


QUESTIONS = {
    "item": ("What would you like to buy?", "請問要買什麼？"),
    "quantity": ("How many {item} do you need?", "{item}需要幾台（個）？"),
    "department": ("Which department is this for ({options})?", "這是哪個部門的申請（{options}）？"),
    "justification": ("What are they for? (a short justification)", "請簡短說明用途。"),
}


def question_for(gap: str, draft: dict, lang: str, departments=()) -> str:
    english, chinese = QUESTIONS[gap]
    pending = next((line for line in draft.get("lines") or [] if not line.get("quantity")), None)
    item = item_name(pending["description"], lang) if pending else ""
    if lang == "en" and item:
        item = item.lower() + "s"
    options = " / ".join(departments) or "ENG / OPS"
    return (chinese if lang == "zh" else english).format(item=item, options=options)


def confirm_prompt(draft: dict, lang: str) -> str:
    if lang == "zh":
        return f"申請內容：{describe(draft, lang)}。確認送出嗎？（好／不要）"
    return f"Here is your request: {describe(draft, lang)}. Shall I submit it? (yes / no)"

"""Reading the requester's answer to one quote-sheet question: leave the row out, confirm the
price, a corrected price, a tax ID (統一編號) or the catalogue item meant. None if it is none of those."""
import re
from decimal import Decimal

from procurement.chat import lexicon
from procurement.chat.vocabulary import match_item
from procurement.quotesheet import checks

DROP = re.compile(r"刪除|刪掉|移除|拿掉|去掉|不要(?:這|那)?(?:一)?(?:列|筆|行)?$|略過|跳過|排除|\b(?:drop|remove|delete|skip|"
                  r"leave (?:it|the row) out)\b", re.IGNORECASE)
CONFIRM = re.compile(r"確認|沒錯|正確|是對的|對的|價格對|\bconfirm(?:ed)?\b|\bcorrect\b|\bthat'?s right\b|\bright\b",
                     re.IGNORECASE)
TAX_ID = re.compile(r"(?<!\d)(\d{8})(?!\d)")
AMOUNT = re.compile(r"(?<![\d.])(\d{1,3}(?:,\d{3})+|\d+)(\.\d{1,2})?\s*(萬)?")


def parse_answer(question: dict, text: str, catalogue=()) -> dict | None:
    kind, text = question["kind"], text.strip()
    if kind == checks.TAX_ID:
        found = TAX_ID.search(text.replace(" ", ""))
        if found:
            return {"action": "tax_id", "value": found.group(1)}
    if kind == checks.PRICE:
        price = _amount(text)
        if price is not None:
            return {"action": "price", "value": str(price)}
    if kind == checks.UNKNOWN_ITEM:
        item = match_item(text, catalogue)
        if item in catalogue:
            return {"action": "item", "value": item}
    if DROP.search(text):
        return {"action": "drop"}
    if kind == checks.PRICE and (CONFIRM.search(text) or lexicon.is_yes(text)):
        return {"action": "confirm"}
    return None


def _amount(text: str) -> Decimal | None:
    found = AMOUNT.search(text.replace("NT$", " ").replace("$", " "))
    if not found:
        return None
    value = Decimal(found.group(1).replace(",", "") + (found.group(2) or ""))
    if found.group(3):
        value *= 10_000
    return value if value > 0 else None

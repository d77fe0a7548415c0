"""A quote sheet as the task's State records it: its open questions, and its rows as quotes."""
from decimal import Decimal

DEFAULT_LEAD_TIME_DAYS = 14


def open_questions(sheet: dict | None) -> list[dict]:
    return [q for q in (sheet or {}).get("questions", []) if q["status"] == "open"]


def next_question(sheet: dict | None) -> dict | None:
    found = open_questions(sheet)
    return found[0] if found else None


def sheet_quotes(task) -> list[dict]:
    """The sheet's rows as quotes for this request only (pricing.award reads dicts as quotes):
    rows with a catalogue item and not left out, once every question is answered."""
    sheet = task.data.get("quote_sheet") or {}
    if not sheet or open_questions(sheet):
        return []
    return [{"supplier": row["listed_supplier"], "item": row["catalogue_item"], "unit_price": Decimal(row["unit_price"]),
             "currency": "TWD", "valid_until": None,
             "lead_time_days": row.get("lead_time_days") or DEFAULT_LEAD_TIME_DAYS}
            for row in sheet["rows"]
            if row["status"] != "dropped" and row.get("catalogue_item") and row.get("listed_supplier")]


def sheet_summary(sheet: dict) -> dict:
    rows = sheet.get("rows", [])
    dropped = sum(1 for r in rows if r["status"] == "dropped")
    return {"rows": len(rows), "dropped": dropped, "used": len(rows) - dropped,
            "open": len(open_questions(sheet)), "questions": len(sheet.get("questions", []))}

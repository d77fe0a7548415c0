"""What a person reads on a page: its visible text, without tags, scripts, attributes or the
admins' closed "details" of internals; and the English words left in it once the names a
page may show (people, suppliers, items, REQ/PO numbers, codes of departments) are removed."""
import re
from html.parser import HTMLParser

HIDDEN = {"script", "style", "template", "noscript"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
# Words that are names, not English: the ERP, the currency, the language's own name in the menu.
NAMES = {"ERP", "NT", "English", "REQ", "PO", "ENG", "OPS", "USB", "USB-C", "Excel", "CSV", "XLSX"}
STATE_CODE = re.compile(r"\b(?:awaiting_input|awaiting_approval|externally_confirmed|needs_review|update_draft|"
                        r"request_approval|outcome_unknown|issue_purchase_order|create_requisition|"
                        r"erp\.[a-z_]+\.[a-z_]+|recovery\.[a-z_]+)\b")


class _Visible(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.hidden_at, self.parts = [], None, []

    def handle_starttag(self, tag, attrs):
        if tag in VOID:
            return
        self.stack.append(tag)
        classes = (dict(attrs).get("class") or "").split()
        if self.hidden_at is None and (tag in HIDDEN or "internals" in classes):
            self.hidden_at = len(self.stack)

    def handle_endtag(self, tag):
        if tag in VOID or tag not in self.stack:
            return
        while self.stack:
            popped = self.stack.pop()
            if self.hidden_at is not None and len(self.stack) < self.hidden_at:
                self.hidden_at = None
            if popped == tag:
                break

    def handle_data(self, data):
        if self.hidden_at is None and data.strip():
            self.parts.append(data.strip())


# The nowrap span the `ntd` filter puts around an amount is no boundary a reader sees: 「總計
# NT$13,020（含稅）」 reads without a space before the parenthesis.
MONEY_SPAN = re.compile(r'<span class="money">(.*?)</span>', re.S)


def visible_text(html: str) -> str:
    parser = _Visible()
    parser.feed(MONEY_SPAN.sub(r"\1", html))
    parser.close()
    return " ".join(parser.parts)


def english_words(text: str, names=()) -> list[str]:
    """ASCII words left in `text` after removing the names a page may show."""
    text = re.sub(r"\S+@\S+|\b(?:REQ|PO)-[\w-]+|\bv\d+\b|\b[0-9a-f]{8}\b", " ", text)
    for name in sorted({n for n in names if n}, key=len, reverse=True):
        text = text.replace(name, " ")
    return [word for word in re.findall(r"[A-Za-z][A-Za-z'_.-]*[A-Za-z]|[A-Za-z]", text)
            if word not in NAMES and not re.fullmatch(r"[A-Z]{2,5}(?:-\d+)?", word)]


def state_codes(text: str) -> list[str]:
    return STATE_CODE.findall(text)


def page(user, url, **headers) -> str:
    """The visible text of `url` as `user` reads it (headers: e.g. HTTP_ACCEPT_LANGUAGE); it must answer 200."""
    from django.test import Client

    client = Client(**headers)
    client.force_login(user)
    response = client.get(url)
    assert response.status_code == 200
    return visible_text(response.content.decode())

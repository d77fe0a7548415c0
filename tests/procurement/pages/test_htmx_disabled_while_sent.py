"""A form sent with htmx disables its buttons while the request is in flight, so a double click
sends once. `hx-disabled-elt="find button"` looks inside the element that sends: it works on a
form that sends (hx-post on the form) and finds nothing when a button inside sends (htmx then
logs 'The selector "find button" on hx-disabled-elt returned no matches!' and nothing is
disabled), as the work queue's buttons did."""
import re
from pathlib import Path

TEMPLATES = Path(__file__).resolve().parents[3] / "templates"
FORM = re.compile(r"<form\b(?P<attrs>[^>]*)>(?P<body>.*?)</form>", re.DOTALL)


def test_no_form_whose_buttons_send_disables_only_what_is_inside_the_sender():
    wrong = []
    for path in TEMPLATES.rglob("*.html"):
        for form in FORM.finditer(path.read_text()):
            relative = re.search(r'hx-disabled-elt="(?:find|next|previous) ', form["attrs"])
            buttons_send = re.search(r"<button\b[^>]*\bhx-(?:post|get)=", form["body"])
            if relative and buttons_send and not re.search(r"\bhx-(?:post|get)=", form["attrs"]):
                wrong.append(str(path.relative_to(TEMPLATES)))
    assert wrong == []

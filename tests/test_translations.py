"""Complete Traditional Chinese (DESIGN §14): every message in the catalogue is translated, none
fuzzy, placeholders kept; the compiled .mo says what the .po says; and the source holds no
message the catalogue lacks."""
import ast
import gettext
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

LOCALE = Path(settings.BASE_DIR) / "locale"
PO = LOCALE / "zh_Hant" / "LC_MESSAGES" / "django.po"
MO = PO.with_suffix(".mo")
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|\{\{ ?\w+ ?\}\}|%[sd]|\{\w*\}")


def entries(po: Path) -> list[dict]:
    """Each entry of a .po file: msgctxt, msgid, msgid_plural, msgstr (a list), flags, where."""
    found = []
    for block in po.read_text(encoding="utf-8").split("\n\n"):
        entry, field = {"msgstr": [], "flags": set(), "where": ""}, None
        for line in block.splitlines():
            if line.startswith("#,"):
                entry["flags"] |= {flag.strip() for flag in line[2:].split(",")}
            elif line.startswith("#:") and not entry["where"]:
                entry["where"] = line[2:].strip()
            elif match := re.match(r"^(msgctxt|msgid_plural|msgid|msgstr(?:\[\d+\])?) (\".*\")$", line):
                field = match.group(1)
                text = ast.literal_eval(match.group(2))
                if field.startswith("msgstr"):
                    entry["msgstr"].append(text)
                else:
                    entry[field] = text
            elif line.startswith('"') and field:
                text = ast.literal_eval(line)
                if field.startswith("msgstr"):
                    entry["msgstr"][-1] += text
                else:
                    entry[field] += text
        if entry.get("msgid"):  # the header has an empty msgid
            found.append(entry)
    return found


def problems(po: Path) -> list[str]:
    found = []
    for e in entries(po):
        name = f"{e['msgid']!r} ({e['where']})"
        if "fuzzy" in e["flags"]:
            found.append(f"fuzzy: {name}")
        elif not e["msgstr"] or not all(e["msgstr"]):
            found.append(f"untranslated: {name}")
        # zh-Hant has one plural form: it serves every count, so it keeps the plural's placeholders.
        elif sorted(PLACEHOLDER.findall(e.get("msgid_plural", e["msgid"]))) != sorted(
                PLACEHOLDER.findall(e["msgstr"][0])):
            found.append(f"placeholders differ: {name} → {e['msgstr'][0]!r}")
    return found


def test_every_message_in_the_catalogue_is_translated_and_none_is_fuzzy():
    assert problems(PO) == []


def test_the_checker_finds_an_untranslated_a_fuzzy_and_a_broken_entry(tmp_path):
    po = tmp_path / "django.po"
    po.write_text('msgid ""\nmsgstr ""\n\n'
                  '#: a.py:1\nmsgid "Approve"\nmsgstr ""\n\n'
                  '#, fuzzy\nmsgid "Rejected"\nmsgstr "拒絕"\n\n'
                  'msgid "Approve %(total)s"\nmsgstr "核准"\n\n'
                  'msgctxt "request state"\nmsgid "Draft"\nmsgstr "草稿"\n', encoding="utf-8")

    assert problems(po) == ["untranslated: 'Approve' (a.py:1)", "fuzzy: 'Rejected' ()",
                            "placeholders differ: 'Approve %(total)s' () → '核准'"]


def test_the_compiled_catalogue_says_what_the_po_says():
    with MO.open("rb") as compiled:
        catalog = gettext.GNUTranslations(compiled)._catalog
    expected = {}
    for e in entries(PO):
        key = f"{e['msgctxt']}\x04{e['msgid']}" if "msgctxt" in e else e["msgid"]
        if "msgid_plural" in e:
            expected |= {(key, n): text for n, text in enumerate(e["msgstr"])}
        else:
            expected[key] = e["msgstr"][0]
    compiled_messages = {key: text for key, text in catalog.items() if key != ""}

    assert compiled_messages == expected, "run: manage.py compilemessages -l zh_Hant --ignore=.venv"


def test_the_source_holds_no_message_the_catalogue_lacks(tmp_path, settings):
    """makemessages on a mirror of the source, merged into a copy of the catalogue."""
    base = Path(settings.BASE_DIR)
    for child in base.iterdir():
        if child.name not in {"locale", "var"} and not child.name.startswith("."):
            (tmp_path / child.name).symlink_to(child)
    copy = tmp_path / "locale" / "zh_Hant" / "LC_MESSAGES"
    copy.mkdir(parents=True)
    (copy / "django.po").write_bytes(PO.read_bytes())
    settings.LOCALE_PATHS = []
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        call_command("makemessages", locale=["zh_Hant"], symlinks=True, ignore_patterns=["var"],
                     verbosity=0)

    missing = [p for p in problems(copy / "django.po") if p.startswith("untranslated")]
    assert missing == [], "run makemessages, then /work/tools/po_fill.py and compilemessages (TEAM.md)"

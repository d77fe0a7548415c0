"""What the hearing knows by name, read from the database: the catalogue's items and their
aliases, the accessory words and the suppliers' other names (procurement.purchase.catalogue);
and the departments.

The catalogue and the departments are read in each turn's one vocabulary query (`catalogue`):
the items somebody quotes today, every word of the vocabulary and every department, as one union,
never cached, so an item, an alias or a department added in the admin is heard in the next
message in every process, at no query more than before.

A department is heard by its code (ENG), its name as stored (an admin's 「採購部」 or "Legal"),
and its name in each language the pages show it in (Engineering / 工程部). The demo's two carry
a few more words people use for them (研發部, 維運)."""
import re
from types import SimpleNamespace

from django.db.models import CharField, IntegerField, Value

from procurement.words.labels import department_label
from procurement.models import Department, Membership, Quote
from procurement.purchase import catalogue as words_table
from procurement.purchase import pricing
from procurement.words.phrases import language

QUOTED, DEPARTMENT, MEMBER = "quoted", "department", "member"


class Catalogue(tuple):
    """The items somebody quotes today, by name (a tuple, as the hearing has always had it), with
    `words`: the vocabulary they and the other catalogue items are heard by, and `departments`:
    {code: pattern} of every department (see `departments`)."""

    def __new__(cls, names=(), words: pricing.Vocabulary | None = None, departments: dict | None = None):
        made = super().__new__(cls, names)
        made.words, made.departments, made.department_rows = words, departments, None
        return made


def catalogue(today, member=None) -> Catalogue:
    """The items quoted on `today`, the catalogue's words and the departments, in one query; with
    `member`, also the codes of the departments that person files for (Membership, the authority
    on it), as `member_of`."""
    text, number = CharField(), IntegerField()
    quoted = (Quote.objects.filter(valid_until__gte=today)
              .values_list(Value(QUOTED, output_field=text), "item", Value("", output_field=text),
                           Value(0, output_field=number)))
    named = Department.objects.values_list(Value(DEPARTMENT, output_field=text), "code", "name",
                                           Value(0, output_field=number))
    hers = [Membership.objects.filter(user=member, department__isnull=False).values_list(
        Value(MEMBER, output_field=text), "department__code", Value("", output_field=text),
        Value(0, output_field=number))] if member is not None else []
    rows = list(words_table.word_rows(quoted, named, *hers))
    known = {code: SimpleNamespace(code=code, name=name) for kind, code, name, _o in rows if kind == DEPARTMENT}
    made = Catalogue(sorted({name for kind, name, _w, _o in rows if kind == QUOTED}), words_table.vocabulary_of(rows),
                     table(known.values()))
    made.department_rows = known
    made.member_of = tuple(sorted({code for kind, code, _w, _o in rows if kind == MEMBER}))
    return made


def department_row(code: str, catalogue=()):
    """The department `code` (its code and name) as the turn's vocabulary query read it; None if
    the catalogue did not read the departments or none has that code."""
    return (getattr(catalogue, "department_rows", None) or {}).get(code)


def read_departments(catalogue=()) -> bool:
    """Whether `catalogue` carries every department (the turn's vocabulary query read them)."""
    return getattr(catalogue, "department_rows", None) is not None


def items() -> pricing.Vocabulary:
    """The catalogue's words, read now (one query): for a caller that has no turn's catalogue."""
    return words_table.vocabulary()


def words_of(catalogue=()) -> pricing.Vocabulary:
    """The vocabulary a catalogue carries; a bare tuple of names carries none, so it is read."""
    words = getattr(catalogue, "words", None)
    return words if words is not None else items()


def match_item(text: str, catalogue=()) -> str | None:
    """The catalogue item `text` names (pricing.match_item, with the catalogue's words), or None."""
    return pricing.match_item(text, words_of(catalogue), catalogue)


def item_words(item: str, catalogue=()) -> list[str]:
    """The words `item` is heard by, longest first."""
    return words_of(catalogue).words(item)

# More words for the demo's departments (DESIGN §10), beside their codes and names.
ALIASES = {"ENG": (r"工程(?!師)", "研發部"), "OPS": ("營運", "維運")}


def departments(catalogue=()) -> dict:
    """{code: pattern}: each department's words, as the turn's vocabulary query read them; a bare
    tuple of names carries none, so the departments are read now (one query)."""
    known = getattr(catalogue, "departments", None)
    return known if known is not None else table(Department.objects.only("code", "name"))


def table(rows) -> dict:
    """{code: pattern} for departments (anything with `code` and `name`), longest word first."""
    patterns = {}
    for department in rows:
        words = {department.code, department.name}
        for lang in ("en", "zh"):
            with language(lang):
                words.add(str(department_label(department)))
        plain = sorted((w for w in words if w), key=len, reverse=True)
        alternatives = [_word(w) for w in plain]
        patterns[department.code] = re.compile("|".join([*alternatives, *ALIASES.get(department.code, ())]),
                                               re.IGNORECASE)
    return patterns


def _word(word: str) -> str:
    """A word as a pattern: a short Latin one (IT, HR) only in its own case, so "cancel it" names
    no department; a longer one in any case (eng, Legal); Chinese as it is."""
    if not word.isascii():
        return re.escape(word)
    if len(word) <= 2:
        return rf"(?-i:\b{re.escape(word)}\b)"
    return rf"\b{re.escape(word)}\b"

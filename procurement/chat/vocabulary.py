"""What the hearing knows by name, read from the database: the departments.

A department is heard by its code (ENG), its name as stored (an admin's 「採購部」 or "Legal"),
and its name in each language the pages show it in (Engineering / 工程部). The demo's two carry
a few more words people use for them (研發部, 維運). The table is read once per process and
read again as soon as a department is saved or deleted, so one added in the admin is heard in
the next message."""
import re
from functools import lru_cache

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from procurement.words.labels import department_label
from procurement.models import Department
from procurement.words.phrases import language

# More words for the demo's departments (DESIGN §10), beside their codes and names.
ALIASES = {"ENG": (r"工程(?!師)", "研發部"), "OPS": ("營運", "維運")}


@lru_cache(maxsize=1)
def departments() -> dict:
    """{code: pattern}: each department's words, as the database has them now."""
    return table(Department.objects.only("code", "name"))


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


@receiver(post_save, sender=Department)
@receiver(post_delete, sender=Department)
def _department_changed(**kwargs):
    departments.cache_clear()


def _word(word: str) -> str:
    """A word as a pattern: a short Latin one (IT, HR) only in its own case, so "cancel it" names
    no department; a longer one in any case (eng, Legal); Chinese as it is."""
    if not word.isascii():
        return re.escape(word)
    if len(word) <= 2:
        return rf"(?-i:\b{re.escape(word)}\b)"
    return rf"\b{re.escape(word)}\b"

"""Codes in the admin's lists and filters (states, statuses, events) as words in the reader's language.

The engine knows its codes but no words for them: the app plugs in a label table for each kind of
code (procurement/admin.py), as it plugs in its transition table. A code no table names is shown
as stored; stored codes never change (DESIGN §4)."""
from collections.abc import Callable, Mapping

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

_TABLES: dict[str, Mapping | Callable] = {}


def use_labels(**tables: Mapping | Callable) -> None:
    """`use_labels(state=STATE_LABELS, actor=actor_label)`: for each kind of code, a table of words
    (code -> text) or a function of the code."""
    _TABLES.update(tables)


def word(kind: str, code) -> str:
    """`code` in words, by the table plugged in for `kind`; as stored when there is none."""
    if code is None or code == "":
        return ""
    table = _TABLES.get(kind, {})
    return str(table(code) if callable(table) else table.get(code, code))


def column(field: str, kind: str, description) -> Callable:
    """A list column showing `field` in words; it sorts by the stored code."""
    def show(obj):
        return word(kind, getattr(obj, field))

    show.__name__ = field  # keeps the column's CSS class, field-<name>
    return admin.display(description=description, ordering=field)(show)


def coded_filter(kind: str, title=None) -> type[admin.AllValuesFieldListFilter]:
    """A list filter offering the codes present, each in words: `("state", coded_filter("state"))`;
    titled by the field's name unless `title` says otherwise."""

    class CodeFilter(admin.AllValuesFieldListFilter):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.title = title or self.title

        def choices(self, changelist):
            codes = [str(code) for code in self.lookup_choices if code is not None]
            # Django's choices: "All", one per code present (in this order), then the empty one.
            for n, choice in enumerate(super().choices(changelist)):
                if 1 <= n <= len(codes):
                    code = codes[n - 1]
                    choice = {**choice, "display": word(kind, code) + choice["display"][len(code):]}
                yield choice

    CodeFilter.__name__ = f"CodeFilter_{kind}"
    return CodeFilter


@admin.display(description=_("task"), ordering="task")
def task_column(obj) -> str:
    """A row's task, short and in words: "2e7f6c21 · Waiting for approval", never its raw state."""
    task = obj.task
    return f"{str(task.pk)[:8]} · {word('state', task.state)}" if task else ""


task_column.__name__ = "task"

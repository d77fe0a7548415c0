"""Print what the chat's rule brain hears: its intents, then its decision table in row order."""
from django.core.management.base import BaseCommand

from procurement.chat.hearing import DECISIONS, INTENTS


class Command(BaseCommand):
    help = ("Print the chat's intents (with examples in English and Traditional Chinese), then the decision "
            "table: (what the agent waits for, intent, request state) -> handler; the first row that fits and "
            "answers wins.")

    def handle(self, *args, **options):
        self._table([("intent", "means", "heard by", "examples")] + [
            (i.name, i.means, i.heard_by, " / ".join((*i.en, *i.zh))) for i in INTENTS])
        self.stdout.write("")
        self._table([("#", "waits for", "intent", "request", "handler", "note")] + [
            (str(n), r.waits_for, r.intent, r.state, r.handler, r.note) for n, r in enumerate(DECISIONS, start=1)])

    def _table(self, rows):
        widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
        for n, row in enumerate(rows):
            self.stdout.write("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip())
            if n == 0:
                self.stdout.write("  ".join("-" * w for w in widths))

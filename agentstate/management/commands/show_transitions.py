"""Print a task kind's transition table and its Mermaid diagram."""
from django.core.management.base import BaseCommand, CommandError

from agentstate.kinds import all_kinds, get_kind


class Command(BaseCommand):
    help = "Print the transition table of a task kind, then a Mermaid state diagram."

    def add_arguments(self, parser):
        parser.add_argument("kind", nargs="?", help="task kind; omit to list the kinds")

    def handle(self, *args, kind=None, **options):
        if kind is None:
            for known in all_kinds():
                self.stdout.write(known.name)
            return
        try:
            task_kind = get_kind(kind)
        except LookupError as exc:
            raise CommandError(str(exc))
        rows = [("from", "event", "to", "who may fire it", "guard", "supersedes pending approvals")]
        for t in task_kind.transitions:
            guard = getattr(t.guard, "__name__", "") if t.guard else ""
            rows.append((t.source, t.event, t.target, ", ".join(t.allowed), guard,
                         "yes" if t.supersedes_approvals else "no"))
        widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
        for n, row in enumerate(rows):
            self.stdout.write("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip())
            if n == 0:
                self.stdout.write("  ".join("-" * w for w in widths))
        self.stdout.write("")
        self.stdout.write("```mermaid")
        self.stdout.write(task_kind.mermaid())
        self.stdout.write("```")

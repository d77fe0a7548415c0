"""Apply the retention policy by hand (beat runs the same pass daily); --dry-run only says what would go."""
from django.core.management.base import BaseCommand

from agentstate.retention import state_prune


class Command(BaseCommand):
    help = ("Delete checkpoints and chat turns the retention settings let go, remove the bytes of files no kept "
            "task uses, and move conversations along by time; receipts, approvals and task events are never deleted.")

    def add_arguments(self, parser):
        parser.add_argument("--dry-run", action="store_true", help="Count what would go; change nothing.")

    def handle(self, *args, dry_run=False, **options):
        for line in state_prune(dry_run=dry_run).lines():
            self.stdout.write(line)

"""`manage.py purge_memory`: expire what ran out, then delete for real (content, history,
derived data) what the retention settings say is due. Beat runs the same pass through
agentstate.memory.sweeps.memory_maintenance."""
from django.core.management.base import BaseCommand

from agentstate.memory.sweeps import memory_expire_due, memory_purge, setting


class Command(BaseCommand):
    help = "Expire memory past valid_until and delete memory past retention (MEMORY_RETENTION_DAYS)."

    def add_arguments(self, parser):
        parser.add_argument("--dry-run", action="store_true", help="Count what would go; change nothing.")
        parser.add_argument("--expired-days", type=int, default=None,
                            help="Delete expired entries this many days after valid_until "
                                 f"(default MEMORY_EXPIRED_PURGE_DAYS, now {setting('MEMORY_EXPIRED_PURGE_DAYS')}).")

    def handle(self, *args, dry_run=False, expired_days=None, **options):
        expired = 0 if dry_run else memory_expire_due()
        counts = memory_purge(dry_run=dry_run, expired_days=expired_days)
        verb = "would delete" if dry_run else "deleted"
        self.stdout.write(f"expired {expired}")
        for rule, n in counts.items():
            self.stdout.write(f"{verb} {n} ({rule})")
        self.stdout.write(self.style.SUCCESS(f"{verb} {sum(counts.values())} memory entries in all."))

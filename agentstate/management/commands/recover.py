"""Run one recovery pass by hand: the same pass beat schedules."""
from django.core.management.base import BaseCommand

from agentstate.recovery import recovery_pass


class Command(BaseCommand):
    help = "Reclaim expired leases, resume idle runnable tasks, settle open receipts, expire approvals."

    def handle(self, *args, **options):
        report = recovery_pass()
        self.stdout.write(str(report))

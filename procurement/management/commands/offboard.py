"""`manage.py offboard USERNAME --by ADMIN [--erase]`: a person leaves (procurement/offboarding.py).

Without --erase: their account stops, their tokens are revoked, their sessions become readable by
admins only, their memory stops being used and their open requests are cancelled. With --erase,
also their own memory is deleted and every turn of their sessions redacted."""
from django.contrib.auth import get_user_model
from django.core.management import BaseCommand, CommandError

from agentstate.errors import DomainError
from procurement.people.offboarding import user_erase, user_offboard


class Command(BaseCommand):
    help = "Offboard a person (and with --erase, erase what they said and what is remembered about them)."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--by", required=True, help="The admin doing it (recorded on every event).")
        parser.add_argument("--erase", action="store_true", help="Also delete their memory and redact their turns.")

    def handle(self, *args, username, by, erase, **options):
        users = get_user_model().objects
        try:
            person, admin = users.get(username=username), users.get(username=by)
        except get_user_model().DoesNotExist as missing:
            raise CommandError(f"No such user: {missing}") from None
        try:
            report = user_erase(user=person, by=admin) if erase else user_offboard(user=person, by=admin)
        except DomainError as refused:
            raise CommandError(str(refused)) from None
        self.stdout.write(describe(report))


def describe(report) -> str:
    if hasattr(report, "turns_redacted"):
        off = f"; {describe(report.offboarded)}" if report.offboarded else ""
        return (f"{report.username}: {report.memory_deleted} memory entries deleted, "
                f"{report.turns_redacted} turns redacted, {report.notices_deleted} notices deleted, "
                f"{report.mail_redacted} mails withdrawn or blanked{off}")
    left = "".join(f"\n  left {task}: {why}" for task, why in report.tasks_left.items())
    return (f"{report.username} offboarded: {report.tokens_revoked} tokens revoked, {report.sessions_locked} sessions "
            f"locked, {report.memory_flagged} memory entries flagged, {len(report.tasks_cancelled)} tasks "
            f"cancelled{left}")

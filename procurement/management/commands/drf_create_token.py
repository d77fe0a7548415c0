"""`manage.py drf_create_token USER [-n NAME]`: a new API token for one of USER's clients (DESIGN
§10). Their other tokens keep working; `-r` revokes them first."""
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from procurement.people.tokens import token_issue, tokens_revoke


class Command(BaseCommand):
    help = "Make an API token for a user (one per client; -r revokes their others first)."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("-n", "--name", default="command line", help="which client will hold it")
        parser.add_argument("-r", "--reset", action="store_true", help="revoke the user's other tokens first")

    def handle(self, *args, username, name, reset, **options):
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"Cannot create the Token: user {username} does not exist")
        if reset:
            tokens_revoke(user=user)
        _row, key = token_issue(user=user, name=name)
        self.stdout.write(f"Generated token {key} for user {username}")

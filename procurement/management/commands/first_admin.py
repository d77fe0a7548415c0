"""`manage.py first_admin`: create the first admin from DJANGO_SUPERUSER_USERNAME, _EMAIL and
_PASSWORD (as `createsuperuser --noinput` reads them), once. Nothing to do when the variables
are unset or the user exists, so the web container may run it on every start."""
import os

from django.contrib.auth import get_user_model
from django.core.management import BaseCommand, call_command


class Command(BaseCommand):
    help = "Create the first admin from DJANGO_SUPERUSER_* variables, if set and not there yet."

    def handle(self, *args, **options):
        username = os.environ.get("DJANGO_SUPERUSER_USERNAME", "").strip()
        if not username:
            return
        if get_user_model().objects.filter(username=username).exists():
            self.stdout.write(f"{username} exists; nothing to do.")
            return
        call_command("createsuperuser", interactive=False, username=username,
                     email=os.environ.get("DJANGO_SUPERUSER_EMAIL", ""), verbosity=options["verbosity"])

"""`makemessages` without fuzzy matching: a guessed translation ("Reject" for "Rejected") is
worse than none, because a fuzzy entry is silently shown in English."""
from django.core.management.commands import makemessages


class Command(makemessages.Command):
    msgmerge_options = [*makemessages.Command.msgmerge_options, "--no-fuzzy-matching"]

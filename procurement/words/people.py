"""How a person is named to other people, on pages and in notices and mail alike: by the full name
their account has ("Bob Wang"), else by their username ("bob"). The one rule, for a user or a
username (the event log, an approval's route and chain keep usernames)."""
import threading
import time

from django.conf import settings
from django.core.signals import request_started
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver
from django.utils.translation import gettext as _, pgettext
from django.contrib.auth import get_user_model

# Usernames already looked up, per thread: a page names the same few people many times. Forgotten
# at each request, when an account changes in this process, and after a minute (a worker's names).
MEMO_SECONDS = 60
_memo = threading.local()


def person_label(person) -> str:
    """「Bob Wang」 for bob, who has a full name; "frank" for frank, who has none; "" for nobody."""
    if person is None or person == "":
        return ""
    if isinstance(person, str):
        return _by_username(person)
    return person.get_full_name() or person.get_username()


def people_labels(usernames) -> list[str]:
    return [person_label(username) for username in usernames or ()]


def remember(usernames) -> None:
    """Look up, in one query, the names of these people a page is about to show."""
    names = _names()
    wanted = {name for name in usernames if name and name not in names}
    if not wanted:
        return
    for user in get_user_model().objects.filter(username__in=wanted).only("username", "first_name", "last_name"):
        names[user.get_username()] = person_label(user)
    names.update((name, name) for name in wanted - names.keys())


def _by_username(username: str) -> str:
    names = _names()
    if username not in names:
        user = get_user_model().objects.filter(username=username).first()
        names[username] = person_label(user) if user is not None else username
    return names[username]


def _names() -> dict:
    now = time.monotonic()
    if getattr(_memo, "since", 0) < now - MEMO_SECONDS:
        _memo.names, _memo.since = {}, now
    return _memo.names


def forget(**kwargs):
    _memo.names, _memo.since = {}, time.monotonic()


request_started.connect(forget, dispatch_uid="people-forget-per-request")


@receiver(post_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="people-forget-on-save")
@receiver(post_delete, sender=settings.AUTH_USER_MODEL, dispatch_uid="people-forget-on-delete")
def _account_changed(sender, **kwargs):
    forget()


def approvers_words(people, stand_ins=()) -> str:
    """Whom an approval waits on, in the same words on every page, in the chat, mail and notices:
    each person by name, and each delegate whose delegation runs today on behalf of that person:
    「Bob Wang 或 Dave Huang（代 Bob Wang）」 / "Bob Wang or Dave Huang on behalf of Bob Wang".
    `people` are usernames or users; `stand_ins` are (delegator, delegate) pairs."""
    named = []
    for person in people or ():
        named.append(person_label(person))
        key = person if isinstance(person, str) else person.get_username()
        named += [on_behalf_words(delegate, person) for delegator, delegate in stand_ins if delegator == key]
    return pgettext("between names", " or ").join(named)


def on_behalf_words(delegate, person) -> str:
    """「Dave Huang（代 Bob Wang）」 / "Dave Huang on behalf of Bob Wang"."""
    return _("%(delegate)s on behalf of %(person)s") % {"delegate": person_label(delegate),
                                                        "person": person_label(person)}


def stand_in_words(person: str, stand_ins) -> str:
    """One person of a step and whoever stands in for them today (approvers_words)."""
    return approvers_words([person], stand_ins)

"""Who may do what, as one table (DESIGN §9): every page, API endpoint and chat action, tried by
every role, as owner or not. Not visible: 404; visible but not allowed: 403; signed out: 302 to
the sign-in page (pages) or 401 (API).

The objects are alice's (an ENG requester): her request, the approval routed for it to bob and
frank, her conversation, and an ENG department memory entry. wendy (OPS) watches alice's request.
A URL added to the URLconf without a row here fails `test_every_url_has_a_row`.

dan stands in for bob this week; ed stood in for bob last month."""
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from agentstate.approvals import approval_open
from agentstate.memory.services import memory_create
from agentstate.models import Session
from procurement.purchase import services
from procurement.models import Delegation, Department, Membership
from procurement.people.tokens import token_issue
from procurement.selectors import grants

pytestmark = pytest.mark.django_db

#            requester, colleague (ENG), requester elsewhere (OPS), manager (ENG), manager elsewhere (OPS),
#            director (all), watcher (OPS), delegate of bob inside its dates (OPS), delegate of bob
#            outside its dates (OPS), admin, anonymous
ROLES = ("alice", "gina", "erin", "bob", "dave", "frank", "wendy", "dan", "ed", "carol", "anon")
HX = {"HTTP_HX_REQUEST": "true"}
NO_FILE = "00000000-0000-4000-8000-000000000000"  # an id nothing has

# (url name, method, url arguments, body, expected status per role, in ROLES order)
PAGES = [
    ("home", "get", "", None, "200 200 200 302 302 302 200 302 200 302 302"),
    ("my-requests", "get", "", None, "200 200 200 200 200 200 200 200 200 200 302"),
    ("request-new", "get", "", None, "200 200 200 200 200 200 200 200 200 200 302"),
    ("request-new", "post", "", {}, "400 400 400 400 400 400 400 400 400 400 302"),
    ("chat-sessions", "get", "", None, "200 200 200 200 200 200 200 200 200 200 302"),
    ("chat-new", "post", "", {}, "302 302 302 302 302 302 302 302 302 302 302"),
    ("invoices", "get", "", None, "403 403 403 403 403 403 403 403 403 200 302"),
    ("invoice-export", "get", "xlsx", None, "403 403 403 403 403 403 403 403 403 200 302"),
    ("invoice-new", "get", "task", None, "403 404 404 403 404 403 403 403 404 409 302"),
    # The 採購單 PDF: whoever may see the request (none yet: no purchase order, 409), and accounts payable.
    ("task-po-pdf", "get", "task", None, "409 404 404 409 404 409 409 409 404 409 302"),
    ("chat-page", "get", "session", None, "200 404 404 404 404 404 404 404 404 404 302"),
    ("chat-message", "post", "session", {"text": ""}, "400 404 404 404 404 404 404 404 404 404 302"),
    ("task-page", "get", "task", None, "200 404 404 200 404 200 200 200 404 200 302"),
    ("task-amend", "post", "task", {}, "400 404 404 403 404 403 403 403 404 403 302"),
    ("task-cancel", "post", "task", {"reason": "x" * 5000}, "400 404 404 403 404 403 403 403 404 400 302"),
    ("task-watchers", "post", "task", {"username": ""}, "400 404 404 403 404 403 403 403 404 403 302"),
    # Receiving (驗收): the requester or a member of her department; her request is not ordered yet (409).
    ("task-receive", "post", "task", {}, "409 404 404 409 404 403 403 403 404 403 302"),
    # Closing the rest short: a manager deciding for the department, or accounts payable (the API's
    # rule); anyone else who sees the request 403. Nothing is ordered yet, so for them 409.
    ("task-close-short", "post", "task", {}, "403 404 404 409 404 409 403 403 404 409 302"),
    ("task-replay", "post", "task", {}, "403 404 404 403 404 403 403 403 404 400 302"),
    ("task-rewind", "post", "task", {}, "403 404 404 403 404 403 403 403 404 400 302"),
    ("task-fork", "post", "task", {}, "403 404 404 403 404 403 403 403 404 400 302"),
    # Pausing goes through: each role tries it on a request of alice's made for the try ("fresh").
    ("task-pause", "post", "fresh-task", {}, "302 404 404 403 404 403 403 404 404 302 302"),
    # Resuming depends on the state: a manager resumes a request in review, so for one that is not
    # paused (nor in review) the requester, the managers and the admin hear 409, a watcher 403.
    ("task-resume", "post", "fresh-task", {}, "409 404 404 409 404 409 403 404 404 409 302"),
    ("delegations", "get", "", None, "404 404 404 200 200 200 404 200 404 200 302"),
    ("delegation-end", "post", "fresh-delegation", {}, "404 404 404 404 302 404 404 404 404 302 302"),
    ("chat-attachment", "post", "session", {}, "400 404 404 404 404 404 404 404 404 404 302"),
    ("task-quote-sheet", "get", "task", None, "405 405 405 405 405 405 405 405 405 405 302"),
    ("task-quote-sheet", "post", "task", {}, "400 404 404 403 404 403 403 403 404 403 302"),
    ("artifact-download", "get", "task 00000000-0000-4000-8000-000000000000", None, "404 404 404 404 404 404 404 404 404 404 302"),
    ("approval-inbox", "get", "", None, "200 200 200 200 200 200 200 200 200 200 302"),
    ("approval-export", "get", "csv", None, "200 200 200 200 200 200 200 200 200 200 302"),
    ("approval-page", "get", "approval", None, "404 404 404 200 404 200 404 200 404 200 302"),
    ("approval-decide", "post", "approval", {}, "404 404 404 400 404 400 404 400 404 403 302"),
    ("notices", "get", "", None, "200 200 200 200 200 200 200 200 200 200 302"),
    # API tokens: each lists her own; only alice revokes alice's token, for anyone else it does not exist.
    ("api-tokens", "get", "", None, "200 200 200 200 200 200 200 200 200 200 302"),
    ("api-token-revoke", "post", "fresh-token", {}, "302 404 404 404 404 404 404 404 404 404 302"),
    ("notices-read", "post", "", {}, "400 400 400 400 400 400 400 400 400 400 302"),
    ("review-queue", "get", "", None, "404 404 404 200 200 200 404 404 404 200 302"),
    ("review-action", "post", "task retry", {}, "404 404 404 400 404 400 404 404 404 400 302"),
    ("memory-list", "get", "", None, "200 200 200 200 200 200 200 200 200 200 302"),
    ("memory-entry", "get", "entry", None, "200 200 404 200 404 200 404 404 404 200 302"),
    ("memory-correct", "post", "entry", {}, "403 403 404 400 404 403 404 404 404 400 302"),
    ("memory-confirm", "post", "entry", {}, "403 403 404 302 404 403 404 404 404 302 302"),
    ("memory-delete", "get", "entry", None, "403 403 404 200 404 403 404 404 404 200 302"),
    ("memory-delete", "post", "entry", {}, "403 403 404 400 404 403 404 404 404 400 302"),
]
API = [
    ("api:session-list", "post", "", {}, "201 201 201 201 201 201 201 201 201 201 401"),
    ("api:session-detail", "get", "session", None, "200 404 404 404 404 404 404 404 404 200 401"),
    ("api:session-messages", "post", "session", {"text": ""}, "400 404 404 404 404 404 404 404 404 404 401"),
    ("api:task-list", "get", "", None, "200 200 200 200 200 200 200 200 200 200 401"),
    ("api:task-list", "post", "", {}, "400 400 400 400 400 400 400 400 400 400 401"),
    ("api:task-detail", "get", "task", None, "200 404 404 200 404 200 200 200 404 200 401"),
    ("api:task-detail", "patch", "task", {}, "400 404 404 403 404 403 403 403 404 403 401"),
    ("api:task-cancel", "post", "task", {"reason": "x" * 5000}, "400 404 404 403 404 403 403 403 404 400 401"),
    ("api:task-watchers", "get", "task", None, "200 404 404 200 404 200 200 200 404 200 401"),
    ("api:task-watchers", "post", "task", {"username": ""}, "400 404 404 403 404 403 403 403 404 403 401"),
    # A member of her department (gina) reads and records her goods; closing short is for a manager or AP.
    ("api:task-receipts", "get", "task", None, "200 200 404 200 404 200 200 200 404 200 401"),
    ("api:task-receipts", "post", "task", {}, "400 400 404 400 404 403 403 403 404 403 401"),
    ("api:task-close", "post", "task", {}, "403 403 404 400 404 400 403 403 404 400 401"),
    # Supplier invoices are accounts payable's (carol): a requester or manager is refused; on a request
    # with no purchase order yet there is nothing to invoice (409).
    ("api:invoice-list", "get", "", None, "200 200 200 200 200 200 200 200 200 200 401"),  # each sees his own
    # An empty body is refused as such (400); with a request named, who may not see it gets 404 and who sees
    # it but is not accounts payable 403 (tests/procurement/invoicing).
    ("api:invoice-list", "post", "", {}, "400 400 400 400 400 400 400 400 400 400 401"),
    ("api:invoice-detail", "get", NO_FILE, None, "404 404 404 404 404 404 404 404 404 404 401"),
    ("api:task-watcher", "delete", "task gina", None, "404 404 404 403 404 403 403 403 404 403 401"),
    ("api:task-checkpoints", "get", "task", None, "200 404 404 200 404 200 200 200 404 200 401"),
    ("api:task-replay", "post", "task", {}, "403 404 404 403 404 403 403 403 404 400 401"),
    ("api:task-rewind", "post", "task", {}, "403 404 404 403 404 403 403 403 404 400 401"),
    ("api:task-fork", "post", "task", {}, "403 404 404 403 404 403 403 403 404 400 401"),
    ("api:task-pause", "post", "fresh-task", {}, "200 404 404 403 404 403 403 404 404 200 401"),
    ("api:task-resume", "post", "fresh-task", {}, "409 404 404 409 404 409 403 404 404 409 401"),
    ("api:session-attachments", "post", "session", {}, "415 404 404 404 404 404 404 404 404 404 401"),
    ("api:delegation-list", "get", "", None, "200 200 200 200 200 200 200 200 200 200 401"),
    ("api:delegation-list", "post", "", {}, "400 400 400 400 400 400 400 400 400 400 401"),
    ("api:delegation-detail", "delete", "fresh-delegation", None, "404 404 404 404 204 404 404 404 404 204 401"),
    ("api:request-list", "get", "", None, "200 200 200 200 200 200 200 200 200 200 401"),
    ("api:approval-list", "get", "", None, "200 200 200 200 200 200 200 200 200 200 401"),
    ("api:approval-detail", "get", "approval", None, "404 404 404 200 404 200 404 200 404 200 401"),
    ("api:approval-decision", "post", "approval", {}, "404 404 404 400 404 400 404 400 404 403 401"),
    ("api:auth-token", "post", "", {}, "400 400 400 400 400 400 400 400 400 400 400"),
    ("api:auth-token-list", "get", "", None, "200 200 200 200 200 200 200 200 200 200 401"),
    ("api:auth-token-detail", "delete", "fresh-token", None, "204 404 404 404 404 404 404 404 404 404 401"),
    ("api:notification-list", "get", "", None, "200 200 200 200 200 200 200 200 200 200 401"),
    ("api:schema", "get", "", None, "200 200 200 200 200 200 200 200 200 200 200"),  # public, like the docs
    ("api:memory-list", "get", "", None, "200 200 200 200 200 200 200 200 200 200 401"),
    ("api:memory-list", "post", "", {}, "400 400 400 400 400 400 400 400 400 400 401"),
    ("api:memory-detail", "get", "entry", None, "200 200 404 200 404 200 404 404 404 200 401"),
    ("api:memory-detail", "patch", "entry", {}, "403 403 404 400 404 403 404 404 404 400 401"),
    ("api:memory-confirm", "post", "entry", {}, "403 403 404 200 404 403 404 404 404 200 401"),
    ("api:memory-delete-preview", "get", "entry", None, "403 403 404 200 404 403 404 404 404 200 401"),
    # A deletion goes through: each role tries it on an entry of its own making ("fresh").
    ("api:memory-detail", "delete", "fresh", {}, "403 403 404 204 404 403 404 404 404 204 401"),
    ("api:review-queue", "get", "", None, "200 200 200 200 200 200 200 200 200 200 401"),
    ("api:review-action", "post", "task retry", {}, "403 404 404 400 404 400 403 403 404 400 401"),
]
# The chat's actions, each said in the role's own conversation about alice's request: only its
# requester is answered about it or may act on it; for anyone else it does not exist.
CHAT = [
    ("status", "what is the status of {number}?"),
    ("attach", "continue {number}"),
    ("cancel", "cancel {number}"),
]
# Routes that show or change nothing of anyone's: the same for every role, tested where they live.
NOT_OBJECTS = {
    "healthz": "test_api_health.py", "login": "test_signin.py", "logout": "test_signin.py",
    "password_change": "django.contrib.auth", "password_change_done": "django.contrib.auth",
    "password_reset": "django.contrib.auth", "password_reset_done": "django.contrib.auth",
    "password_reset_confirm": "django.contrib.auth", "password_reset_complete": "django.contrib.auth",
    "oidc_authentication_init": "test_signin_directory.py", "oidc_authentication_callback": "test_signin_directory.py",
    "oidc_logout": "mozilla_django_oidc", "set_language": "test_pages_basics.py",
}


def _url_names(patterns, namespace=""):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            if pattern.namespace == "admin":
                continue  # Django's admin: staff only, by Django
            inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
            yield from _url_names(pattern.url_patterns, inner)
        elif isinstance(pattern, URLPattern):
            yield f"{namespace}{pattern.name}"


def test_every_url_has_a_row():
    rows = {name for name, *_ in PAGES + API}
    missing = set(_url_names(get_resolver().url_patterns)) - rows - set(NOT_OBJECTS)
    assert not missing, f"no row in the permission matrix for: {sorted(missing)}"


@pytest.fixture
def world(demo):
    eng, ops = Department.objects.get(code="ENG"), Department.objects.get(code="OPS")
    people = dict(demo)
    for name, department in (("gina", eng), ("wendy", ops), ("dan", ops), ("ed", ops)):
        people[name] = type(demo["alice"]).objects.create_user(name, password="demo", email=f"{name}@example.com")
        Membership.objects.create(user=people[name], department=department, role=Membership.Role.REQUESTER)
    task = services.request_submit(requester=demo["alice"], department="ENG", justification="new hire",
                                   lines=[{"description": "Laptop", "quantity": 1}])
    grants.watcher_add(task=task, by=demo["alice"], username="wendy")
    approval = approval_open(task=task, scope={"total": "36750.00"}, approvers=[demo["bob"], demo["frank"]],
                             rule={"rule": "manager"}, ttl_seconds=3600)
    today = timezone.localdate()
    Delegation.objects.create(delegator=demo["bob"], delegate=people["dan"], starts=today - timedelta(days=1),
                              ends=today + timedelta(days=5))
    Delegation.objects.create(delegator=demo["bob"], delegate=people["ed"], starts=today - timedelta(days=40),
                              ends=today - timedelta(days=30))
    session = Session.objects.create(owner=demo["alice"], task=task)
    entry = memory_create(by=demo["carol"], scope="department", subject="ENG", kind="procedure",
                          content="Laptops come from the framework contract.")
    return {"people": people, "task": task, "approval": approval, "session": session, "entry": entry}


OBJECTS = ("task", "approval", "session", "entry", "fresh", "fresh-task", "fresh-delegation")
# alice's token, made for each try and named by its token_key (its pk is the digest, never shown).
TOKEN = "fresh-token"


def _url(name: str, target: str, world) -> str:
    if target == "fresh-task":
        world["fresh-task"] = services.request_submit(requester=world["people"]["alice"], department="ENG",
                                                      justification="new hire",
                                                      lines=[{"description": "Laptop", "quantity": 1}])
        grants.watcher_add(task=world["fresh-task"], by=world["people"]["alice"], username="wendy")
    if target == "fresh-delegation":
        world["n"] = world.get("n", 0) + 1
        start = timezone.localdate() + timedelta(days=400 + 10 * world["n"])
        world["fresh-delegation"] = Delegation.objects.create(
            delegator=world["people"]["dave"], delegate=world["people"]["erin"], starts=start, ends=start)
    if target == "fresh":
        world["fresh"] = memory_create(by=world["people"]["carol"], scope="department", subject="ENG",
                                       kind="procedure", content="Monitors come from the framework contract.")
    if target == TOKEN:
        world[TOKEN], _key = token_issue(user=world["people"]["alice"], name="laptop")
    args = []
    for part in target.split():
        args.append(world[part].pk if part in OBJECTS else world[part].token_key if part == TOKEN else part)
    kwarg = {"task": "task_id", "fresh-task": "task_id", "approval": "approval_id", "session": "session_id",
             "entry": "entry_id", "fresh-delegation": "delegation_id", NO_FILE: "version_id", TOKEN: "token_id"}
    if name.startswith("api:"):
        return reverse(name, args=[str(a) for a in args]) if args else reverse(name)
    if not args:
        return reverse(name)
    if name in ("approval-export", "invoice-export"):
        return reverse(name, kwargs={"fmt": args[0]})
    names = [kwarg.get(p, "action") for p in target.split()]
    return reverse(name, kwargs=dict(zip(names, args)))


def _client(world, role: str) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    if role != "anon":
        client.force_login(world["people"][role])
    return client


def test_the_permission_matrix(world):
    clients = {role: _client(world, role) for role in ROLES}
    wrong = []
    for name, method, target, body, expected in PAGES + API:
        for role, want in zip(ROLES, expected.split()):
            url = _url(name, target, world)
            send = getattr(clients[role], method)
            kwargs = {"content_type": "application/json"} if name.startswith("api:") and body is not None else {}
            response = send(url, body if body is not None else {}, **kwargs) if method != "get" else send(url)
            if response.status_code != int(want):
                wrong.append(f"{method.upper()} {name} as {role}: {response.status_code}, expected {want}")
    assert not wrong, "\n".join(wrong)


def test_the_chat_acts_only_for_the_requester(world):
    number = world["task"].purchase_request.number
    for action, words in CHAT:
        for role in ROLES[:-1]:
            user = world["people"][role]
            own = world["session"] if role == "alice" else Session.objects.create(owner=user)
            client = _client(world, role)
            response = client.post(reverse("api:session-messages", args=[own.pk]),
                                   {"text": words.format(number=number)}, content_type="application/json")
            assert response.status_code == 201, (action, role, response.content)
            body = response.json()
            about_it = body["task"] is not None and body["task"]["id"] == str(world["task"].pk)
            if role == "alice":
                assert about_it and body["action"] in ("status", "attach", "none"), (action, body)
            else:  # "I can't find REQ-… among your requests": what she typed, and nothing of alice's
                assert not about_it and "laptop" not in body["reply"].lower(), (action, role, body)
    world["task"].refresh_from_db()
    assert world["task"].state == "received"  # a cancel by chat asks alice to confirm first; nobody else may


def test_erin_sees_nothing_of_engs(world):
    """#12: a requester of OPS finds no trace of ENG's requests, approvals or memory in any list."""
    erin = _client(world, "erin")
    task, number = world["task"], world["task"].purchase_request.number
    lists = {"/api/v1/tasks/": "results", "/api/v1/requests/": "results", "/api/v1/approvals/": "results",
             "/api/v1/memory/": "results", "/api/v1/review-queue/": "results"}
    for url, key in lists.items():
        body = erin.get(url).json()
        assert body[key] == [] or all(row.get("subject") != "ENG" for row in body[key]), (url, body)
    for name in ("my-requests", "approval-inbox", "review-queue", "memory-list", "chat-sessions"):
        page = erin.get(reverse(name)).content.decode()
        assert number not in page and str(task.pk) not in page and "framework contract" not in page, name
    all_tab = erin.get(reverse("approval-inbox"), {"tab": "all"}).content.decode()
    assert number not in all_tab and "ENG" not in all_tab

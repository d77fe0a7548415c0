"""`manage.py seed_demo`: the demo data of DESIGN §10. Idempotent: every row is looked up by
its natural key first, so a second run creates nothing and changes nothing it already made."""
import urllib.request
from datetime import date, timedelta
from decimal import Decimal

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from procurement.celery import app
from procurement.management.demo_requests import seed_requests
from procurement.people.language import user_language_remember
from procurement.models import Department, Membership, PolicyRule, PolicyStep, Quote, Supplier
from procurement.policy.rules import policy_publish
from procurement.models.tolerance import ToleranceRule
from procurement.policy.tolerances import tolerances_publish
from procurement.selectors.grants import groups_sync
from procurement.models.taxid import validate_tax_id

PASSWORD = "demo"
YEAR_BUDGET = Decimal("20000000")

DEPARTMENTS = [
    # code, name, cost centre
    ("ENG", "Engineering", "ENG-01"),
    ("OPS", "Operations", "OPS-01"),
]

USERS = [
    # username, first name, last name, role, department code (None: all), approval limit
    ("alice", "Alice", "Lin", Membership.Role.REQUESTER, "ENG", 0),
    ("erin", "Erin", "Chen", Membership.Role.REQUESTER, "OPS", 0),
    ("bob", "Bob", "Wang", Membership.Role.MANAGER, "ENG", 100_000),
    ("dave", "Dave", "Huang", Membership.Role.MANAGER, "OPS", 100_000),
    ("frank", "Frank", "Chang", Membership.Role.DIRECTOR, None, 5_000_000),
    ("carol", "Carol", "Wu", Membership.Role.ADMIN, None, 0),
]
ADMINS = {"carol"}
# The demo's people read Traditional Chinese: their first mail (an approval for bob before he has
# ever signed in) is written in it. A choice someone already made in the page header is kept.
DEMO_LANGUAGE = "zh-hant"
# The demo has no finance person: carol, the admin, also holds the finance role (all departments),
# and enters the suppliers' invoices as accounts payable (DESIGN §10, §16).
EXTRA_ROLES = [("carol", Membership.Role.FINANCE, None, 0), ("carol", Membership.Role.ACCOUNTS_PAYABLE, None, 0)]
FINANCE_ABOVE = Decimal("1000000")
# Match tolerances (DESIGN §16): the default for anyone (no quantity tolerance, price within 1% or
# NT$10, tax within NT$1); an office-supply seller whose prices move may be off by 2% and at most
# NT$50 a unit; a chair billed one over what arrived is an exception, whoever sells it.
TOLERANCES = [
    # name, supplier 統一編號 (None: any), category, check, amount, percent, combine
    ("Any: quantity exact", None, "", "quantity", None, None, "or"),
    ("Any: price within 1% or NT$10", None, "", "price", Decimal("10"), Decimal("1"), "or"),
    ("Any: tax within NT$1", None, "", "tax", Decimal("1"), None, "or"),
    ("Any: header within NT$1 of its lines", None, "", "total", Decimal("1"), None, "or"),
    ("台北辦公用品: price within 2% and NT$50", "53094126", "", "price", Decimal("50"), Decimal("2"), "and"),
]
ESCALATE_AFTER = timedelta(days=1)

# Suppliers by their registered company names, as they appear on a Taiwanese invoice (統一發票)
# and on the pages. A supplier is matched by its 統一編號, so a database seeded when the demo used
# English names ("Hsinchu Tech Supply 新竹科技供應") keeps those rows and gains no second copy;
# they are not renamed, since awards in flight name their supplier as stored.
SUPPLIERS = [
    # name, 統一編號, email
    ("新竹科技供應股份有限公司", "24536806", "sales@hsinchu-tech.example.com"),
    ("台北辦公用品有限公司", "53094126", "orders@taipei-office.example.com"),
    ("福爾摩沙電腦股份有限公司", "90473155", "b2b@formosa-computer.example.com"),
    ("高雄辦公家具有限公司", "28741321", "service@kh-furniture.example.com"),
]

QUOTES = {
    # 統一編號: {item: (untaxed unit price TWD, lead time days)}
    # Hsinchu has the cheapest IT gear but no chairs; Kaohsiung the cheapest chair only:
    # a mixed request shows that the award goes whole to one supplier.
    "24536806": {
        "Laptop": (34900, 5), "Monitor": (6400, 3), "Keyboard": (1550, 2), "USB-C dock": (3150, 4),
    },
    "53094126": {
        "Laptop": (35800, 10), "Monitor": (6600, 5), "Keyboard": (1450, 3), "USB-C dock": (3300, 6),
        "Office chair": (8500, 7),
    },
    "90473155": {
        "Laptop": (35200, 7), "Monitor": (6550, 4), "Keyboard": (1500, 4), "USB-C dock": (3250, 5),
        "Office chair": (8800, 12),
    },
    "28741321": {
        "Office chair": (8200, 14),
    },
}


def one_year_after(day: date) -> date:
    try:
        return day.replace(year=day.year + 1)
    except ValueError:  # 29 February
        return day.replace(year=day.year + 1, day=28)


class Command(BaseCommand):
    help = ("Create the demo departments, users (password 'demo'), suppliers and quotes; with --requests "
            "also requests at every stage after the purchase order (needs the ERP simulator); safe to rerun.")

    def add_arguments(self, parser):
        parser.add_argument("--requests", action="store_true",
                            help="also make the demo requests past the PO, through the ERP at ERP_URL")

    def handle(self, *args, **options):
        self.created = self.found = 0
        with transaction.atomic():
            departments = self.seed_departments()
            self.seed_users(departments)
            self.seed_suppliers_and_quotes()
            self.seed_policy(departments)
            self.seed_tolerances()
        if options["requests"]:
            self.seed_requests()
        self.stdout.write(self.style.SUCCESS(f"Demo data: {self.created} created, {self.found} already there."))

    def report(self, created: bool, what: str):
        if created:
            self.created += 1
        else:
            self.found += 1
        self.stdout.write(f"{'created' if created else 'found  '} {what}")

    def seed_departments(self) -> dict[str, Department]:
        departments = {}
        for code, name, cost_centre in DEPARTMENTS:
            department, created = Department.objects.get_or_create(
                code=code, defaults={"name": name, "cost_centre": cost_centre, "budget_total": YEAR_BUDGET})
            self.report(created, f"department {code}")
            departments[code] = department
        return departments

    def seed_users(self, departments: dict[str, Department]):
        User = get_user_model()
        for username, first, last, role, code, limit in USERS:
            user, created = User.objects.get_or_create(username=username, defaults={
                "first_name": first, "last_name": last, "email": f"{username}@example.com",
                "is_staff": username in ADMINS, "is_superuser": username in ADMINS})
            if created:  # never reset the password of a user who already exists
                user.set_password(PASSWORD)
                user.save(update_fields=["password"])
            self.report(created, f"user {username}")
            if user_language_remember(user=user, language=DEMO_LANGUAGE):
                self.stdout.write(f"set      {username}'s language to {DEMO_LANGUAGE}")
            department = departments[code] if code else None
            _, created = Membership.objects.get_or_create(
                user=user, department=department, role=role, defaults={"approval_limit": Decimal(limit)})
            self.report(created, f"membership {username} {role} of {code or 'all departments'}")
            for extra_user, extra_role, extra_code, extra_limit in EXTRA_ROLES:
                if extra_user == username:
                    _, created = Membership.objects.get_or_create(
                        user=user, department=departments[extra_code] if extra_code else None, role=extra_role,
                        defaults={"approval_limit": Decimal(extra_limit)})
                    self.report(created, f"membership {username} {extra_role} of {extra_code or 'all departments'}")
            groups_sync(user)  # roles as groups, also for a demo database seeded before there were any
            if role == Membership.Role.MANAGER and department.manager_id is None:
                department.manager = user
                department.save(update_fields=["manager"])
                self.stdout.write(f"set      {code} manager to {username}")

    def seed_suppliers_and_quotes(self):
        today = timezone.localdate()
        for name, tax_id, email in SUPPLIERS:
            validate_tax_id(tax_id)  # get_or_create runs no field validators; a bad 統一編號 stops here
            supplier, created = Supplier.objects.get_or_create(
                tax_id=tax_id, defaults={"name": name, "email": email})
            name = supplier.name
            self.report(created, f"supplier {name} ({tax_id})")
            for item, (price, lead_time) in QUOTES[tax_id].items():
                quote, created = Quote.objects.get_or_create(supplier=supplier, item=item, defaults={
                    "unit_price": Decimal(price), "valid_until": one_year_after(today),
                    "lead_time_days": lead_time})
                self.report(created, f"quote {item} from {name}")
                if quote.valid_until < today:  # an old demo database: keep the quotes usable
                    quote.valid_until = one_year_after(today)
                    quote.save(update_fields=["valid_until"])
                    self.stdout.write(f"renewed  quote {item} from {name} until {quote.valid_until}")

    def seed_policy(self, departments: dict[str, Department]):
        """The demo policy (DESIGN §7), per department from its memberships: the manager up to their
        limit (inclusive); the manager then a director above it; finance as a third step above
        NT$1,000,000; above the directors' limit no rule matches, so the request goes to review.
        A manager step of a longer chain waiting a day is offered to the director of the next step."""
        directors = Membership.objects.filter(role=Membership.Role.DIRECTOR)
        top = max(directors.values_list("approval_limit", flat=True), default=Decimal(0))
        M, D, F = Membership.Role.MANAGER, Membership.Role.DIRECTOR, Membership.Role.FINANCE
        for code, department in departments.items():
            limit = max(department.memberships.filter(role=M).values_list("approval_limit", flat=True),
                        default=Decimal(0))
            ladder = [
                (f"{code}: manager, up to NT${limit:,.0f}", None, limit, [(M, True, None, "")]),
                (f"{code}: manager then director, over NT${limit:,.0f}", limit, FINANCE_ABOVE,
                 [(M, False, ESCALATE_AFTER, "next"), (D, True, None, "")]),
                (f"{code}: manager, director, finance, over NT${FINANCE_ABOVE:,.0f}", FINANCE_ABOVE, top,
                 [(M, False, ESCALATE_AFTER, "next"), (D, True, None, ""), (F, False, None, "")]),
            ]
            for name, over, up_to, steps in ladder:
                rule, created = PolicyRule.objects.get_or_create(name=name, defaults={
                    "department": department, "amount_over": over, "amount_up_to": up_to})
                self.report(created, f"approval rule {name}")
                for position, (role, within, escalate, backup) in enumerate(steps, start=1):
                    PolicyStep.objects.get_or_create(rule=rule, position=position, defaults={
                        "role": role, "within_limit": within, "escalate_after": escalate, "backup_role": backup})
        policy = policy_publish()
        self.stdout.write(f"approval policy v{policy.version}")

    def seed_requests(self):
        """Requests at each stage after the PO, made through the services with the agent's steps run
        at once (procurement.management.demo_requests); skipped, and said, when the ERP is not there."""
        url = settings.ERP_URL.rstrip("/")
        try:
            urllib.request.urlopen(f"{url}/_stats", timeout=3).close()
        except OSError:
            self.stdout.write(self.style.WARNING(f"skipped  demo requests: no ERP simulator answers at {url}"))
            return
        eager = app.conf.task_always_eager
        app.conf.task_always_eager = True
        try:
            seed_requests(self.report, self.stdout.write)
        finally:
            app.conf.task_always_eager = eager

    def seed_tolerances(self):
        for name, tax_id, category, check, amount, percent, combine in TOLERANCES:
            _, created = ToleranceRule.objects.get_or_create(name=name, defaults={
                "supplier": Supplier.objects.filter(tax_id=tax_id).first() if tax_id else None,
                "category": category, "figure": check, "amount": amount, "percent": percent, "combine": combine})
            self.report(created, f"match tolerance {name}")
        policy = tolerances_publish()
        self.stdout.write(f"match tolerances v{policy.version}")

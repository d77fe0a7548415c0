"""`manage.py seed_demo` gives exactly the demo of DESIGN §10, and a rerun changes nothing."""
from decimal import Decimal
from io import StringIO

import pytest
from django.contrib.auth import authenticate, get_user_model
from django.core.management import call_command
from django.utils import timezone

from procurement.models import Department, Membership, Quote, Supplier
from procurement.purchase.catalogue import vocabulary
from procurement.purchase.pricing import award

SEEDED = [get_user_model(), Department, Membership, Supplier, Quote]
ITEMS = ["Laptop", "Monitor", "Keyboard", "USB-C dock", "Office chair"]


def seed() -> str:
    out = StringIO()
    call_command("seed_demo", stdout=out)
    return out.getvalue()


@pytest.fixture(autouse=True)
def fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.mark.django_db
def test_second_run_creates_nothing_new():
    seed()
    before = {model.__name__: model.objects.count() for model in SEEDED}
    output = seed()

    assert {model.__name__: model.objects.count() for model in SEEDED} == before
    assert "0 created" in output


@pytest.mark.django_db
def test_suppliers_carry_their_registered_chinese_company_names():
    seed()
    assert sorted(Supplier.objects.values_list("name", "tax_id")) == sorted([
        ("新竹科技供應股份有限公司", "24536806"), ("台北辦公用品有限公司", "53094126"),
        ("福爾摩沙電腦股份有限公司", "90473155"), ("高雄辦公家具有限公司", "28741321")])


@pytest.mark.django_db
def test_a_database_seeded_with_the_old_english_names_gains_no_second_supplier_and_keeps_its_quotes():
    old = Supplier.objects.create(name="Hsinchu Tech Supply 新竹科技供應", tax_id="24536806",
                                  email="sales@hsinchu-tech.example.com")
    Quote.objects.create(supplier=old, item="Laptop", unit_price=Decimal("34900"), lead_time_days=5,
                         valid_until=timezone.localdate())
    output = seed()

    assert Supplier.objects.filter(tax_id="24536806").get() == old
    assert Supplier.objects.get(pk=old.pk).name == "Hsinchu Tech Supply 新竹科技供應", "awards in flight name it so"
    assert Supplier.objects.count() == 4 and old.quotes.count() == 4
    assert "found   supplier Hsinchu Tech Supply 新竹科技供應 (24536806)" in output
    assert "0 created" in seed()


@pytest.mark.django_db
def test_second_run_keeps_a_password_the_user_changed():
    seed()
    alice = get_user_model().objects.get(username="alice")
    alice.set_password("my own secret")
    alice.save()
    seed()

    assert authenticate(username="alice", password="my own secret") is not None
    assert authenticate(username="alice", password="demo") is None


@pytest.mark.django_db
def test_every_demo_item_has_at_least_two_suppliers_with_current_untaxed_twd_quotes():
    seed()
    today = timezone.localdate()
    for item in ITEMS:
        quotes = Quote.objects.filter(item=item, valid_until__gt=today, currency="TWD")
        assert quotes.values("supplier").distinct().count() >= 2, item
        assert len({q.lead_time_days for q in quotes}) >= 2, f"{item}: lead times should differ"
    laptop = Quote.objects.filter(item="Laptop").first().unit_price
    assert Decimal("30000") <= laptop <= Decimal("40000")
    assert all(len(s.tax_id) == 8 and s.tax_id.isdigit() for s in Supplier.objects.all())


@pytest.mark.django_db
@pytest.mark.parametrize("username", ["alice", "erin", "bob", "dave", "frank", "carol"])
def test_demo_users_log_in_with_password_demo(username):
    seed()

    assert authenticate(username=username, password="demo") is not None


@pytest.mark.django_db
def test_roles_limits_and_managers_are_as_designed():
    seed()
    eng = Department.objects.get(code="ENG")
    frank = Membership.objects.get(user__username="frank")

    assert eng.manager.username == "bob"
    assert Department.objects.get(code="OPS").manager.username == "dave"
    assert eng.budget_total == Decimal("20000000.00") and eng.cost_centre == "ENG-01"
    assert Membership.objects.get(user__username="bob", department=eng).approval_limit == Decimal("100000")
    assert (frank.role, frank.department, frank.approval_limit) == ("director", None, Decimal("5000000"))
    assert get_user_model().objects.get(username="carol").is_superuser
    assert not get_user_model().objects.get(username="alice").is_staff


@pytest.mark.django_db
def test_demo_quotes_make_the_award_rule_matter():
    seed()
    quotes = Quote.objects.select_related("supplier")
    lines = [{"description": "laptop", "quantity": 1}, {"description": "office chair", "quantity": 1}]
    result = award(lines, quotes, timezone.localdate(), vocabulary())
    cheapest_laptop = Quote.objects.filter(item="Laptop").order_by("unit_price").first().supplier.name

    assert result.supplier is not None
    assert result.supplier != cheapest_laptop  # the cheapest laptop seller has no chairs
    assert any(not entry["covers_all"] for entry in result.comparison)


def test_the_demo_fixture_holds_what_seeding_writes_and_logs_in(demo):
    """Tests take the demo as rows read once from seed_demo: seeding over them finds every one, and the
    next row made gets a fresh id."""
    assert "Demo data: 0 created, 46 already there." in seed()
    assert authenticate(username="alice", password="demo") == demo["alice"]
    assert demo["bob"].groups.exists()  # roles as groups came with the rows
    newcomer = get_user_model().objects.create_user("newcomer")
    assert newcomer.pk > max(user.pk for user in demo.values())


@pytest.mark.django_db
def test_every_demo_person_reads_traditional_chinese_before_ever_signing_in():
    from procurement.people.language import language_of

    seed()
    assert {u.username: language_of(u) for u in get_user_model().objects.all()} == {
        name: "zh-hant" for name in ["alice", "erin", "bob", "dave", "frank", "carol"]}


@pytest.mark.django_db
def test_a_rerun_keeps_the_language_a_person_chose_in_the_header():
    from procurement.people.language import language_of, user_language_set

    seed()
    user_language_set(user=get_user_model().objects.get(username="bob"), language="en")
    seed()
    assert language_of(get_user_model().objects.get(username="bob")) == "en"


@pytest.mark.django_db(transaction=True)
def test_bobs_first_approval_notice_on_a_fresh_demo_is_in_traditional_chinese(erp, eager, settings):
    from procurement.purchase import services
    from procurement.models import Notice

    settings.LANGUAGE_CODE = "en"  # the site's default for people nobody has set a language for
    seed()
    User = get_user_model()
    services.request_submit(requester=User.objects.get(username="alice"), department="ENG",
                            lines=[{"description": "Laptop", "quantity": 2}], justification="new hires")
    notice = Notice.objects.get(recipient__username="bob", kind="approval_new")
    assert "請您核准" in notice.text, notice.text


@pytest.mark.django_db(transaction=True)
def test_demo_requests_stand_at_every_stage_after_the_po_and_a_rerun_adds_nothing(erp, eager, settings):
    """`seed_demo --requests` (what `make run` runs once the ERP simulator is up): a new user finds
    requests at each stage after the PO, made through the services, so the ERP holds exactly one
    goods receipt per receipt and one invoice per posted invoice."""
    from agentstate.models import Approval
    from procurement.models import GoodsReceipt, PurchaseRequest
    from procurement.models.invoicing import SupplierInvoice
    from procurement.purchase.progress import progress_of, standing_words

    settings.LANGUAGE_CODE = "zh-hant"
    out = StringIO()
    call_command("seed_demo", "--requests", stdout=out)
    demo = PurchaseRequest.objects.filter(justification__startswith="示範").select_related("task")
    words = {r.justification: standing_words(r.task.state, progress_of(r.task)) for r in demo}
    invoices = {i.number: i.status for i in SupplierInvoice.objects.all()}
    posted = "示範：值班用鍵盤（已驗收、發票相符並已入帳）"

    assert words == {"示範：新進同仁的鍵盤（已下單，等待到貨）": "已下單，等待到貨",
                     "示範：三台 27 吋螢幕（部分到貨，一台刮傷）": "部分到貨（2/3）",
                     "示範：倉庫辦公椅（已驗收，等待發票）": "已驗收，等待發票",
                     "示範：會議室擴充座（發票先到，等待到貨）": "已下單，等待到貨",
                     "示範：測試機擴充座（發票數量與驗收不符，待主管簽核）": "發票待簽核",
                     posted: "已結案"}
    assert demo.get(justification=posted).task.state == "closed"
    assert invoices == {"QA20000001": "waiting_receipt", "QA20000002": "exception", "QA20000003": "posted"}
    exception = SupplierInvoice.objects.get(number="QA20000002")
    approval = Approval.objects.get(task=exception.task, status="pending")
    assert "bob" in approval.chain[0]["usernames"], approval.chain
    assert [e["kind"] for e in exception.exceptions] == ["quantity_over_received"]
    assert len(erp.goods_receipts()) == GoodsReceipt.objects.count() == 4
    assert erp.stats()["supplier_invoices"] == 1

    again = StringIO()
    call_command("seed_demo", "--requests", stdout=again)
    assert "Demo data: 0 created" in again.getvalue(), again.getvalue()
    assert PurchaseRequest.objects.count() == 6 and SupplierInvoice.objects.count() == 3
    assert len(erp.goods_receipts()) == 4 and erp.stats()["supplier_invoices"] == 1


@pytest.mark.django_db
def test_without_the_erp_the_demo_requests_are_skipped_and_said(settings):
    from procurement.models import PurchaseRequest

    settings.ERP_URL = "http://127.0.0.1:9"  # nothing listens there
    out = StringIO()
    call_command("seed_demo", "--requests", stdout=out)
    assert "skipped  demo requests: no ERP simulator answers at http://127.0.0.1:9" in out.getvalue()
    assert not PurchaseRequest.objects.exists()

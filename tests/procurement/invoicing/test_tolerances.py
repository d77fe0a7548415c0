"""Match tolerances are policy data: edited in the admin, versioned, and frozen on a PO when it is
issued, so a later edit changes no PO already out (DESIGN §16)."""
import pytest
from django.urls import reverse

from procurement.models import Supplier
from procurement.models.tolerance import TolerancePolicy, ToleranceRule
from procurement.policy.tolerances import tolerances_for
from tests.procurement.invoicing.support import ordered

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_po_is_issued_under_the_tolerances_in_force_and_keeps_them_after_an_edit(demo, erp, eager, client):
    first = ordered(demo["alice"], demo["bob"])
    frozen = first.data["purchase_order"]["tolerances"]
    assert frozen["version"] == 1
    assert frozen["lines"][0]["price"] == {"amount": "10.00", "percent": "1.00", "combine": "or"}

    rule = ToleranceRule.objects.get(name="Any: price within 1% or NT$10")
    client.force_login(demo["carol"])
    response = client.post(reverse("admin:procurement_tolerancerule_change", args=[rule.pk]), {
        "name": rule.name, "supplier": "", "category": "", "figure": "price", "amount": "0", "percent": "",
        "combine": "or"})
    assert response.status_code == 302, response.content.decode()[:2000]
    assert TolerancePolicy.objects.order_by("-version").first().version == 2

    second = ordered(demo["alice"], demo["bob"])
    assert second.data["purchase_order"]["tolerances"]["lines"][0]["price"]["amount"] == "0.00"
    first.refresh_from_db()
    assert first.data["purchase_order"]["tolerances"] == frozen


def test_the_most_specific_rule_wins_for_its_supplier(demo):
    rules = TolerancePolicy.objects.get(version=1).rules
    taipei = Supplier.objects.get(tax_id="53094126").name
    assert tolerances_for(rules, supplier=taipei, category="Monitor")["price"] == {
        "amount": "50.00", "percent": "2.00", "combine": "and"}
    assert tolerances_for(rules, supplier="someone else", category="Monitor")["price"]["combine"] == "or"
    assert tolerances_for(rules, supplier=taipei, category="Monitor")["tax"]["amount"] == "1.00"

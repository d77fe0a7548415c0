"""A supplier's 統一編號 passes its checksum wherever a supplier is saved (DESIGN §7)."""
import pytest
from django.core.exceptions import ValidationError
from django.utils import translation

from procurement.management.commands.seed_demo import SUPPLIERS
from procurement.models import Supplier


@pytest.fixture
def carol(make_user):
    return make_user("carol", is_staff=True, is_superuser=True)


def add_supplier(client, tax_id, language="zh-hant"):
    return client.post("/admin/procurement/supplier/add/", {"name": "新竹測試商行", "tax_id": tax_id, "email": ""},
                       headers={"accept-language": language})


@pytest.mark.parametrize("tax_id", [row[1] for row in SUPPLIERS] + ["04595257", "10458574"])
def test_demo_and_real_tax_ids_pass(tax_id):
    Supplier(name="x", tax_id=tax_id).clean_fields()


@pytest.mark.parametrize("tax_id", ["24536807", "12345678", "1234567", "2453680A", " 2453680"])
def test_a_wrong_check_digit_or_format_is_refused(tax_id):
    with pytest.raises(ValidationError) as refused:
        Supplier(name="x", tax_id=tax_id).clean_fields()
    assert "tax_id" in refused.value.message_dict


@pytest.mark.django_db
def test_admin_refuses_a_bad_check_digit_with_a_field_error_in_the_users_language(client, carol):
    client.force_login(carol)
    answer = add_supplier(client, "24536807")

    assert answer.status_code == 200  # the form again, not a redirect
    errors = answer.context["adminform"].form.errors
    assert errors["tax_id"] == ["24536807 不是有效的統一編號：檢查碼不符。"]
    assert not Supplier.objects.exists()


@pytest.mark.django_db
def test_admin_explains_the_format_in_english_too(client, carol):
    client.force_login(carol)
    answer = add_supplier(client, "1234", language="en")

    assert answer.context["adminform"].form.errors["tax_id"] == ["A tax ID (統一編號) is exactly 8 digits."]


@pytest.mark.django_db
def test_admin_saves_a_supplier_whose_tax_id_passes(client, carol):
    client.force_login(carol)
    answer = add_supplier(client, "24536806")

    assert answer.status_code == 302
    assert Supplier.objects.get().tax_id == "24536806"


def test_checksum_message_reads_in_zh_hant():
    with translation.override("zh-hant"):
        with pytest.raises(ValidationError) as refused:
            Supplier(name="x", tax_id="24536807").clean_fields()
        message = str(refused.value.messages[0])  # read while zh-Hant is active: the message is lazy
    assert "統一編號" in message and "檢查碼" in message


@pytest.mark.django_db
def test_admin_saves_a_supplier_whose_tax_id_is_valid_only_under_the_2023_rule(client, carol):
    client.force_login(carol)
    answer = add_supplier(client, "62140097")

    assert answer.status_code == 302
    assert Supplier.objects.get().tax_id == "62140097"

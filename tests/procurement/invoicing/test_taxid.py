"""The 統一編號 check by the Ministry of Finance's rule in force since 1 April 2023."""
import pytest
from django.core.exceptions import ValidationError

from procurement.models.taxid import is_valid_tax_id, validate_tax_id


@pytest.mark.parametrize("tax_id", ["62140097", "10458570"])
def test_numbers_valid_only_under_todays_rule_pass(tax_id):
    # 62140097 sums to 35, 10458570 (seventh digit 7) to 16 or 15: divisible by 5, not by 10.
    validate_tax_id(tax_id)
    assert is_valid_tax_id(tax_id)


@pytest.mark.parametrize("tax_id", ["24549210", "22099131", "04595257", "24536806", "10458574", "10458575",
                                    "10000079"])
def test_numbers_valid_under_the_old_rule_still_pass(tax_id):
    # 10458574 passes with the seventh digit's 10 counted as 1; 10000079 only counted as 0.
    assert is_valid_tax_id(tax_id)


@pytest.mark.parametrize("tax_id", ["24536807", "12345678", "23456777", "62140098"])
def test_a_wrong_check_digit_is_refused_as_a_checksum_error(tax_id):
    with pytest.raises(ValidationError) as refused:
        validate_tax_id(tax_id)
    assert refused.value.code == "checksum"
    assert not is_valid_tax_id(tax_id)


@pytest.mark.parametrize("tax_id", ["1234567", "123456789", "2453680A", " 2453680", "６２１４００９７", "", None])
def test_anything_but_eight_ascii_digits_is_a_format_error(tax_id):
    with pytest.raises(ValidationError) as refused:
        validate_tax_id(tax_id)
    assert refused.value.code == "format"
    assert not is_valid_tax_id(tax_id)

"""The approval policy in the admin: a change that would make rules overlap or leave a gap in
the amounts is refused, naming the rules that collide, in the admin's language; a saved change
is a new policy version and open approvals keep theirs."""
import pytest
from django.test import Client

from procurement.models import ApprovalPolicy, PolicyRule

pytestmark = pytest.mark.django_db

ADD = "/admin/procurement/policyrule/add/"


def admin_client(demo, language="en"):
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(demo["carol"])
    return client


def rule_form(demo, name, over, up_to, department="ENG", steps=(("manager", ""),)):
    from procurement.models import Department

    data = {"name": name, "department": Department.objects.get(code=department).pk if department else "",
            "category": "", "supplier": "", "amount_over": over, "amount_up_to": up_to,
            "steps-TOTAL_FORMS": str(len(steps)), "steps-INITIAL_FORMS": "0", "steps-MIN_NUM_FORMS": "1",
            "steps-MAX_NUM_FORMS": "1000"}
    for n, (role, user) in enumerate(steps):
        data |= {f"steps-{n}-position": str(n + 1), f"steps-{n}-role": role, f"steps-{n}-user": user,
                 f"steps-{n}-mode": "any", f"steps-{n}-escalate_after": "", f"steps-{n}-backup_role": ""}
    return data


@pytest.mark.parametrize("language, words", [
    ("en", "Rules “ENG: manager then director, over NT$100,000” and “ENG: overlapping” overlap"),
    ("zh-hant", "規則「ENG: manager then director, over NT$100,000」與「ENG: overlapping」重疊")])
def test_an_overlapping_rule_is_refused_naming_the_rules_it_collides_with(demo, language, words):
    before = ApprovalPolicy.objects.count()
    page = admin_client(demo, language).post(ADD, rule_form(demo, "ENG: overlapping", "500000", "600000"))
    assert page.status_code == 200 and words in page.content.decode()
    assert not PolicyRule.objects.filter(name="ENG: overlapping").exists()
    assert ApprovalPolicy.objects.count() == before


def test_a_gap_in_the_amounts_is_refused(demo):
    data = rule_form(demo, "OPS-like gap", "200000", "300000", department="")
    first = admin_client(demo).post(ADD, rule_form(demo, "Any: small", "", "100000", department=""))
    assert first.status_code == 302
    page = admin_client(demo).post(ADD, data)
    assert "leave a gap: amounts between them match no rule" in page.content.decode()
    assert not PolicyRule.objects.filter(name="OPS-like gap").exists()


def test_a_step_naming_both_a_role_and_nobody_is_refused(demo):
    data = rule_form(demo, "Any: small", "", "100000", department="", steps=(("", ""),))
    page = admin_client(demo, "zh-hant").post(ADD, data)
    assert "每一關請指定一個角色或一位人員" in page.content.decode()
    assert not PolicyRule.objects.filter(name="Any: small").exists()


def test_saving_a_rule_makes_a_new_policy_version_and_keeps_the_old(demo):
    rule = PolicyRule.objects.get(name__startswith="ENG: manager then director")
    data = rule_form(demo, rule.name, "100000", "1000000", steps=(("manager", ""), ("director", ""), ("finance", "")))
    data |= {"steps-INITIAL_FORMS": "0"}
    rule.steps.all().delete()
    page = admin_client(demo).post(f"/admin/procurement/policyrule/{rule.pk}/change/", data)
    assert page.status_code == 302, page.content.decode()[:2000]
    assert list(ApprovalPolicy.objects.values_list("version", flat=True)) == [2, 1]
    v1, v2 = ApprovalPolicy.objects.get(version=1), ApprovalPolicy.objects.get(version=2)
    steps = {r["name"]: [s["role"] for s in r["steps"]] for r in v2.rules}
    assert steps[rule.name] == ["manager", "director", "finance"]
    assert {r["name"]: [s["role"] for s in r["steps"]] for r in v1.rules}[rule.name] == ["manager", "director"]
    assert admin_client(demo).get(f"/admin/procurement/approvalpolicy/{v1.pk}/change/").status_code == 200

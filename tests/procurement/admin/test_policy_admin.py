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


# Deleting rules: refused on the confirmation page, before the button, when the rules left would
# leave a gap or an overlap; a ladder deleted whole, or its top rung, goes through as a new version.

CHANGELIST = "/admin/procurement/policyrule/"
MIDDLE = "ENG: manager then director, over NT$100,000"
BOTTOM = "ENG: manager, up to NT$100,000"


def eng_rule(rung):
    return PolicyRule.objects.get(department__code="ENG", name__startswith={
        "bottom": "ENG: manager, up to", "middle": "ENG: manager then director", "top": "ENG: manager, director"}[rung])


def delete_page(rule):
    return f"/admin/procurement/policyrule/{rule.pk}/delete/"


def bulk_delete(client, rules, confirm):
    data = {"action": "delete_selected", "_selected_action": [str(rule.pk) for rule in rules]}
    return client.post(CHANGELIST, data | ({"post": "yes"} if confirm else {}), follow=confirm)


@pytest.mark.parametrize("language, words", [
    ("en", ["Deleting “ENG: manager then director, over NT$100,000” is refused",
            "Rules “ENG: manager, up to NT$100,000” and “ENG: manager, director, finance, over NT$1,000,000” "
            "leave a gap: amounts between them match no rule.",
            "Amounts over NT$100,000, up to NT$1,000,000 would match no rule",
            "Nothing was deleted and the approval policy is unchanged."]),
    ("zh-hant", ["刪除「ENG: manager then director, over NT$100,000」遭拒",
                 "規則「ENG: manager, up to NT$100,000」與「ENG: manager, director, finance, over NT$1,000,000」之間留有空缺",
                 "適用。超過 NT$100,000\u2060（10\u00a0萬）、至 NT$1,000,000\u2060（100\u00a0萬） 的金額將不符合任何規則",
                 "沒有刪除任何規則，核准政策維持不變。"])])
def test_deleting_a_middle_rung_is_refused_before_and_after_the_click_and_nothing_moves(demo, language, words):
    rule, before = eng_rule("middle"), ApprovalPolicy.objects.count()
    client = admin_client(demo, language)
    page = client.get(delete_page(rule))
    text = page.content.decode()
    assert page.status_code == 200 and all(w in text for w in words), text
    assert 'name="post"' not in text
    posted = client.post(delete_page(rule), {"post": "yes"})
    assert posted.status_code == 200 and all(w in posted.content.decode() for w in words)
    assert PolicyRule.objects.filter(pk=rule.pk).exists() and rule.steps.count() == 2
    assert ApprovalPolicy.objects.count() == before


@pytest.mark.parametrize("language, words", [
    ("en", ["Rule “ENG: manager then director, over NT$100,000” leaves a gap: amounts from NT$0 up to where it "
            "starts match no rule.", "Amounts up to NT$100,000 would match no rule"]),
    ("zh-hant", ["規則「ENG: manager then director, over NT$100,000」留有空缺：從 NT$0",
                 "適用。不超過 NT$100,000\u2060（10\u00a0萬） 的金額將不符合任何規則"])])
def test_a_bulk_delete_that_leaves_a_gap_is_refused_and_nothing_moves(demo, language, words):
    rules, before = [eng_rule("bottom"), eng_rule("top")], ApprovalPolicy.objects.count()
    client = admin_client(demo, language)
    page = bulk_delete(client, rules, confirm=False)
    assert page.status_code == 200 and all(w in page.content.decode() for w in words), page.content.decode()
    assert 'name="post"' not in page.content.decode()
    posted = bulk_delete(client, rules, confirm=True)
    assert posted.status_code == 200 and all(w in posted.content.decode() for w in words)
    assert PolicyRule.objects.filter(pk__in=[r.pk for r in rules]).count() == 2
    assert ApprovalPolicy.objects.count() == before


def test_deleting_a_whole_ladder_at_once_goes_through_and_publishes_a_version(demo):
    rules = [eng_rule("bottom"), eng_rule("middle"), eng_rule("top")]
    client = admin_client(demo)
    page = bulk_delete(client, rules, confirm=False)
    assert 'name="post"' in page.content.decode() and "is refused" not in page.content.decode()
    done = bulk_delete(client, rules, confirm=True)
    assert done.status_code == 200 and "Successfully deleted 3 approval rules" in done.content.decode()
    assert not PolicyRule.objects.filter(department__code="ENG").exists()
    newest = ApprovalPolicy.objects.order_by("-version").first()
    assert newest.version == 2 and not any(r["department"] == "ENG" for r in newest.rules)


def test_deleting_a_rule_alone_in_its_ladder_goes_through_and_publishes_a_version(demo):
    assert admin_client(demo).post(ADD, rule_form(demo, "Any: everything", "", "", department="")).status_code == 302
    rule, versions = PolicyRule.objects.get(name="Any: everything"), ApprovalPolicy.objects.count()
    done = admin_client(demo).post(delete_page(rule), {"post": "yes"})
    assert done.status_code == 302 and not PolicyRule.objects.filter(pk=rule.pk).exists()
    assert ApprovalPolicy.objects.count() == versions + 1
    assert "Any: everything" not in {r["name"] for r in ApprovalPolicy.objects.order_by("-version").first().rules}


@pytest.mark.parametrize("language, words", [
    ("en", "With this deletion, “ENG: manager then director, over NT$100,000” is the top of its ladder and stops at "
           "NT$1,000,000: new requests above NT$1,000,000 match no rule of that ladder and go to "
           "review"),
    ("zh-hant", "刪除後，「ENG: manager then director, over NT$100,000」成為其階梯的最高一級，上限為 NT$1,000,000\u2060（100\u00a0萬）："
                "超過 NT$1,000,000\u2060（100\u00a0萬） 的新申請不符合這組階梯的任何規則，將轉為等待人工檢查")])
def test_deleting_the_top_rung_goes_through_warning_what_happens_above_the_new_top(demo, language, words):
    rule, before = eng_rule("top"), ApprovalPolicy.objects.count()
    client = admin_client(demo, language)
    page = client.get(delete_page(rule))
    assert words in page.content.decode() and 'name="post"' in page.content.decode()
    done = client.post(delete_page(rule), {"post": "yes"}, follow=True)
    assert done.status_code == 200 and words in done.content.decode()
    assert not PolicyRule.objects.filter(pk=rule.pk).exists()
    assert ApprovalPolicy.objects.count() == before + 1


def test_a_gap_opened_by_another_admin_meanwhile_refuses_the_click_in_words(demo, monkeypatch):
    """The page was checked before another change landed; the deletion itself checks again."""
    from procurement.admin import policy as policy_admin
    from procurement.policy.rules import Removal

    monkeypatch.setattr(policy_admin, "removal_check", lambda names: Removal(tuple(names), (), (), False))
    rule, before = eng_rule("middle"), ApprovalPolicy.objects.count()
    done = admin_client(demo).post(delete_page(rule), {"post": "yes"}, follow=True)
    assert done.status_code == 200 and "is refused" in done.content.decode()
    assert PolicyRule.objects.filter(pk=rule.pk).exists() and ApprovalPolicy.objects.count() == before

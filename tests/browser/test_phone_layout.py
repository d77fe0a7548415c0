"""Phone-sized screens (390×844): bob's inbox and approval page fit, every figure is in view
without sideways scrolling and he approves from there; alice's chat fits too."""
import pytest
from playwright.sync_api import expect

from agentstate.models import Approval, Session
from procurement.purchase import services

from tests.browser.conftest import ARTIFACTS

pytestmark = pytest.mark.django_db(transaction=True)
PHONE = {"width": 390, "height": 844}
FITS = "document.scrollingElement.scrollWidth"
# Every money figure's box: [text, left, right]; each must lie within the 390 px viewport.
FIGURES = "[...document.querySelectorAll('.money')].map(e => {const r = e.getBoundingClientRect(); return [e.innerText, r.left, r.right]})"


@pytest.fixture
def approval(demo, erp, eager):
    # Three lines, a six-digit total: the widest figures the page shows.
    task = services.request_submit(requester=demo["alice"], department="ENG", justification="new hires in March",
                                   lines=[{"description": "Laptop", "quantity": 2}, {"description": "Monitor", "quantity": 2},
                                          {"description": "USB-C dock", "quantity": 2}])
    return Approval.objects.get(task=task, status="pending")


def assert_fits_the_phone(page):
    assert page.evaluate(FITS) <= PHONE["width"], "the page scrolls sideways"


def test_bob_approves_on_a_phone_with_every_figure_in_view(approval, signed_in, live_server):
    bob = signed_in("bob", viewport=PHONE)
    expect(bob.get_by_role("heading", name="Approvals waiting for you")).to_be_visible()
    assert_fits_the_phone(bob)
    bob.get_by_role("link", name="Laptop × 2, Monitor × 2, USB-C dock × 2").click()
    expect(bob.get_by_text("Approving will:")).to_be_visible()
    assert_fits_the_phone(bob)
    figures = bob.evaluate(FIGURES)
    assert len(figures) >= 2 * 3 + 3  # unit price and amount per line; subtotal, tax, total
    for text, left, right in figures:
        assert 0 <= left and right <= PHONE["width"], f"{text} is cut off ({left:.0f}–{right:.0f} px)"
    bob.get_by_role("button", name="Approve").click()
    expect(bob.get_by_role("status")).to_contain_text("Decided: Approved")
    assert_fits_the_phone(bob)
    assert Approval.objects.get(pk=approval.pk).status == "approved"


def test_in_traditional_chinese_the_inbox_and_the_approval_fit_the_phone(approval, signed_in, live_server):
    bob = signed_in("bob", viewport=PHONE)
    bob.select_option("#lang", "zh-hant")
    expect(bob.get_by_role("heading", name="等待您簽核的項目")).to_be_visible()
    assert_fits_the_phone(bob)
    ARTIFACTS.mkdir(exist_ok=True)
    bob.screenshot(path=str(ARTIFACTS / "approve-inbox-zh-390.png"), full_page=True)
    bob.goto(f"{live_server.url}/approvals/{approval.pk}/")
    expect(bob.get_by_text("關於這筆請購")).to_be_visible()
    assert_fits_the_phone(bob)
    for text, left, right in bob.evaluate(FIGURES):
        assert 0 <= left and right <= PHONE["width"], f"{text} is cut off ({left:.0f}–{right:.0f} px)"
    bob.screenshot(path=str(ARTIFACTS / "approve-approval-zh-390.png"), full_page=True)
    bob.get_by_label("退回修改：需要修改什麼？（必填）").fill("只要一台就好")
    bob.get_by_role("button", name="退回修改").click()
    expect(bob.get_by_role("status")).to_contain_text("已決定：退回修改")
    # The page's own title and badge follow the decision at once, not only after a reload.
    expect(bob.get_by_role("heading", level=1)).to_have_text("簽核結果：退回修改")
    expect(bob.locator("#approval-badge")).to_have_text("退回修改")
    bob.reload()
    expect(bob.get_by_role("heading", name="簽核結果：退回修改")).to_be_visible()
    expect(bob.get_by_text("只要一台就好", exact=True)).to_be_visible()
    assert_fits_the_phone(bob)
    bob.screenshot(path=str(ARTIFACTS / "approve-decided-zh-390.png"), full_page=True)


def test_the_chat_with_its_request_panel_fits_a_phone(demo, erp, eager, signed_in, live_server):
    """Long turns, the form and the request panel (its lines, receipts and timeline) on 390 px."""
    session = Session.objects.create(owner=demo["alice"], title="laptops")
    services.request_submit(requester=demo["alice"], department="ENG", justification="new hires " + "x" * 80,
                            lines=[{"description": "Laptop", "quantity": 2}, {"description": "Monitor", "quantity": 2}],
                            session=session)
    alice = signed_in("alice", viewport=PHONE)
    alice.goto(f"{live_server.url}/chat/{session.pk}/")
    alice.get_by_label("Message", exact=True).fill("what is the status of my request? " + "y" * 80)
    alice.get_by_role("button", name="Send").click()
    expect(alice.locator(".turns li.agent")).to_have_count(1)
    expect(alice.locator("#task-panel")).to_be_visible()
    assert_fits_the_phone(alice)
    ARTIFACTS.mkdir(exist_ok=True)
    alice.screenshot(path=str(ARTIFACTS / "approve-chat-390.png"), full_page=True)


def test_the_admins_details_on_a_request_fit_the_phone_and_read_in_words(approval, demo, signed_in, live_server):
    """The event log, ERP receipts and transition table are wide; they scroll inside the panel, and
    its codes (externally_confirmed, approve_step, ...) read as labels on a zh-Hant page."""
    services.approval_decide(approval_id=approval.pk, user=demo["bob"], decision="approve",
                             state_version=approval.state_version, scope_hash=approval.scope_hash, comment="")
    carol = signed_in("carol", viewport=PHONE)  # an admin
    carol.select_option("#lang", "zh-hant")
    expect(carol.locator("html")).to_have_attribute("lang", "zh-hant")
    carol.goto(f"{live_server.url}/tasks/{approval.task_id}/")
    carol.get_by_text("詳細資料（管理員）").click()
    panel = carol.locator("details.internals")
    expect(panel.get_by_role("table").first).to_be_visible()
    carol.locator("details.internals details summary").first.click()
    assert_fits_the_phone(carol)
    text = panel.inner_text()
    for code in ("approve_step", "awaiting_approval", "externally_confirmed", "needs_review"):
        assert code not in text, code


def test_her_conversation_list_fits_a_phone_with_each_badge_on_one_line(demo, erp, eager, signed_in, live_server):
    """「已下單」, 「進行中」 and "Waiting for approval" in the narrow columns of 我的對話 used to break
    inside their pills; a conversation with a title showed an empty link."""
    session = Session.objects.create(owner=demo["alice"], title="laptops")
    services.request_submit(requester=demo["alice"], department="ENG", justification="new hires",
                            lines=[{"description": "Laptop", "quantity": 2}], session=session)
    alice = signed_in("alice", viewport=PHONE)
    for lang in ("en", "zh-hant"):
        if lang != "en":
            alice.select_option("#lang", lang)
            expect(alice.locator("html")).to_have_attribute("lang", lang)
        alice.goto(f"{live_server.url}/chat/")
        expect(alice.get_by_role("link", name="laptops")).to_be_visible()
        assert_fits_the_phone(alice)
        badges = alice.evaluate("[...document.querySelectorAll('table .badge')].map(e => "
                                "[e.innerText, e.getClientRects().length, e.getBoundingClientRect().height, "
                                "parseFloat(getComputedStyle(e).lineHeight) || 0])")
        assert len(badges) == 2
        ARTIFACTS.mkdir(exist_ok=True)
        alice.screenshot(path=str(ARTIFACTS / f"conversations-{lang}-390.png"), full_page=True)
        for text, rects, height, line in badges:
            assert rects == 1 and (not line or height < 1.6 * line), f"{text!r} wraps inside its badge ({height:.0f} px)"


# Each amount in the page's text whose letters lie on more than one line: 「NT$513,030（51.3 萬）」 must
# not end a line at 「（」 or before 「萬」, in a table or inside a sentence.
BROKEN_AMOUNTS = r"""() => { const broken = [];
  const amount = /-?NT\$[\d,.]+(?:\u2060?（-?[\d,.]+[ \u00a0]萬）)?/g;
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const found of node.data.matchAll(amount)) {
      const range = document.createRange();
      range.setStart(node, found.index);
      range.setEnd(node, found.index + found[0].length);
      const lines = new Set([...range.getClientRects()].filter(box => box.width > 0).map(box => Math.round(box.top)));
      if (lines.size > 1) broken.push(found[0]);
    } }
  return broken; }"""


def test_in_traditional_chinese_no_amount_breaks_across_lines_on_a_phone(demo, erp, eager, signed_in, live_server):
    """Sums in 萬 inside sentences (the reason it came to bob, the budget after it, the chain's rule)
    and in the tables stay on one line at 390 px (issue 27, 13)."""
    task = services.request_submit(requester=demo["alice"], department="ENG", justification="新進工程師的筆電",
                                   lines=[{"description": "Laptop", "quantity": 14}])
    approval = Approval.objects.get(task=task, status="pending")
    bob = signed_in("bob", viewport=PHONE)
    bob.select_option("#lang", "zh-hant")
    expect(bob.get_by_role("heading", name="等待您簽核的項目")).to_be_visible()
    ARTIFACTS.mkdir(exist_ok=True)
    for name, url in (("inbox", "/approvals/"), ("approval", f"/approvals/{approval.pk}/"),
                      ("request", f"/tasks/{task.pk}/")):
        bob.goto(f"{live_server.url}{url}")
        assert "萬" in bob.inner_text("main"), name
        bob.screenshot(path=str(ARTIFACTS / f"amounts-{name}-zh-390.png"), full_page=True)
        assert bob.evaluate(BROKEN_AMOUNTS) == [], name

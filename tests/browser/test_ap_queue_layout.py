"""carol's accounts payable queue in zh-Hant: at 1100 px no date, invoice number or PO number breaks
across two lines (「2026-12-」 over 「03」, 「PO-」 over 「000001」) next to a long variance, and at
390 px the same tables, as cards, still do not scroll sideways."""
import pytest
from playwright.sync_api import expect

from procurement.people.language import user_language_set
from tests.browser.conftest import ARTIFACTS
from tests.procurement.invoicing.test_ap_queue import queue  # noqa: F401  (the fixture: four invoices)

pytestmark = pytest.mark.django_db(transaction=True)
PHONE = {"width": 390, "height": 844}
FITS = "document.scrollingElement.scrollWidth"
# Each token cell of the queue's tables: [its text, the height of its text / its line height].
TOKENS = """[...document.querySelectorAll(
    '.ap-queue td:nth-child(1), .ap-queue td:nth-child(2), .ap-queue td:nth-child(4),'
    + 'table.open-pos td:nth-child(1), table.open-pos td:nth-child(2),'
    + 'table.invoices td:nth-child(1), table.invoices td:nth-child(2)')].map(cell => {
  const text = document.createRange(); text.selectNodeContents(cell);
  return [cell.innerText, text.getBoundingClientRect().height / parseFloat(getComputedStyle(cell).lineHeight)];
})"""


def test_the_queue_keeps_dates_and_numbers_on_one_line_and_fits_a_phone(demo, queue, signed_in, live_server):  # noqa: F811
    user_language_set(user=demo["carol"], language="zh-hant")
    carol = signed_in("carol")
    carol.goto(f"{live_server.url}/invoices/")
    expect(carol.locator("#queue-exceptions")).to_contain_text("發票數量 3，已驗收 2")
    ARTIFACTS.mkdir(exist_ok=True)
    carol.screenshot(path=str(ARTIFACTS / "ap-queue-1100.png"), full_page=True)
    cells = carol.evaluate(TOKENS)
    assert len(cells) >= 3 * 2 + 3 * 2, cells
    assert [(text, lines) for text, lines in cells if lines > 1.5] == []

    carol.set_viewport_size(PHONE)
    carol.reload()
    carol.screenshot(path=str(ARTIFACTS / "ap-queue-390.png"), full_page=True)
    assert carol.evaluate(FITS) <= PHONE["width"], "the queue scrolls sideways on a phone"
    assert [(text, lines) for text, lines in carol.evaluate(TOKENS) if lines > 1.5] == []


# Each queue card's label that would run past its own column into the value beside it: a label
# kept on one line (white-space: nowrap, inherited from a token cell) wider than its box.
RUN_TOGETHER = """[...document.querySelectorAll('.ap-queue td[data-label]')].filter(cell => {
  const before = getComputedStyle(cell, '::before');
  const pen = document.createElement('canvas').getContext('2d');
  pen.font = `${before.fontWeight} ${before.fontSize} ${before.fontFamily}`;
  return before.whiteSpace === 'nowrap' && pen.measureText(cell.dataset.label).width > parseFloat(before.width);
}).map(cell => cell.dataset.label + cell.innerText)"""


def test_in_english_on_a_phone_each_label_stays_apart_from_its_value(demo, queue, signed_in, live_server):  # noqa: F811
    """"Invoice numberQA20000001": a token cell's nowrap reached its label, which then ran on into the value."""
    user_language_set(user=demo["carol"], language="en")
    carol = signed_in("carol", viewport=PHONE)
    carol.goto(f"{live_server.url}/invoices/")
    expect(carol.locator("#queue-exceptions")).to_contain_text("1 unit too many")
    carol.screenshot(path=str(ARTIFACTS / "ap-queue-390-en.png"), full_page=True)
    assert carol.evaluate(RUN_TOGETHER) == []
    assert carol.evaluate(FITS) <= PHONE["width"]

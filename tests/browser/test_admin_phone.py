"""The Django admin on a phone (390×844), in Traditional Chinese: carol, on call, opens the task
list; the page does not scroll sideways, its header and actions stay in view, and each request's
number, state and department read in one line each, in words, without scrolling the table. The
admin's index and a task's page fit too."""
import pytest
from playwright.sync_api import expect

from procurement.purchase import services

from tests.browser.conftest import ARTIFACTS

pytestmark = pytest.mark.django_db(transaction=True)
PHONE = {"width": 390, "height": 844}
WIDTH = "document.scrollingElement.scrollWidth"
# The first row's cells: [column, text, left, right, height].
FIRST_ROW = """[...document.querySelectorAll('#result_list tbody tr:first-child > *')].map(
    c => {const r = c.getBoundingClientRect(); return [c.className, c.innerText, r.left, r.right, r.height]})"""


@pytest.fixture
def waiting(demo, erp, eager):
    return services.request_submit(requester=demo["alice"], department="ENG", justification="new hires",
                                   lines=[{"description": "Monitor", "quantity": 2}])


def test_carol_reads_the_task_list_on_a_phone_in_chinese(waiting, signed_in, live_server):
    carol = signed_in("carol", viewport=PHONE)
    carol.select_option("#lang", "zh-hant")
    expect(carol.locator("html")).to_have_attribute("lang", "zh-hant")
    carol.goto(f"{live_server.url}/admin/agentstate/task/")
    expect(carol.get_by_role("heading", name="選擇任務查看")).to_be_in_viewport()
    expect(carol.get_by_role("button", name="執行")).to_be_in_viewport()
    assert carol.evaluate(WIDTH) <= PHONE["width"], "the page scrolls sideways"
    cells = {name.split()[0]: (text, left, right, height) for name, text, left, right, height in carol.evaluate(FIRST_ROW)}
    number = waiting.purchase_request.number
    assert cells["field-request_number"][0] == number
    assert cells["field-state"][0] == "等待核准" and cells["field-department"][0] == "工程部"
    line = cells["field-request_number"][3]
    for column in ("field-request_number", "field-state", "field-department"):
        text, left, right, height = cells[column]
        assert 0 <= left and right <= PHONE["width"], f"{text} is out of view ({left:.0f}–{right:.0f} px)"
        assert height == line, f"{text} wraps onto more lines than the row's first cell"
    ARTIFACTS.mkdir(exist_ok=True)
    carol.screenshot(path=str(ARTIFACTS / "admin-tasks-zh-390.png"), full_page=True)

    carol.get_by_role("link", name=number).click()
    expect(carol.get_by_role("heading", name="查看 任務")).to_be_visible()
    assert carol.evaluate(WIDTH) <= PHONE["width"], "a task's page scrolls sideways"
    carol.screenshot(path=str(ARTIFACTS / "admin-task-zh-390.png"), full_page=True)

    carol.goto(f"{live_server.url}/admin/")
    expect(carol.get_by_role("link", name="採購管理後台")).to_be_visible()
    expect(carol.get_by_role("link", name="請購單", exact=True)).to_be_visible()
    assert carol.evaluate(WIDTH) <= PHONE["width"], "the admin's index scrolls sideways"
    carol.screenshot(path=str(ARTIFACTS / "admin-index-zh-390.png"), full_page=True)

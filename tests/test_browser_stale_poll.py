"""A poll overtaken by an action, in a real Chromium at 360×640: what the poll that
left before the action's answer brings back afterwards never replaces the sheet that
answer brought, nor passes for another phone's change (static/app.js,
``htmx:beforeSwap``).

The poll is held on its way (``page.route``) and let go, or handed the app's real
answer, once the action has been answered: the order is certain, not a race. Service
workers are blocked: the requests a worker sends are not the page's to hold.
"""

import re
import time

import pytest
from playwright.sync_api import expect

from matches.models import Match

from .nights import play
from .pages import without_stream
from .test_browser_table import crosses, keys

pytestmark = pytest.mark.browser

POLL = re.compile(r"/matches/\d+/sheet/\?t=")

# What the sheet shows the moment each poll's answer has been dealt with (htmx fires
# afterRequest once the answer is swapped in, or refused), from before the page's scripts.
AFTER_EACH_POLL = """
window.afterPolls = [];
document.addEventListener("htmx:afterRequest", (event) => {
  if (event.detail.elt.matches("[data-poll]")) {
    window.afterPolls.push({
      status: event.detail.xhr.status,
      version: document.getElementById("sheet").dataset.version,
      crosses: document.getElementById("crosses-title").textContent,
    });
  }
});
"""


def until(page, check, timeout=10):
    """Wait until ``check()`` holds. A route's handler runs only while Playwright is
    waited on, so this waits on the page, in short steps: a sleep would hold it up."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "not within the time allowed"
        page.wait_for_timeout(20)


def holding_the_next_poll(page):
    """The page's next poll, kept on its way to the app: the list gets its route, to
    fetch the app's answer from, fulfil or let go on later. Every later poll goes by."""
    held = []

    def hold(route):
        if held:
            route.continue_()
        else:
            held.append(route)

    page.route(POLL, hold)
    return held


def test_a_poll_that_left_before_a_tap_never_brings_back_the_older_sheet(
    phone, app, match, rui, ze
):
    page = phone(rui, service_workers="block")
    page.add_init_script(AFTER_EACH_POLL)
    page.goto(f"{app.url}/matches/{match.pk}/")
    expect(page.get_by_role("heading", name="Deal 1", exact=True)).to_be_visible()

    # Zé enters his side's 0 from his phone; Rui's next poll goes for it, and its
    # answer (that sheet) is kept on the way.
    held = holding_the_next_poll(page)
    match.record(ze, deal=1, side="b", games=0)
    older = Match.objects.version(pk=match.pk)
    until(page, lambda: held)
    [poll] = held
    answer = poll.fetch()  # the app's answer now: Zé's 0, waiting for Nós
    assert answer.status == 200
    assert f'data-version="{older}"' in answer.text()

    # Meanwhile Rui taps his side's 1, which completes deal 1: its answer is newer.
    keys(page, "Nós").get_by_text("1", exact=True).click()
    newer = older + 1
    expect(page.locator("#sheet")).to_have_attribute("data-version", str(newer))
    expect(crosses(page)).to_have_text("Nós: 1 game, Eles: 0 games.")
    assert Match.objects.version(pk=match.pk) == newer

    # The poll's answer arrives at last.
    poll.fulfill(response=answer)
    page.wait_for_function("() => afterPolls.some((poll) => poll.status === 200)")
    [after] = [poll for poll in page.evaluate("afterPolls") if poll["status"] == 200]
    assert after == {
        "status": 200,
        "version": str(newer),
        "crosses": "Nós: 1 game, Eles: 0 games.",
    }
    expect(page.get_by_role("heading", name="Deal 2", exact=True)).to_be_visible()


def test_a_poll_that_left_before_a_correction_leaves_its_answer_in_the_row(phone, app, match, ana):
    play(match, ana, ("a", 1), ("b", 2), ("b", 1))
    page = phone(ana, service_workers="block")
    page.add_init_script(AFTER_EACH_POLL)
    without_stream(page)  # nothing changes on another phone: the poll's own clock asks
    page.goto(f"{app.url}/matches/{match.pk}/")
    page.get_by_role("link", name="Correct a deal").click()
    page.locator("#fix-2-a").fill("0")
    page.locator("#fix-2-b").fill("1")

    # A poll leaves, and reaches the app only once the correction has been answered:
    # it left with the sheet before, so the app answers it with the corrected one.
    held = holding_the_next_poll(page)
    until(page, lambda: held)
    page.locator("#fix-2").click()
    result = page.locator("#fix-2-result")
    expect(result).to_have_text("Deal 2 corrected.")
    corrected = page.locator("#sheet").get_attribute("data-version")
    [poll] = held
    poll.continue_()
    page.wait_for_function("() => afterPolls.some((poll) => poll.status === 200)")
    [after] = [poll for poll in page.evaluate("afterPolls") if poll["status"] == 200]
    assert after["version"] == corrected

    # Nothing else changed the sheet: the row still says what became of its correction,
    # once every request under way has been answered.
    page.wait_for_function("() => !document.querySelector('.htmx-request')")
    assert result.text_content() == "Deal 2 corrected."
    assert page.evaluate("document.activeElement.id") == "fix-2"
    expect(crosses(page)).to_have_text("Nós: 1 game, Eles: 2 games.")


def test_corrections_read_again_under_the_hosts_typing_leave_what_was_typed(
    phone, app, match, ana, ze
):
    play(match, ana, ("a", 1), ("b", 2))
    page = phone(ana, service_workers="block")
    page.goto(f"{app.url}/matches/{match.pk}/")
    page.get_by_role("link", name="Correct a deal").click()
    expect(page.locator("#fix-2-b")).to_be_visible()

    # Zé's change reaches the sheet, and the open corrections are read again; that
    # read is held on its way while the host begins to type in a row.
    held = []
    page.route(re.compile(rf"/matches/{match.pk}/deals/$"), lambda route: held.append(route))
    match.record(ze, deal=3, side="b", games=1)
    until(page, lambda: held)
    page.locator("#fix-2-a").fill("1")
    page.locator("#fix-2-b").fill("0")
    [read_again] = held
    read_again.continue_()
    page.wait_for_function("() => !document.querySelector('.htmx-request')")
    expect(page.locator("#fix-2-a")).to_have_value("1")
    expect(page.locator("#fix-2-b")).to_have_value("0")
    # Saved, it was typed on the sheet before Zé's change: told so, nothing done.
    page.locator("#fix-2").click()
    expect(page.locator("#fix-2-result")).to_contain_text("The sheet changed since you saw it")
    assert [(deal.a, deal.b) for deal in Match.objects.get(pk=match.pk).deal_list()] == [
        (1, 0),
        (0, 2),
        (0, 1),
    ]

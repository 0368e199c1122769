"""Following the night in a real Chromium: when the host starts the next rubber, the
four phones of the table and the shared watch screen move to it by themselves.

Each phone is a 360×640 browser context (conftest's ``phone``); the watch screen is
a 1280×720 one. The test settings poll every 300 ms (conftest's ``_fast_polls``).
Screenshots go to artifacts/.
"""

import re
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect

from matches.models import Match

from .nights import play
from .pages import polls_answered, without_stream

pytestmark = pytest.mark.browser

FOLLOW = 3_000  # a few polls, then the next rubber's page
ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"


def shoot(page, name):
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / f"{name}.png")


@pytest.fixture
def screen(new_context, app):
    """A shared screen of ``width``×``height`` on a watch link: no sign-in."""

    def open_screen(token, width=1280, height=720):
        context = new_context(viewport={"width": width, "height": height})
        context.set_default_timeout(10_000)
        page = context.new_page()
        page.goto(f"{app.url}/watch/{token}/")
        return page

    return open_screen


def keys(page, label):
    return page.get_by_role("group", name=f"Games for {label}", exact=True)


def enter(page, deal, label, key):
    expect(page.get_by_role("heading", name=f"Deal {deal}", exact=True)).to_be_visible()
    keys(page, label).get_by_role("button", name=re.compile(rf"^{key} ")).click()


def test_the_table_and_the_watch_screen_follow_the_host_to_the_next_rubber(
    phone, screen, app, match, ana, rui, ze, maria
):
    phones = {}
    for name, user in (("ana", ana), ("rui", rui), ("ze", ze), ("maria", maria)):
        page = phone(user)
        page.goto(f"{app.url}/matches/{match.pk}/")
        phones[name] = page
    watch = screen(match.watch_token)
    # Marks the watch screen's document: a page load would lose it. The title is the
    # new rubber's again once the screen has moved.
    watch.evaluate("window.stillHere = true; document.title = 'The last rubber'")

    host = phones["ana"]
    enter(host, 1, "Nós", "2")  # the other side's 0 goes with it
    enter(host, 2, "Nós", "2")
    for name, page in phones.items():
        winners = "Nós" if name in ("ana", "rui") else "Eles"
        expect(page.locator(".banner")).to_contain_text(f"{winners} won the rubber, 4 to 0.")
        expect(page.get_by_role("link", name="Go to the next rubber")).to_have_count(0)
    expect(watch.locator(".banner")).to_contain_text("Ana & Rui won the rubber, 4 to 0.")

    host.get_by_role("button", name="Rematch with the same pairs").click()
    # The host's page moves with its own tap's answer; the others follow it by themselves,
    # each on the new rubber within FOLLOW of the host's page leaving the old one.
    expect(host).not_to_have_url(f"{app.url}/matches/{match.pk}/")
    deadline = time.monotonic() + FOLLOW / 1000

    def left():
        """What remains of the 3 s every screen has from the host's page moving."""
        return max(1, (deadline - time.monotonic()) * 1000)  # 0 would wait for ever

    new = Match.objects.get(previous=match).pk
    for page in phones.values():
        expect(page).to_have_url(f"{app.url}/matches/{new}/", timeout=left())
        expect(page.locator("#sheet")).to_have_attribute("data-version", "1", timeout=left())
    expect(watch.locator("[data-poll]")).to_have_attribute(
        "hx-get", f"/watch/{match.watch_token}/sheet/?rubber={new}", timeout=left()
    )
    for page in phones.values():
        expect(page.locator("#crosses-title")).to_have_text("Nós: 0 games, Eles: 0 games.")
        expect(page.get_by_role("heading", name="Deal 1", exact=True)).to_be_visible()
        expect(page.locator(".banner")).to_have_count(0)
    shoot(phones["maria"], "follow-phone")

    # The screen, without reloading: the new rubber's sheet, polling for it.
    expect(watch.locator("#crosses-title")).to_have_text("Ana & Rui: 0 games, Zé & Maria: 0 games.")
    expect(watch.locator(".banner")).to_have_count(0)
    expect(watch).to_have_title("Ana & Rui – Zé & Maria · SquareScores")
    assert watch.evaluate("window.stillHere") is True
    assert watch.url == f"{app.url}/watch/{match.watch_token}/"

    # The new rubber goes on, live on the screen as before.
    enter(phones["ze"], 1, "Nós", "1")
    expect(watch.locator("#crosses-title")).to_have_text(
        "Ana & Rui: 0 games, Zé & Maria: 1 game.", timeout=FOLLOW
    )
    shoot(watch, "follow-watch")

    # The old rubber stays readable where it was, and where its poll asks again and
    # again (its stream cut, so the fallback's own clock asks): it stays.
    without_stream(phones["rui"])
    phones["rui"].go_back()
    expect(phones["rui"]).to_have_url(f"{app.url}/matches/{match.pk}/")
    expect(phones["rui"].locator(".banner")).to_contain_text("Nós won the rubber, 4 to 0.")
    polls_answered(phones["rui"], 3, url=re.compile(rf"/matches/{match.pk}/sheet/\?"))
    expect(phones["rui"]).to_have_url(f"{app.url}/matches/{match.pk}/")


def inside(page, selector):
    """Every element ``selector`` finds lies inside the viewport at scroll 0."""
    assert page.evaluate("window.scrollY") == 0
    viewport = page.viewport_size
    boxes = [
        page.locator(selector).nth(i).bounding_box() for i in range(page.locator(selector).count())
    ]
    assert boxes, selector
    for box in boxes:
        assert box["y"] >= 0 and box["x"] >= 0, (selector, box)
        assert box["y"] + box["height"] <= viewport["height"], (selector, box, viewport)
        assert box["x"] + box["width"] <= viewport["width"], (selector, box, viewport)


SCREENS = [(1280, 720), (1024, 768), (768, 1024), (360, 640)]


@pytest.mark.parametrize("width, height", SCREENS)
def test_the_watch_screen_shows_the_crosses_totals_and_deal_without_scrolling(
    screen, match, ana, width, height
):
    match.seats.filter(position="b1").update(name="José")
    # Five deals in, a tie among them: a long enough sheet, the extra game pending.
    play(match, ana, ("a", 1), ("b", 1), ("a", 0), ("b", 0), ("a", 1), ("b", 1), ("a", 0))
    page = screen(match.watch_token, width, height)
    for selector in (".crosses svg", ".crosses .total", ".now h2", ".now .turn"):
        inside(page, selector)
    # The totals read whole, one line each: "José & Maria 2", not "José & Maria" over "2".
    for total in page.locator(".crosses .total").all():
        label, games = total.locator(".label"), total.locator(".games")
        words, number = label.bounding_box(), games.bounding_box()
        line = label.evaluate("element => parseFloat(getComputedStyle(element).lineHeight)")
        assert words["height"] < 1.5 * line, words  # one line
        assert number["y"] < words["y"] + words["height"] < number["y"] + number["height"]
        assert label.evaluate("element => element.scrollWidth <= element.clientWidth")  # whole
    shoot(page, f"follow-watch-in-play-{width}x{height}")


@pytest.mark.parametrize("width, height", SCREENS)
def test_the_watch_screen_shows_the_result_without_scrolling(screen, match, ana, width, height):
    play(match, ana, ("a", 1), ("b", 2), ("a", 1), ("b", 0), ("a", 2))
    page = screen(match.watch_token, width, height)
    for selector in (".crosses svg", ".crosses .total", ".banner"):
        inside(page, selector)
    shoot(page, f"follow-watch-won-{width}x{height}")

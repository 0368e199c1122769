"""The shared screen as a scoreboard, in a real Chromium: from 1280×720 to 1920×1080
the crosses and both totals fill most of the screen, the night's rubbers won by each
pair beside them, nothing scrolls and nothing is there to click. Screenshots go to
artifacts/ (tests/test_browser_following.py has the smaller screens)."""

import re

import pytest
from playwright.sync_api import expect

from .nights import play
from .test_browser_following import inside, shoot

pytestmark = pytest.mark.browser

TELEVISIONS = [(1920, 1080), (1280, 720)]
LIVE = 3_000  # a few polls of the screen


@pytest.fixture
def screen(new_context, app):
    """A shared screen of ``width``×``height`` on a watch link, in light or dark mode."""

    def open_screen(token, width, height, scheme="light"):
        context = new_context(viewport={"width": width, "height": height}, color_scheme=scheme)
        context.set_default_timeout(10_000)
        page = context.new_page()
        page.goto(f"{app.url}/watch/{token}/")
        return page

    return open_screen


def a_night_of_two_rubbers(match, ana):
    """Ana & Rui won the first rubber, Zé & Maria the second; the third is in play,
    five deals in, a tie just dealt (one extra game pending), Ana & Rui's 0 entered."""
    play(match, ana, ("a", 2), ("a", 2))
    second = match.rematch(ana)
    play(second, ana, ("b", 4, "sweep"))
    third = second.rematch(ana)
    play(third, ana, ("a", 1), ("b", 2), ("a", 1), ("a", 0), ("b", 0), ("a", 0))
    return third


def drawn(box):
    """The part of the crosses' SVG box the drawing fills: its viewBox is 280×130,
    fitted whole (the default preserveAspectRatio), centred."""
    width = min(box["width"], box["height"] * 280 / 130)
    height = min(box["height"], box["width"] * 130 / 280)
    return {
        "x": box["x"] + (box["width"] - width) / 2,
        "y": box["y"] + (box["height"] - height) / 2,
        "width": width,
        "height": height,
    }


def ink_height(locator):
    """How tall the text's glyphs are drawn, from the top of the highest to the foot of
    the lowest, in its own font (a canvas measures them)."""
    return locator.evaluate(
        """element => {
            const context = document.createElement("canvas").getContext("2d");
            const style = getComputedStyle(element);
            context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
            const glyphs = context.measureText(element.textContent.trim());
            return glyphs.actualBoundingBoxAscent + glyphs.actualBoundingBoxDescent;
        }"""
    )


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width, height", TELEVISIONS)
def test_the_scoreboard_fills_the_screen_with_the_crosses_and_the_nights_tally(
    screen, match, ana, width, height, scheme
):
    third = a_night_of_two_rubbers(match, ana)
    page = screen(match.watch_token, width, height, scheme)
    expect(page.locator("#crosses-title")).to_contain_text(
        "Ana & Rui: 2 games, Zé & Maria: 2 games."
    )

    # One screen: nothing scrolls either way.
    size = page.evaluate(
        "({height: document.documentElement.scrollHeight,"
        " width: document.documentElement.scrollWidth})"
    )
    assert size["height"] <= height and size["width"] <= width, size
    # Nothing to click, log in with or pick a language from.
    expect(page.get_by_role("link", name="Log in")).to_have_count(0)
    expect(page.locator("select, footer, header")).to_have_count(0)
    assert page.locator("a, button, input, summary").filter(visible=True).count() == 0
    # The sheet's own heading names the pairs for a screen reader.
    expect(page.get_by_role("heading", level=1)).to_have_text("Ana & Rui – Zé & Maria")

    for selector in (".crosses svg", ".crosses .total", ".now h2", ".now .turn", ".now .reminder"):
        inside(page, selector)
    expect(page.locator(".now h2")).to_have_text("Deal 5")
    expect(page.locator(".now .reminder")).to_contain_text("1 extra game pending")
    expect(page.locator(".deals")).to_be_hidden()  # the phones keep the deal-by-deal sheet

    # The crosses as drawn and the totals under them: most of the screen.
    crosses = drawn(page.locator(".crosses svg").bounding_box())
    totals = page.locator(".crosses figcaption").bounding_box()
    top, bottom = crosses["y"], totals["y"] + totals["height"]
    left = min(crosses["x"], totals["x"])
    right = max(crosses["x"] + crosses["width"], totals["x"] + totals["width"])
    assert bottom - top >= 0.7 * height, (crosses, totals)
    assert (bottom - top) * (right - left) >= 0.5 * width * height, (crosses, totals)

    for games in page.locator(".crosses .games").all():
        size = games.evaluate("element => parseFloat(getComputedStyle(element).fontSize)")
        assert size >= height / 9, size  # 120 px at 1080
        assert ink_height(games) >= height / 9
        assert games.bounding_box()["height"] >= height / 9

    # Beside the crosses, the night so far: the rubbers won by each pair, and played.
    inside(page, "#night")
    assert page.locator("#night").bounding_box()["x"] >= right
    expect(page.locator("#night .pair")).to_have_text(["Ana & Rui 1", "Zé & Maria 1"])
    expect(page.locator("#night li .visually-hidden")).to_have_text(
        ["Ana & Rui: 1 rubber won", "Zé & Maria: 1 rubber won"]
    )
    expect(page.locator("#night .played")).to_have_text("2 rubbers played")
    poll = page.locator("[data-poll]")
    expect(poll).to_have_attribute("hx-get", re.compile(f"rubber={third.pk}$"))
    shoot(page, f"watch-{width}x{height}-{scheme}")


@pytest.mark.parametrize("width, height", TELEVISIONS)
def test_the_scoreboard_shows_the_result_whole(screen, match, ana, width, height):
    play(match, ana, ("a", 2), ("a", 2))
    second = match.rematch(ana)
    play(second, ana, ("a", 0), ("b", 0), ("b", 5, "sweep"))  # a bandeira after a tie
    page = screen(match.watch_token, width, height, "dark")

    expect(page.locator(".banner")).to_contain_text("Zé & Maria won the rubber, 5 to 0.")
    expect(page.locator(".banner")).to_contain_text("Bandeira!")
    for selector in (".crosses svg", ".crosses .total", ".banner", "#night"):
        inside(page, selector)
    assert page.evaluate("document.documentElement.scrollHeight") <= height
    expect(page.locator("#night .played")).to_have_text("2 rubbers played")
    shoot(page, f"watch-won-{width}x{height}")


def test_the_tally_changes_on_the_screen_when_a_rubber_is_won(screen, match, ana):
    play(match, ana, ("a", 2), ("a", 2))
    second = match.rematch(ana)
    play(second, ana, ("b", 2), ("b", 1))
    page = screen(match.watch_token, 1920, 1080)
    expect(page.locator("#night")).to_contain_text("Zé & Maria: 0 rubbers won")
    expect(page.locator("#night .played")).to_have_text("1 rubber played")
    page.evaluate("window.stillHere = true")  # a page load would lose it

    play(second, ana, ("b", 1))  # Zé & Maria win the second rubber, 4 to 0

    expect(page.locator(".banner")).to_contain_text(
        "Zé & Maria won the rubber, 4 to 0.", timeout=LIVE
    )
    expect(page.locator("#night")).to_contain_text("Zé & Maria: 1 rubber won", timeout=LIVE)
    expect(page.locator("#night .played")).to_have_text("2 rubbers played")
    assert page.evaluate("window.stillHere") is True
    shoot(page, "watch-tally-changed-1920x1080")


def test_a_night_of_six_pairs_with_long_names_still_fits_the_screen(screen, match, ana):
    """Partners swapped every rubber, so every two of the four have sat together."""
    for position, name in {
        "a1": "Ana Beatriz Sousa",
        "a2": "Rui Miguel Costa",
        "b1": "José Carlos Almeida",
        "b2": "Maria João Ferreira",
    }.items():
        match.seats.filter(position=position).update(name=name)
    play(match, ana, ("a", 4))
    second = match.rematch(ana, {"a1": "a1", "a2": "b1", "b1": "a2", "b2": "b2"})
    play(second, ana, ("b", 4))
    third = second.rematch(ana, {"a1": "a1", "a2": "b2", "b1": "b1", "b2": "a2"})
    play(third, ana, ("a", 1), ("b", 2))

    for width, height in TELEVISIONS:
        page = screen(match.watch_token, width, height)
        expect(page.locator("#night li")).to_have_count(6)
        assert page.evaluate("document.documentElement.scrollHeight") <= height
        for selector in (".crosses svg", ".crosses .total", ".now h2", ".now .turn", "#night li"):
            inside(page, selector)
        # Each total whole: the names may take two lines, never lose their end.
        for label in page.locator(".crosses .total .label").all():
            assert label.evaluate("element => element.scrollWidth <= element.clientWidth")
            assert label.evaluate("element => element.scrollHeight <= element.clientHeight + 1")
        shoot(page, f"watch-six-pairs-{width}x{height}")

"""Table mode: the whole deal on one phone screen, and nothing jumps.

At 360×640 and 390×844, in English, European and Brazilian Portuguese, a player
sees without scrolling both crosses, both totals, the deal with its dealer and
leader, any pending extra games, and the keys they may press (the host: both
sides'). A tap never throws the screen elsewhere and leaves the focus on a
control. Screenshots of each state go to artifacts/.
"""

from pathlib import Path

import pytest
from playwright.sync_api import expect

from matches.models import Match

from .pages import Unheard

pytestmark = pytest.mark.browser

ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"
SIZES = {"360x640": (360, 640), "390x844": (390, 844)}
LANGUAGES = ["en", "pt-pt", "pt-br"]


@pytest.fixture
def screen(phone, app):
    """A phone of the given size, in the given language, signed in as ``user``."""

    def open_screen(user, size="360x640", language="en", **options):
        width, height = SIZES[size]
        page = phone(user, **options)
        page.set_viewport_size({"width": width, "height": height})
        page.context.add_cookies([{"name": "django_language", "value": language, "url": app.url}])
        return page

    return open_screen


def play(match, *deals):
    """Enter ``deals`` as (games for a, games for b) by each side's first seat: the
    winner's number alone completes a deal, and a tie takes both zeros."""
    people = {seat.position: seat.user for seat in match.seats.select_related("user")}
    for number, cells in enumerate(deals, start=match.deals.count() + 1):
        for side, games in zip("ab", cells, strict=True):
            if games or not any(cells):
                match.record(people[f"{side}1"], deal=number, side=side, games=games)
    return Match.objects.get(pk=match.pk)


def box(page, selector):
    locator = page.locator(selector)
    expect(locator.first).to_be_visible()
    return locator.first.bounding_box()


def in_view(page, selector):
    """Every element ``selector`` finds lies wholly inside the viewport at scroll 0."""
    height = page.viewport_size["height"]
    width = page.viewport_size["width"]
    found = page.locator(selector)
    assert found.count(), f"nothing matches {selector}"
    for index in range(found.count()):
        item = found.nth(index).bounding_box()
        assert item is not None, f"{selector} #{index} is not shown"
        assert item["y"] >= 0 and item["y"] + item["height"] <= height, (
            f"{selector} #{index} spans y {item['y']:.0f}..{item['y'] + item['height']:.0f}, "
            f"the screen ends at {height}"
        )
        assert item["x"] >= 0 and item["x"] + item["width"] <= width + 0.5, (
            f"{selector} #{index} spans x {item['x']:.0f}..{item['x'] + item['width']:.0f}"
        )


def shoot(page, name):
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / f"{name}.png")


STATES = {
    "in-play": [(1, 0), (0, 2)],
    "tie-pending": [(1, 0), (0, 0)],
    "won": [(1, 0), (0, 2), (3, 0)],
}


@pytest.mark.parametrize("state", STATES)
def test_screenshots_of_the_sheet(screen, app, match, rui, state):
    match = play(match, *STATES[state])
    for scheme in ("light", "dark"):
        page = screen(rui, color_scheme=scheme)
        page.goto(f"{app.url}/matches/{match.pk}/")
        expect(page.locator("#sheet")).to_be_visible()
        shoot(page, f"sheet-{state}-{scheme}")


# What the player must see at scroll 0 with a rubber in play.
AT_A_GLANCE = [".crosses svg", ".crosses .total", "#deal-title", ".turn", ".keys button"]


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("size", SIZES)
def test_the_whole_deal_fits_one_screen(screen, app, match, ana, rui, size, language):
    # A tie pending is the fullest screen: the reminder, and keys that say 1+1=2.
    match = play(match, *STATES["tie-pending"])
    for viewer, sides in ((rui, 1), (ana, 2)):  # a member: their side's keys; the host: both
        page = screen(viewer, size, language)
        page.goto(f"{app.url}/matches/{match.pk}/")
        expect(page.locator(".enter")).to_have_count(sides)
        assert page.evaluate("window.scrollY") == 0
        for selector in [*AT_A_GLANCE, ".reminder"]:
            in_view(page, selector)
        page.context.close()


def test_once_the_rubber_is_won_the_result_and_next_rubber_take_the_keys_place(
    screen, app, match, ana
):
    match = play(match, *STATES["won"])
    page = screen(ana)
    page.goto(f"{app.url}/matches/{match.pk}/")
    expect(page.locator(".keys")).to_have_count(0)
    for selector in [".crosses .total", "#result", "#rematch"]:
        in_view(page, selector)


def scroll_y(page):
    return page.evaluate("window.scrollY")


def focused(page):
    """What has the focus: a control (its tag and text), or BODY when nobody does."""
    return page.evaluate(
        "(() => { const e = document.activeElement;"
        " return e ? e.tagName + ':' + (e.id || e.textContent.trim().slice(0, 30)) : 'none'; })()"
    )


def holds_a_control(page):
    return page.evaluate(
        "(() => { const e = document.activeElement; return !!e && e !== document.body"
        " && e.matches('button, a[href], input, select, textarea, summary'); })()"
    )


def test_a_tap_neither_moves_the_screen_nor_drops_the_focus(screen, app, match, rui, ze):
    match = play(match, *STATES["in-play"])
    page = screen(rui)
    page.goto(f"{app.url}/matches/{match.pk}/")
    page.mouse.wheel(0, 150)
    page.wait_for_function("window.scrollY > 100")
    before = scroll_y(page)
    page.locator("#enter-a + .keys").get_by_text("1", exact=True).click()
    expect(page.locator("#undo")).to_be_visible()
    assert abs(scroll_y(page) - before) < 100
    assert holds_a_control(page), focused(page)

    # Zé's phone completes nothing (Rui's 1 did); Zé's undo and a new entry arrive by poll.
    other = screen(ze)
    other.goto(f"{app.url}/matches/{match.pk}/")
    page.locator("#undo").focus()
    before = scroll_y(page)
    Match.objects.get(pk=match.pk).undo(rui)
    expect(page.locator("#enter-a + .keys")).to_be_visible()
    assert abs(scroll_y(page) - before) < 100
    assert holds_a_control(page), focused(page)


def test_a_refusal_is_said_beside_the_keys(screen, app, match, rui, ze):
    match = play(match, *STATES["in-play"])
    page = screen(rui)
    # Zé's side claims the deal from another phone before Rui's tap lands: this phone
    # has not seen it yet (held from the start: a fetch already on its way would not be).
    unheard = Unheard(page)
    page.goto(f"{app.url}/matches/{match.pk}/")
    Match.objects.get(pk=match.pk).record(ze, deal=3, side="b", games=1)
    page.locator("#enter-a + .keys").get_by_text("1", exact=True).click()
    message = page.locator("#messages .message")
    expect(message).to_contain_text("Deal 3 is already claimed")
    keys = box(page, "#enter-a + .keys")
    said = message.bounding_box()
    assert said["y"] < page.viewport_size["height"], "the refusal is out of sight"
    assert said["y"] - (keys["y"] + keys["height"]) < 120, "the refusal is far from the keys"
    # Zé's change comes in: the refusal stays beside the keys of the next deal.
    unheard.release()
    expect(page.locator("#deal-title")).to_contain_text("Deal 4")
    expect(message).to_contain_text("Deal 3 is already claimed")
    keys = box(page, "#enter-a + .keys")
    said = message.bounding_box()
    assert said["y"] < page.viewport_size["height"], "the refusal is out of sight"
    assert said["y"] - (keys["y"] + keys["height"]) < 120, "the refusal is far from the keys"


def test_the_calculator_confirms_its_entry_and_starts_afresh(screen, app, match, rui):
    match = play(match, *STATES["in-play"])
    page = screen(rui)
    page.goto(f"{app.url}/matches/{match.pk}/")
    page.locator("#calculator > summary").click()
    page.get_by_label("Card points the side took (0 to 120)").fill("65")
    page.get_by_role("button", name="Count", exact=True).click()
    page.get_by_role("button", name="Enter 1 for Nós in deal 3").click()
    expect(page.locator("#calc-result")).to_have_text("Recorded: 1 for Nós in deal 3.")
    expect(page.get_by_label("Card points the side took (0 to 120)")).to_have_value("")
    expect(page.locator("#crosses-title")).to_contain_text("Nós: 2 games")


def test_a_note_is_confirmed_where_it_was_written(screen, app, match, rui):
    match = play(match, *STATES["in-play"])
    page = screen(rui)
    page.goto(f"{app.url}/matches/{match.pk}/")
    page.locator("#note-form > summary").click()
    page.get_by_label("What happened").fill("Eles revoked: two games off, kept by hand")
    button = page.get_by_role("button", name="Add the note")
    before = button.bounding_box()["y"]
    button.click()
    expect(page.locator("#note-result")).to_have_text("Note added: it changes no score.")
    expect(page.get_by_label("What happened")).to_have_value("")
    # The note joins the sheet above the form; the form stays where the player looks.
    expect(page.locator(".notes")).to_contain_text("two games off")
    assert abs(button.bounding_box()["y"] - before) < 100


def test_a_correction_keeps_the_host_at_the_row_with_its_answer(screen, app, match, ana):
    match = play(match, (1, 0), (0, 2), (0, 1))
    page = screen(ana)
    page.goto(f"{app.url}/matches/{match.pk}/")
    page.get_by_role("link", name="Correct a deal").click()
    row = page.locator("#fix-2-a")
    row.scroll_into_view_if_needed()
    row.fill("0")
    page.locator("#fix-2-b").fill("1")
    before = scroll_y(page)
    page.locator("#fix-2").click()
    expect(page.locator("#fix-2-result")).to_have_text("Deal 2 corrected.")
    assert abs(scroll_y(page) - before) < 100
    assert focused(page) == "BUTTON:fix-2"
    expect(page.locator("#crosses-title")).to_contain_text("Nós: 1 game, Eles: 2 games")


def test_other_phones_changes_show_while_the_correction_panel_is_open(screen, app, match, ana, ze):
    match = play(match, *STATES["in-play"])
    page = screen(ana)
    page.goto(f"{app.url}/matches/{match.pk}/")
    page.get_by_role("link", name="Correct a deal").click()
    expect(page.locator("#corrections")).to_be_visible()
    Match.objects.get(pk=match.pk).record(ze, deal=3, side="b", games=1)
    expect(page.locator("#crosses-title")).to_contain_text("Eles: 3 games", timeout=5_000)
    # and the panel follows the sheet: its forms carry the new version
    expect(page.locator("#fix-3-b")).to_have_value("1", timeout=5_000)


def test_another_phones_change_is_announced_politely(screen, app, match, rui, ze):
    match = play(match, *STATES["in-play"])
    page = screen(rui)
    page.goto(f"{app.url}/matches/{match.pk}/")
    page.locator("#enter-a + .keys button").first.focus()
    Match.objects.get(pk=match.pk).record(ze, deal=3, side="b", games=1)
    announce = page.locator("#announce")
    expect(announce).to_have_attribute("aria-live", "polite")
    expect(announce).to_have_text("Nós: 1 game, Eles: 3 games. Deal 4.")
    # The key Rui had the focus on went with deal 3: the same key of deal 4 has it now.
    assert focused(page) == "BUTTON:key-4-a-0"

    # Zé's next 1 wins the rubber: no key left for Rui, and the focus stays on a control.
    Match.objects.get(pk=match.pk).record(ze, deal=4, side="b", games=1)
    expect(announce).to_contain_text("Eles: 4 games")
    assert holds_a_control(page), focused(page)


def test_a_redeal_passes_the_deal_on_and_undo_takes_it_back(screen, app, match, rui, ze):
    match = play(match, *STATES["in-play"])
    page, other = screen(rui), screen(ze)
    for phone in (page, other):
        phone.goto(f"{app.url}/matches/{match.pk}/")
        expect(phone.locator(".turn")).to_have_text("Rui deals, Maria leads.")
    page.on("dialog", lambda dialog: dialog.accept())  # "Deal 3 dealt again, with nothing scored?"
    page.get_by_role("button", name="Redeal").click()

    # Nothing scored, and the deal passes on round the table, on both phones.
    for phone, words in (
        (page, "Nós: 1 game, Eles: 2 games."),
        (other, "Nós: 2 games, Eles: 1 game."),
    ):
        expect(phone.locator("#deal-title")).to_have_text("Deal 4")
        expect(phone.locator(".turn")).to_have_text("Maria deals, Ana leads.")
        expect(phone.locator("#crosses-title")).to_have_text(words)
    assert scroll_y(page) == 0
    assert holds_a_control(page), focused(page)
    page.locator("#deals-details > summary").click()
    expect(page.locator(".deals tbody tr").nth(2)).to_contain_text("redealt")

    page.get_by_role("button", name="Undo Rui's redeal of deal 3").click()
    for phone in (page, other):
        expect(phone.locator("#deal-title")).to_have_text("Deal 3")
        expect(phone.locator(".turn")).to_have_text("Rui deals, Maria leads.")

"""A night in a real Chromium on a 360×640 phone: the host picks new pairs for the
next rubber, a player reads the night and a rubber's history, and the history's
filters swap the list in place. Screenshots go to artifacts/."""

from pathlib import Path

import pytest
from playwright.sync_api import expect

from matches.models import Match
from tests.nights import four_rubbers, play

pytestmark = pytest.mark.browser

PHONE_WIDTH = 360
ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"


def shoot(page, name):
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / f"{name}.png", full_page=True)


def fits_the_phone(page):
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE_WIDTH


def test_host_starts_the_next_rubber_with_partners_swapped(phone, app, match, ana, rui, ze):
    play(match, ana, ("a", 2), ("a", 2))
    page = phone(ana)
    page.goto(f"{app.url}/matches/{match.pk}/")
    page.get_by_role("link", name="Rematch with other pairs…").click()
    expect(page.get_by_role("heading", name="Next rubber")).to_be_visible()
    fits_the_phone(page)
    page.get_by_label("Ana & Zé against Rui & Maria").check()
    shoot(page, "night-rematch-form")
    page.get_by_role("button", name="Start the next rubber").click()
    following = Match.objects.exclude(pk=match.pk).get()
    expect(page).to_have_url(f"{app.url}/matches/{following.pk}/")
    expect(page.locator("#sheet-title")).to_have_text("Ana & Zé – Rui & Maria")
    assert following.night_id == match.night_id
    assert following.seats.get(position="b1").user == rui
    shoot(page, "night-rematch-started")

    page.goto(f"{app.url}/nights/{match.night_id}/")
    rubbers = page.locator("#rubbers li")
    expect(rubbers).to_have_count(2)
    expect(rubbers.nth(0)).to_contain_text("Ana & Rui won")
    expect(rubbers.nth(1)).to_contain_text("in play")


def test_a_player_reads_the_night_and_opens_a_rubber(phone, app, match, ana, rui, ze):
    rubbers = four_rubbers(match, ana, ze)
    page = phone(rui)
    page.goto(f"{app.url}/nights/{match.night_id}/")
    expect(page.locator("#rubbers li")).to_have_count(4)
    pairs = page.get_by_role("table", name="The night's tally per pair")
    expect(pairs.get_by_role("row").nth(1)).to_contain_text("Ana & Rui")
    expect(pairs.get_by_role("row").nth(1)).to_contain_text("2 of 2")
    players = page.get_by_role("table", name="The night's tally per player")
    expect(players.get_by_role("row").nth(1)).to_contain_text("Rui")
    expect(players.get_by_role("row").nth(1)).to_contain_text("3 of 4")
    fits_the_phone(page)
    shoot(page, "night-page")

    page.get_by_role("link", name="Ana & Zé 1 against Rui & Maria 2").click()
    expect(page).to_have_url(f"{app.url}/history/{rubbers[2].pk}/")
    expect(page.get_by_role("heading", name="Every change")).to_be_visible()
    expect(page.locator(".changes")).to_contain_text("Zé ended the match")
    fits_the_phone(page)
    shoot(page, "night-rubber-history")


def test_history_filters_swap_the_list_without_a_reload(phone, app, match, ana, rui, ze):
    four_rubbers(match, ana, ze)
    page = phone(rui)
    page.goto(f"{app.url}/history/")
    expect(page.get_by_role("heading", name="4 rubbers")).to_be_visible()
    page.evaluate("window.stayed = true")
    page.get_by_text("Filter", exact=True).click()
    page.get_by_label("Partner").select_option(label="Ana")
    expect(page.get_by_role("heading", name="2 rubbers")).to_be_visible()
    assert page.evaluate("window.stayed") is True  # swapped in place, not reloaded
    assert "partner=" in page.url  # the address keeps the filter
    shoot(page, "night-history-filtered")
    fits_the_phone(page)
    page.goto(f"{app.url}/standings/")
    expect(
        page.get_by_role("img", name="Win rate per player: Rui 100%, Ana 67%, Maria 33%, Zé 0%")
    ).to_be_visible()
    fits_the_phone(page)
    shoot(page, "night-standings")

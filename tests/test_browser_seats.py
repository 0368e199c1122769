"""Back into one's seat from a fresh browser, in a real Chromium: a player who joined
opens the join link again in another browser (a messaging app's, then Chrome), finds
the seat taken by their old one, and gets back in by the host's link for the seat, or
by asking and being let in from another member's phone. Screenshots go to artifacts/."""

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from matches.models import Match, User

from .conftest import SEAT_NAMES

pytestmark = pytest.mark.browser

LIVE = 8_000
SHEET_URL = re.compile(r"/matches/\d+/$")
ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"


def shoot(page, name):
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / f"{name}.png", full_page=True)


@pytest.fixture
def table(phone, app, ana, maria):
    """Ana hosts from a1 with Maria in b2; Rui joins a2 from his phone's first browser."""
    match = Match.objects.start(ana, SEAT_NAMES, host_seat="a1")
    match.join(maria, token=match.join_token, position="b2")
    join_url = f"{app.url}/join/{match.join_token}/"
    first = phone()
    first.goto(join_url)
    first.get_by_role("button", name=re.compile(r"^Rui Side A · take this seat")).click()
    expect(first).to_have_url(SHEET_URL)
    return match, join_url


def test_the_host_hands_out_a_link_for_the_seat(table, phone, ana):
    match, join_url = table
    fresh = phone()  # the same player in another browser: no session, no cookies
    fresh.goto(join_url)
    shoot(fresh, "seats-join-some-free")
    expect(fresh.get_by_role("button", name=re.compile(r"This is my seat \(Rui\)"))).to_be_visible()

    host = phone(ana)
    host.goto(f"{host_url(join_url)}/matches/{match.pk}/invite/")
    seat = host.locator("li.card", has_text="Rui")
    seat.get_by_role("button", name=re.compile("Make a link for this seat")).click()
    link = seat.locator("p.url a")
    expect(link).to_be_visible(timeout=LIVE)
    shoot(host, "seats-invite")
    url = link.get_attribute("href")

    fresh.goto(url)
    fresh.get_by_role("button", name=re.compile(r"^Rui Side A · take this seat")).click()
    expect(fresh).to_have_url(SHEET_URL)
    expect(fresh.get_by_role("group", name="Games for Nós")).to_be_visible()
    match.refresh_from_db()
    assert match.events.last().after["by_link"] is True


def test_the_player_asks_and_another_member_approves(table, phone, maria):
    match, join_url = table
    match.join(User.create_guest("Zé"), token=match.join_token, position="b1")
    fresh = phone()
    fresh.goto(join_url)
    expect(fresh.get_by_role("heading", name="All four seats are taken")).to_be_visible()
    shoot(fresh, "seats-join-full")
    fresh.get_by_role("button", name="This is my seat (Rui): ask for it back").click()
    expect(fresh.get_by_text("You asked for Rui's seat.")).to_be_visible(timeout=LIVE)

    other = phone(maria)  # another member's phone, on the sheet: the request arrives by the poll
    other.goto(f"{host_url(join_url)}/matches/{match.pk}/")
    request = other.get_by_role("region", name="Someone asks for a seat")
    expect(request).to_be_visible(timeout=LIVE)
    shoot(other, "seats-request-on-sheet")
    request.get_by_role("button", name=re.compile("^Approve")).click()
    expect(request).to_have_count(0, timeout=LIVE)

    # The waiting page asks again by itself and goes to the sheet, seated as Rui.
    expect(fresh).to_have_url(SHEET_URL, timeout=LIVE)
    expect(fresh.get_by_role("group", name="Games for Nós")).to_be_visible()


def test_the_new_match_form_is_compact(phone, ana, app):
    page = phone(ana)
    page.goto(f"{app.url}/matches/new/")
    shoot(page, "seats-new")
    # The whole form, from the top of the page to its button (the footer is below): under
    # two screens of a 360x640 phone, with its house rules (redeal, bandeira at 120).
    height = page.evaluate("document.querySelector('main form').getBoundingClientRect().bottom")
    assert height < 1200, height


def host_url(join_url):
    return join_url.split("/join/")[0]

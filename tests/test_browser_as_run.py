"""The app as people run it: ``bin/run`` (the production server and settings over plain
http) and ``bin/run --debug`` (Django's development server, DEBUG on), each driven in a
real Chromium at 360×640. Whatever the configuration, a refusal lands in the box beside
the control that was used, the page stays whole, and the sheet keeps following the
table: never a blank page or a page of URL patterns.
"""

import re

import pytest
from playwright.sync_api import expect

from matches.models import Match

from .conftest import session_cookie
from .nights import play

pytestmark = pytest.mark.browser

SERVERS = ["app", "debug_app"]


@pytest.fixture(params=SERVERS)
def server(request, transactional_db):
    # transactional_db named here, before any fixture writes: the server must see it all.
    return request.getfixturevalue(request.param)


@pytest.fixture
def open_sheet(new_context, server):
    """A 360×640 phone signed in as ``user``, on the sheet of ``match``."""

    def open_phone(user, match):
        context = new_context(viewport={"width": 360, "height": 640})
        context.set_default_timeout(10_000)
        context.add_cookies([session_cookie(user, server.url)])
        page = context.new_page()
        page.goto(f"{server.url}/matches/{match.pk}/")
        expect(page.locator("#sheet")).to_be_visible()
        return page

    return open_phone


def still_whole(page, match):
    """The sheet page is still there, not replaced by an error page."""
    expect(page.locator("#sheet")).to_have_count(1)
    expect(page.locator(".crosses svg")).to_be_visible()
    expect(page.locator("body")).not_to_contain_text("URLconf")
    assert page.url.endswith(f"/matches/{match.pk}/")


def test_a_refused_calculation_is_said_in_the_calculator(open_sheet, match, ana):
    page = open_sheet(ana, match)
    page.locator("#calculator > summary").click()
    page.locator("#calc-points").fill("130")
    page.get_by_role("button", name="Count").click()
    expect(page.locator("#calc-result")).to_contain_text("Points must be a whole number")
    still_whole(page, match)


def test_a_refused_note_is_said_under_the_note_form(open_sheet, match, ana):
    page = open_sheet(ana, match)
    page.locator("#note-form > summary").click()
    page.locator("#note-deal").fill("99")
    page.locator("#note-text").fill("Eles revoked")
    page.get_by_role("button", name="Add the note").click()
    expect(page.locator("#note-result")).to_contain_text("The deal must be a whole number")
    still_whole(page, match)


def test_a_refused_correction_is_said_in_its_row(open_sheet, match, ana):
    play(match, ana, ("a", 1))
    page = open_sheet(ana, match)
    page.get_by_role("link", name="Correct a deal").click()
    row = page.locator("#corrections form").first
    row.locator("input[name=a]").fill("1")
    row.locator("input[name=b]").fill("2")
    row.get_by_role("button", name=re.compile("^Save")).click()
    expect(page.locator("#fix-1-result")).to_contain_text("Only one side can win games")
    still_whole(page, match)


def test_the_sheet_keeps_following_the_table_after_a_refusal(open_sheet, match, ana, ze):
    page = open_sheet(ana, match)
    page.locator("#calculator > summary").click()
    page.locator("#calc-points").fill("130")
    page.get_by_role("button", name="Count").click()
    expect(page.locator("#calc-result .message")).to_be_visible()
    play(match, ze, ("b", 1))
    expect(page.locator("#crosses-title")).to_have_text("Nós: 0 games, Eles: 1 game.")


def test_a_phone_that_lost_its_seat_is_told_so_on_its_sheet(open_sheet, match, ana, rui, olga):
    page = open_sheet(rui, match)
    seat = match.make_seat_link(ana, "a2")
    match.take_seat_by_link(olga, "a2", seat.link_token)
    expect(page.locator("#messages")).to_contain_text("not yours to see")
    still_whole(page, match)


def test_the_next_rubber_link_is_for_those_who_may_open_it(open_sheet, match, ana, rui):
    play(match, ana, ("a", 2), ("a", 2))
    following = match.rematch(ana)
    following.seats.filter(position="a2").update(user=None)
    page = open_sheet(rui, Match.objects.get(pk=match.pk))
    expect(page.locator(".banner")).to_contain_text("Nós won the rubber")
    expect(page.get_by_role("link", name="Go to the next rubber")).to_have_count(0)
    still_whole(page, match)

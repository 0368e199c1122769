"""The smaller things at the table (issue 44), in a real Chromium on the app as ``bin/run``
serves it, in European Portuguese: the organiser enters a tournament rubber with no error
in the console; the calculator and the revoke note go once the rubber is won and come
back with its undo; "Convidar a mesa" opens in sight on a phone; the language menu is as
wide as its names on a desktop; the sheet says the house rule bandeira aos 120.
Screenshots go to artifacts/."""

import re

import pytest
from playwright.sync_api import expect

from matches.models import Match
from tests.tournaments import tournament_of

from .conftest import SEAT_NAMES
from .test_browser_a_night import shoot, tap

pytestmark = pytest.mark.browser

FOLLOW = 6_000


def errors_of(page):
    """Every error the page's console logs, from now on."""
    errors = []
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    page.on("pageerror", lambda error: errors.append(str(error)))
    return errors


def test_the_organiser_enters_a_tournament_rubber_with_no_console_error(table, app, ana):
    tournament = tournament_of(ana, pairs=4, tables=2, mocas_to_win=2)
    organiser = table(f"/tournaments/{tournament.pk}/", ana)
    errors = errors_of(organiser)
    organiser.get_by_role("button", name="Começar a ronda 1").click()
    organiser.get_by_role("link", name="A folha").first.click()
    expect(organiser).to_have_url(re.compile(r"/matches/\d+/$"))
    expect(organiser.get_by_role("heading", name="Mão 1", exact=True)).to_be_visible()
    first = organiser.url
    # The organiser hosts the rubber without a seat: both sides' keys, and the tools.
    tap(organiser, "a", 1)
    expect(organiser.locator("#sheet")).to_contain_text("Mão 2")
    organiser.locator("#calculator > summary").click()
    organiser.locator("#calc-points").fill("95")
    organiser.get_by_role("button", name="Contar").click()
    organiser.locator("#calc-result button").click()  # 2 more for the first side: 3–0
    expect(organiser.locator("#sheet")).to_contain_text("Mão 3")
    tap(organiser, "a", 1)  # the first moca: the series' next rubber, and the page follows
    expect(organiser).not_to_have_url(first, timeout=FOLLOW)
    expect(organiser.get_by_role("heading", name="Mão 1", exact=True)).to_be_visible()
    tap(organiser, "a", 2)
    expect(organiser.locator("#sheet")).to_contain_text("Mão 2")
    tap(organiser, "b", 1)
    expect(organiser.locator("#sheet")).to_contain_text("Mão 3")
    organiser.locator("#deals-details > summary").click()
    organiser.get_by_role("button", name=re.compile("^Anular")).click()  # and back again
    expect(organiser.locator("#sheet")).to_contain_text("Mão 2")
    tap(organiser, "a", 4)  # the series won 2–0: the rubber is over, and no table follows
    expect(organiser.locator(".banner")).to_be_visible(timeout=FOLLOW)
    # Back on the rubber later (its page opened once it was won), the organiser takes
    # the winning entry back and enters it again: each answer finds the calculator's box.
    organiser.reload()
    organiser.get_by_role("button", name=re.compile("^Anular")).click()
    expect(organiser.get_by_role("heading", name="Mão 2", exact=True)).to_be_visible()
    tap(organiser, "a", 2)
    expect(organiser.locator(".banner")).to_be_visible(timeout=FOLLOW)
    assert errors == []
    expect(organiser.locator("#calculator")).to_be_hidden()
    shoot(organiser, "smaller-things-organiser-rubber-won")
    organiser.goto(f"{app.url}/tournaments/{tournament.pk}/")
    expect(organiser.locator("#board")).to_contain_text("Mesa 1")
    assert errors == []


@pytest.fixture
def hosted(ana, rui, ze, maria):
    match = Match.objects.start(ana, SEAT_NAMES, host_seat="a1")
    for position, player in (("a2", rui), ("b1", ze), ("b2", maria)):
        match.join(player, token=match.night.join_token, position=position)
    return match


def test_the_calculator_goes_once_the_rubber_is_won_and_comes_back_with_undo(
    table, hosted, ana, rui
):
    host, partner = table(f"/matches/{hosted.pk}/", ana), table(f"/matches/{hosted.pk}/", rui)
    errors = errors_of(host) + errors_of(partner)
    calculators = [page.locator("#calculator") for page in (host, partner)]
    for calculator in calculators:
        expect(calculator).to_be_visible()
    tap(host, "a", 4)
    for page, calculator in zip((host, partner), calculators, strict=True):
        expect(page.locator(".banner")).to_be_visible(timeout=FOLLOW)
        expect(calculator).to_be_hidden()  # the partner's phone, from its stream, too
        expect(page.locator("#note-form")).to_be_hidden()
    shoot(partner, "smaller-things-won-no-calculator")
    host.get_by_role("button", name=re.compile("^Anular")).click()
    for calculator in calculators:
        expect(calculator).to_be_visible(timeout=FOLLOW)
    # A page opened on a won rubber gets the calculator back with the undo, too.
    tap(host, "a", 4)
    host.reload()
    expect(host.locator("#calculator")).to_be_hidden()
    host.get_by_role("button", name=re.compile("^Anular")).click()
    expect(host.locator("#calculator")).to_be_visible()
    assert errors == []


def test_the_calculator_says_card_points_run_from_0_to_120(table, hosted, rui):
    page = table(f"/matches/{hosted.pk}/", rui)
    page.locator("#calculator > summary").click()
    page.locator("#calc-points").fill("-5")
    page.get_by_role("button", name="Contar").click()
    result = page.locator("#calc-result")
    expect(result).to_contain_text("Pontos: tem de ser um número inteiro de 0 a 120.")
    expect(result).not_to_contain_text("só sobe")


def test_inviting_the_table_opens_in_sight_on_a_phone(table, hosted, ana):
    host = table(f"/matches/{hosted.pk}/", ana)
    errors = errors_of(host)
    host.get_by_role("link", name="Convidar a mesa").click()
    panel = host.locator("#panel")
    expect(panel.locator("img, .url").first).to_be_visible()
    expect(panel).to_be_in_viewport()
    shoot(host, "smaller-things-invite-in-sight")
    assert errors == []


def test_the_language_menu_is_as_wide_as_its_names_on_a_desktop(table, ana):
    page = table("/", ana, width=1920, height=1080)
    menu = page.get_by_label("Idioma")
    expect(menu).to_be_visible()
    assert menu.bounding_box()["width"] < 400
    page.locator("footer").scroll_into_view_if_needed()
    shoot(page, "smaller-things-language-1920x1080")


def test_the_sheet_says_bandeira_aos_120_and_its_calculator_follows_it(table, ana):
    match = Match.objects.start(ana, SEAT_NAMES, host_seat="a1", bandeira_at_120=True)
    page = table(f"/matches/{match.pk}/", ana)
    page.locator("#deals-details > summary").click()
    expect(page.locator("#sheet")).to_contain_text("Regra da casa: bandeira aos 120.")
    page.locator("#calculator > summary").click()
    expect(page.locator("#calculator")).to_contain_text("Bandeira aos 120: os 120 pontos")
    page.locator("#calc-points").fill("120")
    page.get_by_role("button", name="Contar").click()
    expect(page.locator("#calc-result")).to_contain_text("Nós: 4 jogos")
    shoot(page, "smaller-things-bandeira-aos-120")

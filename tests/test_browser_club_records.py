"""A club's records in a real Chromium, in European Portuguese: a player's chart that
gains a point when they win a rubber, a season's page after two tournaments (both on a
360×640 phone), and the café's TV board at 1920×1080 following a rubber won by itself,
read from across the room. Screenshots go to artifacts/."""

import datetime

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.utils import timezone
from playwright.sync_api import expect

from tests.clubs import club_of, club_rubber, win
from tests.tournaments import play_round
from tournaments.models import Tournament

from .test_accessibility import COLOURS, EVERY, problems_of
from .test_browser_a_night import shoot
from .test_browser_projector import errors_of, read_from_the_back

pytestmark = pytest.mark.browser


def accessible(page, name):
    """Nothing serious by axe-core, in light and dark, as test_accessibility.py checks."""
    # Loaded with the page, as the page's own policy allows no inline script.
    page.context.add_init_script(script=Axe().axe_script)
    page.reload()
    page.emulate_media(color_scheme="light")
    found = [line for _key, line in problems_of(page, name, EVERY)]
    page.emulate_media(color_scheme="dark")
    found += [line for _key, line in problems_of(page, name, COLOURS)]
    page.emulate_media(color_scheme="light")
    assert not found, found


def ana_and_rui_win(ana, club, players):
    seated = (players[name] for name in ("Ana", "Rui", "Zé", "Maria"))
    return win(club_rubber(ana, club, *seated), ana)


# What sticks out past a phone's width, to say so when something does.
WIDE = """() => [...document.querySelectorAll("body *")]
  .filter((element) => element.getBoundingClientRect().right > 361)
  .slice(0, 12)
  .map((e) => `${e.tagName}.${e.className} ${e.textContent.slice(0, 9)}`)"""


def test_the_players_chart_moves_by_itself_when_they_win(table, app, ana):
    club, players = club_of(ana)
    for _ in range(4):
        ana_and_rui_win(ana, club, players)
    page = table(f"/clubs/{club.pk}/players/{players['Ana'].pk}/", ana)
    errors = errors_of(page)
    chart = page.locator(".rating-chart svg")
    expect(chart).to_have_attribute("data-rubbers", "4")
    expect(page.locator("h1")).to_have_text("Ana")
    expect(page.locator(".rating-chart .summary")).to_contain_text("Depois de 4 partidas contadas")
    before = page.locator(".record-now .figure").inner_text()
    line = chart.locator("polyline.line").get_attribute("points")
    assert len(line.split()) == 5
    shoot(page, "club-player-360x640")
    accessible(page, "club player")
    # Nothing wider than the phone: the chart scales to the screen.
    assert page.evaluate("document.documentElement.scrollWidth") <= 360, page.evaluate(WIDE)
    page.locator(".rating-chart").scroll_into_view_if_needed()
    shoot(page, "club-player-chart-360x640")

    # She wins another at a table: the page follows by itself, no reload.
    ana_and_rui_win(ana, club, players)
    expect(chart).to_have_attribute("data-rubbers", "5", timeout=15_000)
    assert len(chart.locator("polyline.line").get_attribute("points").split()) == 6
    assert page.locator(".record-now .figure").inner_text() != before
    assert not errors, (errors, app.output())


def club_tournament(ana, club, pairs, winner_first):
    tournament = Tournament.objects.open(
        ana, name=f"Torneio de {winner_first}", pairs=pairs, club=club.pk, mocas_to_win=1
    )
    tournament.start_round(ana)
    winner = tournament.pairs.get(first=winner_first).pk
    play_round(
        tournament, winners=lambda series: winner if winner in (series.a, series.b) else series.a
    )
    return tournament


def test_a_season_page_after_two_tournaments(table, app, ana):
    club, _players = club_of(ana)
    club_tournament(ana, club, [["Ana", "Rui"], ["Zé", "Maria"]], "Ana")
    club_tournament(ana, club, [["Zé", "Maria"], ["Olga", "Tó"]], "Zé")
    today = timezone.localdate()
    season = club.add_season(
        ana,
        name="Época 2026/27",
        start=today - datetime.timedelta(days=60),
        end=today + datetime.timedelta(days=300),
    )
    page = table(f"/clubs/{club.pk}/seasons/{season.pk}/", ana)
    errors = errors_of(page)
    expect(page.locator("h1")).to_have_text("Época 2026/27")
    rows = page.locator(".season-table tbody tr")
    expect(rows).to_have_count(6)
    # Zé and Maria, 20 points each, share the first place.
    expect(rows.locator("th")).to_have_text(["Zé", "Maria", "Ana", "Rui", "Olga", "Tó"])
    expect(rows.locator(".points")).to_have_text(["20", "20", "11", "11", "9", "9"])
    expect(page.locator(".counted li")).to_have_count(2)
    shoot(page, "club-season-360x640")
    accessible(page, "club season")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360, page.evaluate(WIDE)
    page.locator("#points-title").scroll_into_view_if_needed()
    shoot(page, "club-season-points-360x640")
    assert not errors, (errors, app.output())


def test_the_tv_board_follows_a_rubber_won_by_itself(table, app, ana):
    club, players = club_of(ana)
    for _ in range(2):
        ana_and_rui_win(ana, club, players)
    club_tournament(ana, club, [["Olga", "Tó"], ["Inês", "Nuno"]], "Olga")
    today = timezone.localdate()
    club.add_season(
        ana,
        name="Época 2026/27",
        start=today - datetime.timedelta(days=60),
        end=today + datetime.timedelta(days=300),
    )
    club.refresh_from_db()
    tv = table(f"/clubs/board/{club.watch_token}/", width=1920, height=1080)
    errors = errors_of(tv)
    board = tv.locator(".leaderboard tbody tr")
    expect(board).to_have_count(8)
    expect(tv.locator(".club-board-head h1")).to_have_text("Café Central")
    expect(tv.locator(".season-table caption")).to_have_text("Época 2026/27")
    shoot(tv, "club-board-1920x1080")
    accessible(tv, "club board")
    read_from_the_back(tv, least=40)

    # Zé & Maria win one: no reload, the board shows their rubber.
    rubbers_of_ze = tv.locator(".leaderboard tbody tr", has_text="Zé").locator("td").nth(2)
    expect(rubbers_of_ze).to_have_text("2")
    seated = (players[name] for name in ("Zé", "Maria", "Ana", "Rui"))
    win(club_rubber(ana, club, *seated), ana)
    expect(rubbers_of_ze).to_have_text("3", timeout=15_000)
    shoot(tv, "club-board-after-1920x1080")
    assert not errors, (errors, app.output())


def test_a_big_club_on_the_tv_shows_its_top_twelve_read_from_the_back(table, app, ana):
    names = [f"Jogador {number}" for number in range(1, 17)]
    names[0] = "Maria Antónia Figueiredo Sampaio"
    club, players = club_of(ana, names)
    roster = [players[name] for name in names]
    for start in range(0, 16, 4):
        win(club_rubber(ana, club, *roster[start : start + 4]), ana)
    for start in range(0, 14, 4):
        pairs = [names[start : start + 2], names[start + 2 : start + 4]]
        club_tournament(ana, club, pairs, names[start])
    today = timezone.localdate()
    club.add_season(ana, name="Época 2026/27", start=today, end=today)
    club.refresh_from_db()
    tv = table(f"/clubs/board/{club.watch_token}/", width=1920, height=1080)
    expect(tv.locator(".leaderboard tbody tr")).to_have_count(12)
    expect(tv.locator(".season-table tbody tr")).to_have_count(12)
    shoot(tv, "club-board-big-1920x1080")
    read_from_the_back(tv, least=100)


def test_a_renewed_board_link_says_so(table, app, db):
    page = table("/clubs/board/no-such-link/", width=1920, height=1080)
    expect(page.locator("main")).to_contain_text("já não é válida")

"""The standings page: per player with a win-rate chart drawn on the server, pair
against pair, filters, paging, and flat queries."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from matches.models import User
from tests.nights import four_rubbers, many_rubbers
from tests.pages import HTMX, browser, shown, text


@pytest.fixture
def rubbers(match, ana, ze):
    return four_rubbers(match, ana, ze)


def test_players_with_played_won_and_win_rate(rubbers, rui):
    page = text(browser(rui).get("/standings/"))
    table = page[page.index('class="tally"') :]
    assert table.index("Rui") < table.index("Ana") < table.index("Maria") < table.index("Zé")
    assert "100% <span" in table  # Rui: 3 of 3 finished
    assert "67%" in table and "(2/3)" in table  # Ana


def test_the_chart_is_an_svg_with_a_bar_per_player_and_words_for_screen_readers(rubbers, rui):
    page = text(browser(rui).get("/standings/"))
    chart = page[page.index('<figure class="chart">') : page.index("</figure>")]
    assert '<svg viewBox="0 0 ' in chart and 'role="img"' in chart
    assert chart.count('<rect class="bar"') == 4
    assert "Win rate per player: Rui 100%, Ana 67%, Maria 33%, Zé 0%" in chart


@pytest.mark.parametrize("language", ["en", "pt-PT", "pt-BR"])
def test_the_chart_draws_its_bars_in_every_language(rubbers, rui, language):
    """SVG numbers are never localized: a decimal comma draws no bar at all."""
    page = text(browser(rui).get("/standings/", HTTP_ACCEPT_LANGUAGE=language))
    chart = page[page.index('<figure class="chart">') : page.index("</figure>")]
    widths = [
        float(width)  # raises on "75,0"
        for width in re.findall(r'<rect class="bar"[^>]*width="([^"]*)"', chart)
    ]
    track = float(re.search(r'<rect class="track"[^>]*width="([^"]*)"', chart).group(1))
    # Rui won all his finished rubbers, Zé none: a full bar and an empty one.
    assert max(widths) == track
    assert min(widths) == 0
    assert all(
        "," not in value for value in re.findall(r'="([^"]*)"', chart) if value[:1].isdigit()
    )


def test_pair_against_pair(rubbers, rui):
    page = text(browser(rui).get("/standings/"))
    pairs = page[page.index('id="pairs-title"') :]
    assert "Ana &amp; Rui 2</span>" in pairs
    assert "0 Zé &amp; Maria" in pairs
    assert "1 ended early" in pairs


def test_filters_narrow_the_standings_and_htmx_swaps_the_tables(rubbers, rui):
    night = rubbers[0].night
    response = browser(rui).get("/standings/", {"night": night.pk, "until": "2000-01-01"}, **HTMX)
    page = text(response)
    assert page.lstrip().startswith('<div id="tables">')
    assert "No rubber yet." in page


def test_outsider_sees_none_of_it(rubbers, olga):
    page = shown(browser(olga).get("/standings/"))
    assert "No rubber yet." in page
    assert "Rui" not in page


def test_queries_stay_flat_from_1_to_500_rubbers_and_it_pages(match, ana, rui, ze, maria):
    client = browser(ana)

    def queries(path):
        with CaptureQueriesContext(connection) as captured:
            response = client.get(path)
        assert response.status_code == 200
        return len(captured.captured_queries), text(response)

    one, _page = queries("/standings/")
    players = [
        User.objects.create_user(username=f"p{number}", display_name=f"P{number:02}")
        for number in range(40)
    ]
    many_rubbers(match.night, ana, [ana, rui, ze, maria], 460)
    for start in range(0, 40, 4):
        many_rubbers(match.night, ana, players[start : start + 4], 1)
    many, page = queries("/standings/")
    # session, user, the nights and people to filter by, players, pair against pair and
    # the seating of each meeting's first rubber
    assert many == one == 7
    assert "Page 1 of 2" in page  # 44 players, 25 a page
    assert page.count('<rect class="bar"') == 25
    second, page = queries("/standings/?page=2")
    assert second == one
    assert page.count('<rect class="bar"') == 19

"""A small club tournament played in a real Chromium, as a café runs it, on the app as
``bin/run`` serves it, in European Portuguese: 6 pairs, 2 tables, best of three (first
to 2 mocas), round robin. The organiser's phone starts each round; a phone at each table
opens the table's link, takes a seat with one tap on a name, and plays the series' rubbers
(the next rubber starts by itself, and the phone follows); a series waiting for a table
gets the first one free; the projector at 1920×1080 follows it all to the champion
without a reload. Screenshots go to artifacts/.
"""

import re

import pytest
from playwright.sync_api import expect

from matches.models import Match
from tests.tournaments import PAIRS
from tournaments.models import Tournament

from .test_browser_a_night import shoot, tap
from .test_browser_projector import read_from_the_back

pytestmark = pytest.mark.browser

FOLLOW = 6_000


def play_series_at(phone, table_url, first_name):
    """The phone at a table plays the series there: it opens the table's link (unless it
    is on it already), takes the seat of ``first_name`` (side a's first player) with one
    tap, and wins two rubbers with a bandeira each; after the first, the phone follows to
    the next by itself."""
    if "/join/" not in phone.url:
        phone.goto(table_url)
    phone.get_by_role("button", name=re.compile(rf"^{re.escape(first_name)}(\s|$)")).click()
    expect(phone).to_have_url(re.compile(r"/matches/\d+/$"))
    first = phone.url
    expect(phone.get_by_role("heading", name="Mão 1", exact=True)).to_be_visible()
    tap(phone, "a", 4)
    expect(phone).not_to_have_url(first, timeout=FOLLOW)  # the series' next rubber
    expect(phone.get_by_role("heading", name="Mão 1", exact=True)).to_be_visible()
    expect(phone.locator("#sheet")).to_contain_text(first_name)
    tap(phone, "a", 4)
    expect(phone.locator(".banner")).to_contain_text("4 a 0", timeout=FOLLOW)


def test_a_small_tournament_is_played_to_its_champion(table, app, ana):
    tournament = Tournament.objects.open(
        ana, name="Torneio de Natal", pairs=PAIRS[:6], tables=2, mocas_to_win=2
    )
    organiser = table(f"/tournaments/{tournament.pk}/", ana)
    projector = table(f"/tournaments/watch/{tournament.watch_token}/", width=1920, height=1080)
    expect(projector.get_by_role("heading", name="Torneio de Natal")).to_be_visible()
    tables = {t.number: f"{app.url}/tables/{t.token}/" for t in tournament.tables.all()}
    at_table = {number: table("/") for number in tables}  # nobody signed in: guests at the table
    # Before the first round, a table's link says it waits.
    at_table[1].goto(tables[1])
    expect(at_table[1].locator("main")).to_contain_text("nenhuma partida")

    for number in range(1, 6):
        organiser.get_by_role("button", name=f"Começar a ronda {number}").click()
        expect(projector.locator("#board")).to_contain_text(f"Ronda {number}", timeout=FOLLOW)
        drawn = tournament.progress().rounds[-1].series
        first = {pair.pk: pair.first for pair in tournament.pairs.all()}
        assert [series.table for series in drawn] == [1, 2, None]
        # Table 1 plays its series, then the one that waited; table 2 plays its own.
        if number == 1:  # the waiting table's page follows to the rubber by itself
            expect(at_table[1]).to_have_url(re.compile(r"/join/"), timeout=FOLLOW)
        play_series_at(at_table[1], tables[1], first[drawn[0].a])
        expect(projector.locator(".tables")).to_contain_text(first[drawn[2].a], timeout=FOLLOW)
        play_series_at(at_table[2], tables[2], first[drawn[1].a])
        play_series_at(at_table[1], tables[1], first[drawn[2].a])
        if number == 1:
            shoot(at_table[1], "tournament-pt-PT-table-phone")
            shoot(organiser, "tournament-pt-PT-organiser")
            shoot(projector, "tournament-pt-PT-projector-1920x1080")
        expect(organiser.locator("#board")).not_to_contain_text("Em jogo:", timeout=FOLLOW)

    # Carla & Nuno won every series they were listed first in: 9 points, and ahead of the
    # two other pairs on 9 by their meetings with them.
    champion = "Carla & Nuno"
    banner = projector.locator(".champion-banner")
    expect(banner).to_have_text(f"Campeões: {champion}", timeout=FOLLOW)
    expect(projector.locator(".standings tbody tr").first).to_contain_text(champion)
    expect(projector.locator(".standings")).to_contain_text("confronto direto")
    expect(organiser.locator(".champion-banner")).to_contain_text(champion, timeout=FOLLOW)
    assert tournament.progress().champion == tournament.pairs.get(first="Carla").pk
    assert Match.objects.filter(night__in=tournament.tables.values("night")).count() == 30
    shoot(projector, "tournament-pt-PT-projector-champion-1920x1080")
    read_from_the_back(projector, least=30)
    projector.set_viewport_size({"width": 1280, "height": 720})
    shoot(projector, "tournament-pt-PT-projector-champion-1280x720")
    shoot(organiser, "tournament-pt-PT-organiser-finished")

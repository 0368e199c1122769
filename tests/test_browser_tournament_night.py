"""A whole tournament night as the room lives it, in a real Chromium, in European
Portuguese, on the app as ``bin/run`` serves it: 6 pairs on 3 tables, a round robin then a
knockout of the top 4, one moca a series. A phone for each pair at 360×640, seated as its
first player, the organiser's page and the projector at 1920×1080. Each phone shows its
table, round, moca and series score, and after each series where its pair goes next; in
round 2 a walkover is recorded through its confirmation, shows on the table's phones, is
undone (the phones are back in their rubber) and recorded again. The round robin's leader
loses its semi-final, so the champion is not the leader: the projector, the organiser's
page and the standings CSV list the champion first, the final's loser second and the
semi-finals' losers sharing third. No page logs a console error. Screenshots go to artifacts/.
"""

import csv
import io
import re

import pytest
from playwright.sync_api import expect

from tests.tournaments import PAIRS
from tournaments.models import Tournament

from .test_browser_a_night import shoot, tap
from .test_browser_tournament_table import LOAD, watch_errors

pytestmark = pytest.mark.browser

FOLLOW = 6_000
ROUNDS = {6: "Meias-finais", 7: "Final"}
START = {6: "Começar as meias-finais", 7: "Começar a final"}


def places(standings):
    """The standings' rows as (place, pair) in the order shown; a shared place's "=" dropped."""
    rows = standings.locator("tbody tr")
    return [
        (
            row.locator(".place").inner_text().strip().rstrip("="),
            row.locator(".name").inner_text().strip(),
        )
        for row in rows.all()
    ]


def test_a_round_robin_then_a_knockout_of_four_on_three_tables(table, app, ana):
    tournament = Tournament.objects.open(
        ana, name="Torneio de Natal", pairs=PAIRS[:6], tables=3, mocas_to_win=1,
        format="round_robin_knockout", knockout_size=4,
    )  # fmt: skip
    errors = []
    organiser = table(f"/tournaments/{tournament.pk}/", ana)
    watch_errors(organiser, errors)
    projector = table(f"/tournaments/watch/{tournament.watch_token}/", width=1920, height=1080)
    watch_errors(projector, errors)
    pairs = list(tournament.pairs.all())
    names = {pair.pk: pair.name for pair in pairs}
    first = {pair.pk: pair.first for pair in pairs}
    links = {t.number: f"{app.url}/tables/{t.token}/" for t in tournament.tables.all()}
    phones = {}
    for pair in pairs:
        phones[pair.pk] = table("/")
        watch_errors(phones[pair.pk], errors)

    for number in range(1, 8):
        round_name = ROUNDS.get(number, f"Ronda {number}")
        organiser.get_by_role("button", name=START.get(number, f"Começar a ronda {number}")).click()
        expect(organiser.locator("#round-title")).to_have_text(round_name, timeout=FOLLOW)
        expect(projector.locator(".screen-head")).to_contain_text(
            f"{round_name} · ", timeout=FOLLOW
        )
        drawn = tournament.progress().rounds[-1].series
        for series in drawn:
            for pair in (series.a, series.b):
                phone = phones[pair]
                if number == 1:
                    phone.goto(links[series.table])
                else:
                    go = phone.get_by_role("link", name=f"Vá para a Mesa {series.table}")
                    expect(go).to_be_visible(timeout=FOLLOW)
                    go.click()
                expect(phone.locator("#series")).to_contain_text(
                    f"Mesa {series.table} · ", timeout=LOAD
                )
                name = re.compile(rf"^{re.escape(first[pair])}(\s|$)")
                phone.get_by_role("button", name=name).click()
                expect(phone).to_have_url(re.compile(r"/matches/\d+/$"), timeout=LOAD)
                expect(phone.locator(".bar .who")).to_contain_text(first[pair])
                # Its table, round (a knockout's by its name), moca and the series' score.
                card = phone.locator("#series")
                expect(card).to_contain_text(f"Mesa {series.table} · {round_name} · Moca 1")
                expect(card).to_contain_text(f"{names[series.a]} 0–0 {names[series.b]}")
            # The pair registered first wins in the round robin; in the knockout the one
            # registered last, so the round robin's leader is not the champion.
            winner = min(series.a, series.b) if number < 6 else max(series.a, series.b)
            loser = series.b if winner == series.a else series.a
            if number == 1 and series.table == 1:
                shoot(phones[winner], "night-pt-PT-phone-mid-series-360x640", whole=True)
            if number == 2 and series.table == 3:
                walk_over_and_back(organiser, phones, names, series, winner)
            else:
                tap(phones[winner], "a" if winner == series.a else "b", 4)
                for pair in (series.a, series.b):
                    expect(phones[pair].locator(".banner")).to_contain_text(
                        f"Série ganha por {names[winner]}, 1–0 em mocas.", timeout=FOLLOW
                    )
                    expect(phones[pair].locator("#series")).to_contain_text(
                        f"{names[series.a]} {int(winner == series.a)}–"
                        f"{int(winner == series.b)} {names[series.b]}"
                    )
            if number == 1 and series.table == 1:
                expect(phones[winner].locator("#series-next")).to_contain_text(
                    f"{names[winner]}: à espera do sorteio: Ronda 2.", timeout=FOLLOW
                )
                shoot(phones[winner], "night-pt-PT-phone-after-series-360x640", whole=True)
            if number == 6 and series.table == 1:  # one semi-final won, one in play
                expect(projector.locator(".bracket")).to_contain_text(
                    f"{names[winner]} mocas: 1", timeout=FOLLOW
                )
                shoot(projector, "night-pt-PT-projector-knockout-1920x1080", whole=True)
            if number == 6:  # the semi-finals' losers
                expect(phones[loser].locator("#series-next")).to_contain_text(
                    f"{names[loser]}: fora da eliminatória.", timeout=FOLLOW
                )
        if number == 5:  # the round robin is over: the last two are out
            for pair in pairs[4:]:
                expect(phones[pair.pk].locator("#series-next")).to_contain_text(
                    f"{pair.name}: fora da eliminatória.", timeout=FOLLOW
                )

    final = drawn[0]
    champion, runner_up = max(final.a, final.b), min(final.a, final.b)
    leader = pairs[0].pk
    assert champion != leader
    assert tournament.progress().champion == champion
    expect(phones[champion].locator("#series-next")).to_contain_text(
        f"{names[champion]}: campeões do torneio!", timeout=FOLLOW
    )
    expect(phones[runner_up].locator("#series-next")).to_contain_text(
        f"o torneio terminou; os campeões são {names[champion]}."
    )
    shoot(phones[champion], "night-pt-PT-phone-champions-360x640", whole=True)

    # The champion first everywhere: the final's loser 2nd, the semi-finals' losers 3rd.
    semi_losers = sorted(names[p] for p in (pairs[0].pk, pairs[1].pk))
    expected_top = [("1", names[champion]), ("2", names[runner_up])]
    rest = [("5", names[pairs[4].pk]), ("6", names[pairs[5].pk])]

    def check(rows):
        assert rows[:2] == expected_top, rows
        assert [place for place, _ in rows[2:4]] == ["3", "3"], rows
        assert sorted(name for _, name in rows[2:4]) == semi_losers, rows
        assert rows[4:] == rest, rows

    expect(projector.locator(".champion-banner")).to_have_text(
        f"Campeões: {names[champion]}", timeout=FOLLOW
    )
    expect(projector.locator(".standings caption")).to_have_text("Classificação final")
    check(places(projector.locator(".standings")))
    shoot(projector, "night-pt-PT-projector-champion-1920x1080", whole=True)

    expect(organiser.locator("#standings-title")).to_have_text(
        "Classificação final", timeout=FOLLOW
    )
    expect(organiser.locator(".champion-banner")).to_contain_text(names[champion])
    check(places(organiser.locator(".standings")))
    shoot(organiser, "night-pt-PT-organiser-end-360x640", whole=True)
    organiser.set_viewport_size({"width": 1920, "height": 1080})
    shoot(organiser, "night-pt-PT-organiser-end-1920x1080", whole=True)

    # The standings CSV, as the page's link downloads it with the organiser's session.
    link = organiser.get_by_role("link", name="Classificação (CSV)")
    response = organiser.request.get(f"{app.url}{link.get_attribute('href')}")
    assert response.ok
    body = response.body().decode("utf-8-sig")
    rows = list(csv.reader(io.StringIO(body), delimiter=";"))
    check([(row[0], row[1]) for row in rows[1:]])
    assert rows[1][-1] and rows[2][-1], rows  # the knockout's column says how each went
    assert not errors, errors


def walk_over_and_back(organiser, phones, names, series, winner):
    """Table 3's series: the organiser records a walkover (asked first), the phones read it
    as one; it is undone, the phones are back in their rubber; and it is recorded again."""
    table_phones = [phones[series.a], phones[series.b]]
    walkover = f"Falta de comparência: vitória de {names[winner]}"

    def record():
        # Opened once: the board's refreshes as the phones take their seats keep it open.
        card = organiser.locator(".table-card").nth(2)
        card.get_by_text("Falta de comparência…").click()
        card.get_by_role("button", name=f"Vitória de {names[winner]}").click()
        expect(
            organiser.get_by_role("heading", name="Marcar uma falta de comparência?")
        ).to_be_visible()
        organiser.get_by_role("button", name=re.compile("^Marcar a falta de comparência")).click()
        expect(organiser.locator("#messages")).to_contain_text(
            "A falta de comparência ficou registada"
        )
        for phone in table_phones:
            expect(phone.locator("#result")).to_contain_text(walkover, timeout=FOLLOW)
            expect(phone.locator("#result")).not_to_contain_text("ninguém a ganhou")
            for pair in (series.a, series.b):
                expect(phone.locator("#series-next")).to_contain_text(
                    f"{names[pair]}: à espera do sorteio: Ronda 3.", timeout=FOLLOW
                )

    record()
    shoot(phones[winner], "night-pt-PT-phone-walkover-360x640", whole=True)
    organiser.get_by_role("button", name="Anular a falta de comparência").click()
    expect(organiser.locator("#messages")).to_contain_text("foi anulada")
    for phone in table_phones:
        expect(phone.locator("#result")).to_have_count(0, timeout=FOLLOW)
        expect(phone.get_by_role("heading", name="Mão 1", exact=True)).to_be_visible()
        expect(phone.locator("#series")).to_contain_text(f"{names[series.a]} 0–0 {names[series.b]}")
    record()

"""A tournament's rubber knows its table: the sheet, the table's link and the API say
the tournament, the table, the round, the moca and the series' score; between mocas the
table is told how the last one ended; after a series, where each pair goes next."""

import html
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import translation

from matches.models import Match
from tests.tournaments import play_round, tournament_of, win_rubber, win_series
from tournaments.models import Table


@pytest.fixture
def pt(client):
    """The pages in European Portuguese, as the app speaks by default."""
    client.cookies["django_language"] = "pt-pt"
    yield client
    translation.activate("en")


def seat(match_id, position, user):
    """``user`` takes seat ``position`` of the rubber, as a tap on a name at the table."""
    match = Match.objects.get(pk=match_id)
    match.join(user, token=match.night.join_token, position=position)


def started(ana, **options):
    tournament = tournament_of(ana, **options)
    tournament.start_round(ana)
    return tournament, tournament.progress().rounds[-1].series


def words(content) -> str:
    """A page's text as a person reads it: no tags, entities read, spaces made one."""
    text = html.unescape(re.sub(r"<[^>]+>", " ", content.decode()))
    return re.sub(r"\s+", " ", text).replace(" ,", ",").replace(" .", ".").replace(" :", ":")


def page(client, user, match_id):
    client.force_login(user)
    response = client.get(reverse("match", args=[match_id]))
    assert response.status_code == 200
    return words(response.content)


def test_the_sheet_says_the_tournament_table_round_moca_and_series(pt, ana, ze):
    tournament, series = started(ana, pairs=4, tables=2, mocas_to_win=2)
    second = series[1]
    win_rubber(second.current_match, "a")
    now = tournament.progress().series_by_id(second.id)
    seat(now.current_match, "b1", ze)
    shown = page(pt, ze, now.current_match)
    assert "Torneio de Natal" in shown
    assert "Mesa 2 · Ronda 1 · Moca 2" in shown
    names = {pair.pk: pair.name for pair in tournament.pairs.all()}
    assert names[second.a] in shown and names[second.b] in shown
    assert f"{names[second.a]} 1–0 {names[second.b]}" in shown
    assert "A série vai para o primeiro par que ganhar 2 mocas." in shown


def test_an_ordinary_rubber_says_no_tournament(pt, match, ana):
    shown = page(pt, ana, match.pk)
    assert "Moca" not in shown


def test_between_mocas_the_table_is_told_who_won_the_last(pt, ana, rui):
    tournament, series = started(ana, pairs=4, tables=2, mocas_to_win=2)
    first = series[0]
    win_rubber(first.current_match, "b")
    now = tournament.progress().series_by_id(first.id)
    seat(now.current_match, "a1", ana)
    b = tournament.pairs.get(pk=first.b).name
    shown = page(pt, ana, now.current_match)
    assert f"Moca 1 ganha por {b}, 4 a 0. Começou a moca 2." in shown
    assert "Começou a moca 2." in shown
    # Once the first deal is in, the moment is over.
    match = Match.objects.get(pk=now.current_match)
    match.record(ana, deal=1, side="a", games=1)
    assert "Começou a moca 2." not in page(pt, ana, now.current_match)


def test_the_bar_names_the_phone_by_its_seat(pt, ana, olga):
    """A phone handed round the table: Olga's account holds seat b1, named Zé."""
    _tournament, series = started(ana, pairs=2, tables=1, mocas_to_win=2)
    seat(series[0].current_match, "b1", olga)
    shown = page(pt, olga, series[0].current_match)
    assert "Zé · Menu" in shown and "Olga" not in shown


def finish_series(tournament, series, winner_first, user, position="a1"):
    """The series is won by the pair of ``winner_first``, ``user`` seated throughout."""
    seat(series.current_match, position, user)
    return win_series(tournament, series.id, winner_first)


def test_after_a_series_the_sheet_says_who_won_and_asks_where_next(pt, ana, rui):
    tournament, series = started(ana, pairs=4, tables=2, mocas_to_win=2)
    first = tournament.pairs.get(pk=series[0].a).first
    done = finish_series(tournament, series[0], first, rui)
    shown = page(pt, rui, done.matches[-1])
    winner = tournament.pairs.get(pk=series[0].a).name
    assert f"Série ganha por {winner}, 2–0 em mocas." in shown
    assert "Para onde vão os pares a seguir?" in shown
    assert "anfitrião" not in shown


def going(client, tournament, series_id, side="a"):
    table = Table.objects.get(tournament=tournament, number=1)
    url = reverse("series_next", args=[table.token, series_id])
    response = client.get(url, {"side": side}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    return words(response.content)


def test_where_next_waits_for_the_round_then_names_the_table(pt, ana, rui):
    tournament, series = started(ana, pairs=4, tables=2, mocas_to_win=2)
    names = {pair.pk: pair.name for pair in tournament.pairs.all()}
    win_series(tournament, series[0].id, tournament.pairs.get(pk=series[0].a).first)
    said = going(pt, tournament, series[0].id)
    assert f"{names[series[0].a]}: à espera do sorteio: Ronda 2." in said
    play_round(tournament)
    tournament.start_round(ana)
    drawn = tournament.progress().rounds[-1].series
    mine = next(one for one in drawn if series[0].a in (one.a, one.b))
    said = going(pt, tournament, series[0].id)
    assert said.index(names[series[0].a]) < said.index(names[series[0].b])
    assert f"{names[series[0].a]} · Ronda 2 Vá para a Mesa {mine.table}" in said
    theirs = next(one for one in drawn if series[0].b in (one.a, one.b))
    assert f"{names[series[0].b]} · Ronda 2 Próxima: Mesa {theirs.table}" in said


def test_where_next_asked_again_with_nothing_new_leaves_the_card_in_place(pt, ana):
    tournament, series = started(ana, pairs=4, tables=2, mocas_to_win=2)
    win_series(tournament, series[0].id, tournament.pairs.get(pk=series[0].a).first)
    table = Table.objects.get(tournament=tournament, number=1)
    url = reverse("series_next", args=[table.token, series[0].id])
    card = pt.get(url, {"side": "a"}, HTTP_HX_REQUEST="true").content.decode()
    asks = html.unescape(re.search(r'hx-get="([^"]+)"', card).group(1))
    # Nothing new: no card comes to be swapped in under a finger on its link.
    assert pt.get(asks, HTTP_HX_REQUEST="true").status_code == 204
    assert pt.get(asks).status_code == 200  # opened as a page, it is the page
    play_round(tournament)
    tournament.start_round(ana)
    moved = pt.get(asks, HTTP_HX_REQUEST="true")
    assert moved.status_code == 200
    assert "Vá para a Mesa" in words(moved.content)


def test_where_next_while_the_series_is_played_says_so(pt, ana):
    tournament, series = started(ana, pairs=4, tables=2, mocas_to_win=2)
    assert "A série ainda está a ser jogada." in going(pt, tournament, series[0].id)


def test_where_next_needs_the_tables_link(pt, ana):
    _tournament, series = started(ana, pairs=4, tables=2, mocas_to_win=2)
    response = pt.get(reverse("series_next", args=["not-a-table-link", series[0].id]))
    assert response.status_code == 404


def test_out_of_the_knockout_and_the_champion(pt, ana):
    tournament, series = started(ana, pairs=4, tables=2, mocas_to_win=1, format="knockout")
    names = {pair.pk: pair.name for pair in tournament.pairs.all()}
    semi = series[0]
    win_series(tournament, semi.id, tournament.pairs.get(pk=semi.a).first)
    said = going(pt, tournament, semi.id)
    assert f"{names[semi.b]}: fora da eliminatória. Obrigado por terem jogado!" in said
    play_round(tournament)
    tournament.start_round(ana)
    final = tournament.progress().rounds[-1].series[0]
    win_series(tournament, final.id, tournament.pairs.get(pk=semi.a).first)
    said = going(pt, tournament, final.id)
    assert f"{names[semi.a]}: campeões do torneio!" in said
    other = final.b if final.a == semi.a else final.a
    assert f"{names[other]}: o torneio terminou; os campeões são {names[semi.a]}." in said


def test_a_new_series_at_the_table_says_who_plays_there_now(pt, ana, rui):
    tournament, series = started(ana, pairs=6, tables=2, mocas_to_win=2)
    waiting = series[2]
    done = finish_series(tournament, series[0], tournament.pairs.get(pk=series[0].a).first, rui)
    names = {pair.pk: pair.name for pair in tournament.pairs.all()}
    shown = page(pt, rui, done.matches[-1])
    assert f"Agora jogam na Mesa 1: {names[waiting.a]} – {names[waiting.b]}." in shown
    assert "peça o seu lugar" not in shown and "anfitrião" not in shown


def test_the_tables_link_shows_the_series(pt, ana):
    tournament, _series = started(ana, pairs=4, tables=2, mocas_to_win=2)
    table = Table.objects.get(tournament=tournament, number=2)
    join = pt.get(reverse("table", args=[table.token]), follow=True)
    shown = words(join.content)
    assert "Torneio de Natal Mesa 2 · Ronda 1 · Moca 1" in shown
    assert "anfitrião" not in shown


def test_the_api_says_where_a_tournament_rubber_stands(api_as, ana):
    tournament, series = started(ana, pairs=4, tables=2, mocas_to_win=2)
    win_rubber(series[1].current_match, "b")
    now = tournament.progress().series_by_id(series[1].id)
    answer = api_as(ana).get(f"/api/matches/{now.current_match}/").json()
    assert answer["tournament"] == {
        "id": tournament.pk,
        "table": 2,
        "round": 1,
        "series": series[1].id,
        "moca": 2,
        "mocas": {"a": 0, "b": 1},
    }


def test_the_api_says_no_tournament_for_an_ordinary_rubber(api_as, match, ana):
    assert api_as(ana).get(f"/api/matches/{match.pk}/").json()["tournament"] is None


def test_a_tournament_sheet_reads_in_a_fixed_number_of_queries(client, ana, rui):
    """Moca 1, 2 or 3 of a series: the same count, one query more than an ordinary
    rubber's (its series' rubbers)."""
    tournament, series = started(ana, pairs=2, tables=1, mocas_to_win=5)
    seat(series[0].current_match, "a1", rui)
    client.force_login(rui)
    counted = []
    for _moca in range(3):
        now = tournament.progress().series_by_id(series[0].id)
        with CaptureQueriesContext(connection) as read:
            assert client.get(reverse("match", args=[now.current_match])).status_code == 200
        counted.append(len(read.captured_queries))
        win_rubber(now.current_match, "a")
    assert len(set(counted)) == 1, counted


def test_after_the_round_robin_the_pairs_left_out_of_the_knockout_are_thanked(pt, ana):
    tournament = tournament_of(
        ana, pairs=6, tables=3, mocas_to_win=1, format="round_robin_knockout", knockout_size=4
    )
    for _round in range(5):  # the pair registered first wins every meeting: no one level
        tournament.start_round(ana)
        now = play_round(tournament, winners=lambda series: min(series.a, series.b))
    last = now.rounds[-1].series
    top = {standing.pair for standing in now.standings[:4]}
    names = {pair.pk: pair.name for pair in tournament.pairs.all()}
    for series in last:
        said = going(pt, tournament, series.id)
        for pair in (series.a, series.b):
            if pair in top:
                assert f"{names[pair]}: à espera do sorteio: Meias-finais." in said
            else:
                assert f"{names[pair]}: fora da eliminatória." in said


def test_a_knockout_rubber_names_its_round_by_what_it_is(pt, ana):
    tournament, series = started(ana, pairs=4, tables=2, mocas_to_win=1, format="knockout")
    assert "Mesa 1 · Meias-finais · Moca 1" in page(pt, ana, series[0].current_match)
    play_round(tournament, winners=lambda series: min(series.a, series.b))
    winner = min(series[0].a, series[0].b)
    name = tournament.pairs.get(pk=winner).name
    assert f"{name}: à espera do sorteio: Final." in going(pt, tournament, series[0].id)
    tournament.start_round(ana)
    final = tournament.progress().rounds[-1].series[0]
    assert "Mesa 1 · Final · Moca 1" in page(pt, ana, final.current_match)

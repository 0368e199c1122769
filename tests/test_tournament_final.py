"""A tournament's end as the room reads it: the final places (the champion first) in the
API, the standings page, the projector and the CSV; knockout rounds named by what they
are; the bracket on the organiser's page and the projector; the tie-breaks as sentences."""

import csv
import io
from itertools import pairwise

import pytest
from django.urls import reverse

from tests.tournaments import pair_id, play_round, tournament_of
from tournaments import board as boards


def lower(series):
    """The pair registered first wins: a round robin with no two pairs level."""
    return min(series.a, series.b)


def knockout_of_four(ana, pairs=6):
    """Round robin (the pair registered first wins every series, so Ana & Rui lead it),
    then a knockout of the top 4 (``play_knockout``)."""
    tournament = tournament_of(
        ana, pairs=pairs, tables=3, mocas_to_win=1, format="round_robin_knockout", knockout_size=4
    )
    while not tournament.progress().round_robin_done:
        tournament.start_round(ana)
        play_round(tournament, winners=lower)
    return tournament


def play_knockout(tournament, ana):
    """The pair registered last wins every series: after a round robin of 6, Beatriz &
    Duarte (4th) beat Ana & Rui, Inês & Tiago (3rd) beat Zé & Maria, and Beatriz & Duarte
    win the final."""
    while True:
        now = tournament.progress()
        if not now.rounds[-1].finished:
            play_round(tournament, winners=lambda series: max(series.a, series.b))
        elif now.next_round is not None:
            tournament.start_round(ana)
        else:
            return now


def names(tournament, final):
    by_id = {pair.pk: pair.name for pair in tournament.pairs.all()}
    return [(place.place, [by_id[pair] for pair in place.pairs]) for place in final]


def test_after_the_final_the_champion_is_first_and_the_round_robins_leader_third(ana):
    tournament = knockout_of_four(ana)
    now = play_knockout(tournament, ana)
    assert now.finished and now.champion == pair_id(tournament, "Beatriz")
    assert names(tournament, now.final) == [
        (1, ["Beatriz & Duarte"]),
        (2, ["Inês & Tiago"]),
        (3, ["Ana & Rui", "Zé & Maria"]),
        (5, ["Carla & Nuno"]),
        (6, ["Sofia & Hugo"]),
    ]
    listed = boards.read(tournament).listed
    assert [(line.place, line.name) for line in listed][:3] == [
        (1, "Beatriz & Duarte"),
        (2, "Inês & Tiago"),
        (3, "Ana & Rui"),
    ]
    assert [line.stage for line in listed] == [
        "Champions",
        "Lost the final",
        "Out in the semi-finals",
        "Out in the semi-finals",
        "",
        "",
    ]
    # The round robin's standings are as they were: Ana & Rui lead them.
    assert boards.read(tournament).standings[0].name == "Ana & Rui"


def test_a_knockout_of_eight_places_the_quarter_finals_losers_fifth(ana):
    tournament = tournament_of(
        ana, pairs=8, tables=4, mocas_to_win=1, format="round_robin_knockout", knockout_size=8
    )
    while not tournament.progress().round_robin_done:
        tournament.start_round(ana)
        play_round(tournament, winners=lower)
    now = play_knockout(tournament, ana)
    assert [(place.place, len(place.pairs)) for place in now.final] == [
        (1, 1),
        (2, 1),
        (3, 2),
        (5, 4),
    ]
    board = boards.read(tournament)
    assert [round.name for round in board.bracket] == ["Quarter-finals", "Semi-finals", "Final"]


def test_a_knockout_alone_places_every_pair_and_names_its_first_round_by_its_bracket(ana):
    tournament = tournament_of(ana, pairs=6, tables=3, mocas_to_win=1, format="knockout")
    tournament.start_round(ana)
    board = boards.read(tournament)
    assert board.current_round.name == "Quarter-finals"  # 6 pairs: a bracket of 8
    assert len(board.current_round.byes) == 2
    assert [len(round.slots) for round in board.bracket] == [4, 2, 1]
    byes = [slot for slot in board.bracket[0].slots if slot.bye]
    assert len(byes) == 2 and all(slot.goes_on == slot.bye for slot in byes)
    play_round(tournament)
    assert boards.read(tournament).start_label == "Start the semi-finals"
    now = play_knockout(tournament, ana)
    assert [(place.place, len(place.pairs)) for place in now.final] == [
        (1, 1),
        (2, 1),
        (3, 2),
        (5, 2),
    ]
    # Each round's slots sit beside the slot each of its pairs came from.
    bracket = boards.read(tournament).bracket
    for earlier, later in pairwise(bracket):
        fed = [pair for slot in later.slots for pair in slot.pairs]
        assert [slot.goes_on for slot in earlier.slots] == fed


def test_a_round_robin_ended_during_its_knockout_places_by_the_round_robin(ana):
    tournament = knockout_of_four(ana)
    tournament.start_round(ana)  # the semi-finals
    tournament.end(ana)
    now = tournament.progress()
    assert now.finished and now.champion is None
    assert [place.pairs[0] for place in now.final] == [line.pair for line in now.standings]
    assert boards.read(tournament).listed[0].stage == ""


def test_a_knockout_alone_ended_early_has_no_final_places(ana):
    tournament = tournament_of(ana, pairs=4, tables=2, mocas_to_win=1, format="knockout")
    tournament.start_round(ana)
    play_round(tournament)
    tournament.end(ana)
    now = tournament.progress()
    assert now.finished and now.final == []
    board = boards.read(tournament)
    assert board.listed == board.standings
    assert [round.name for round in board.bracket] == ["Semi-finals"]  # nothing left to draw


def test_a_round_robin_alone_places_as_its_standings(ana):
    tournament = tournament_of(ana, pairs=4, mocas_to_win=1)
    assert tournament.progress().final is None
    while tournament.progress().next_round is not None:
        tournament.start_round(ana)
        play_round(tournament, winners=lower)
    now = tournament.progress()
    assert [(place.place, place.pairs[0]) for place in now.final] == [
        (line.rank, line.pair) for line in now.standings
    ]
    assert boards.read(tournament).bracket == []


# The API -----------------------------------------------------------------------------


def test_the_api_shows_the_final_places_once_finished(api_as, ana):
    tournament = knockout_of_four(ana)
    api = api_as(ana)
    before = api.get(f"/api/tournaments/{tournament.pk}/").json()
    assert before["final"] is None and before["status"] == "in_play"
    assert [round["name"] for round in before["rounds"]][:2] == ["Round 1", "Round 2"]
    play_knockout(tournament, ana)
    after = api.get(f"/api/tournaments/{tournament.pk}/").json()
    ids = {pair["name"]: pair["id"] for pair in after["pairs"]}
    assert after["final"] == [
        {"place": 1, "pairs": [ids["Beatriz & Duarte"]]},
        {"place": 2, "pairs": [ids["Inês & Tiago"]]},
        {"place": 3, "pairs": [ids["Ana & Rui"], ids["Zé & Maria"]]},
        {"place": 5, "pairs": [ids["Carla & Nuno"]]},
        {"place": 6, "pairs": [ids["Sofia & Hugo"]]},
    ]
    assert after["champion"] == ids["Beatriz & Duarte"]
    assert [round["name"] for round in after["rounds"]][-2:] == ["Semi-finals", "Final"]
    watched = api_as().get(f"/api/tournaments/watch/{tournament.watch_token}/").json()
    assert watched["final"] == after["final"]


def test_the_api_answers_no_final_places_for_a_knockout_ended_early(api_as, ana):
    tournament = tournament_of(ana, pairs=4, tables=2, mocas_to_win=1, format="knockout")
    api = api_as(ana)
    api.post(f"/api/tournaments/{tournament.pk}/rounds/")
    answer = api.post(f"/api/tournaments/{tournament.pk}/end/").json()
    assert answer["status"] == "finished" and answer["final"] == []


def test_the_api_reads_in_portuguese_the_rounds_names(api_as, ana):
    tournament = knockout_of_four(ana)
    tournament.start_round(ana)
    rounds = (
        api_as(ana)
        .get(f"/api/tournaments/{tournament.pk}/", HTTP_ACCEPT_LANGUAGE="pt-PT")
        .json()["rounds"]
    )
    assert [rounds[0]["name"], rounds[-1]["name"]] == ["Ronda 1", "Meias-finais"]


# The pages and the CSV -------------------------------------------------------------


def test_the_standings_csv_lists_the_champion_first_with_its_place(client, ana):
    tournament = knockout_of_four(ana)
    client.force_login(ana)
    url = reverse("tournament_standings_csv", args=[tournament.pk])
    during = list(csv.reader(io.StringIO(client.get(url).content.decode("utf-8-sig"))))
    assert during[0][0] == "Final place" and during[1][:3] == ["", "Ana & Rui", "1"]
    play_knockout(tournament, ana)
    rows = list(csv.reader(io.StringIO(client.get(url).content.decode("utf-8-sig"))))
    header = rows[0]
    assert header[:3] == ["Final place", "Pair", "Rank"] and header[-1] == "Knockout"
    assert [(row[0], row[1], row[2], row[-1]) for row in rows[1:]] == [
        ("1", "Beatriz & Duarte", "4", "Champions"),
        ("2", "Inês & Tiago", "3", "Lost the final"),
        ("3", "Ana & Rui", "1", "Out in the semi-finals"),
        ("3", "Zé & Maria", "2", "Out in the semi-finals"),
        ("5", "Carla & Nuno", "5", ""),
        ("6", "Sofia & Hugo", "6", ""),
    ]
    portuguese = client.get(url, HTTP_ACCEPT_LANGUAGE="pt-PT").content.decode("utf-8-sig")
    assert "1;Beatriz & Duarte;4;" in portuguese and portuguese.rstrip().endswith(
        "6;Sofia & Hugo;6;0;0;5;0;5;0;20;;"
    )


def test_the_results_csv_names_the_knockout_rounds(client, ana):
    tournament = knockout_of_four(ana)
    play_knockout(tournament, ana)
    client.force_login(ana)
    body = client.get(
        reverse("tournament_results_csv", args=[tournament.pk]), HTTP_ACCEPT_LANGUAGE="pt-PT"
    ).content.decode("utf-8-sig")
    rows = list(csv.reader(io.StringIO(body), delimiter=";"))
    assert rows[0][:3] == ["Ronda", "Nome da ronda", "Fase"]
    assert [row[1] for row in rows[1:]][-3:] == ["Meias-finais", "Meias-finais", "Final"]
    assert rows[1][1] == "Ronda 1"


def test_the_organisers_page_names_the_round_draws_the_bracket_and_lists_the_champion_first(
    client, ana
):
    tournament = knockout_of_four(ana)
    client.force_login(ana)
    url = reverse("tournament", args=[tournament.pk])
    page = client.get(url, HTTP_ACCEPT_LANGUAGE="pt-PT").content.decode()
    assert "Começar as meias-finais" in page and "Ronda 6" not in page
    assert 'class="bracket"' not in page  # no knockout yet
    tournament.start_round(ana)
    page = client.get(url, HTTP_ACCEPT_LANGUAGE="pt-PT").content.decode()
    assert '<h2 id="round-title">Meias-finais</h2>' in page
    assert "Em jogo: Meias-finais. A ronda seguinte pode começar" in page
    assert page.count('class="bracket-round"') == 3  # the semi-finals, the final, the champion
    assert page.count("a definir") == 2
    play_knockout(tournament, ana)
    page = client.get(url, HTTP_ACCEPT_LANGUAGE="pt-PT").content.decode()
    assert '<h2 id="standings-title">Classificação final</h2>' in page
    bracket = page[page.index('class="bracket"') :]
    assert bracket.count('class="bracket-pair winner"') == 3 + 1  # two semis, the final, champion
    assert "a definir" not in bracket
    rows = page[page.index("<tbody>") :]
    first_row = rows[: rows.index("</tr>")]
    assert "Beatriz &amp; Duarte" in first_row and "★" in first_row and "Campeões" in first_row


def test_the_results_page_names_the_knockout_rounds(client, ana):
    tournament = knockout_of_four(ana)
    play_knockout(tournament, ana)
    client.force_login(ana)
    page = client.get(
        reverse("tournament_results", args=[tournament.pk]), HTTP_ACCEPT_LANGUAGE="pt-PT"
    ).content.decode()
    assert ">Final</h2>" in page and ">Meias-finais</h2>" in page and ">Ronda 5</h2>" in page
    assert "eliminatórias</h2>" not in page


def test_the_projector_shows_the_bracket_in_the_knockout_and_the_final_places_after(client, ana):
    tournament = knockout_of_four(ana)
    tournament.start_round(ana)
    url = reverse("tournament_watch", args=[tournament.watch_token])
    page = client.get(url, HTTP_ACCEPT_LANGUAGE="pt-PT").content.decode()
    assert 'class="bracket"' in page and "Meias-finais ·" in page
    assert 'class="tally standings"' not in page  # the bracket stands in for them
    play_knockout(tournament, ana)
    page = client.get(url, HTTP_ACCEPT_LANGUAGE="pt-PT").content.decode()
    assert 'class="bracket"' in page and "Classificação final" in page
    standings = page[page.index("<tbody>") :]
    assert standings.index("Beatriz &amp; Duarte") < standings.index("Ana &amp; Rui")
    assert "<abbr" not in page and "Lugar" in page and "Pontos" in page


def test_a_knockout_alone_shows_its_byes_in_the_bracket(client, ana):
    tournament = tournament_of(ana, pairs=5, tables=2, mocas_to_win=1, format="knockout")
    tournament.start_round(ana)
    client.force_login(ana)
    page = client.get(
        reverse("tournament", args=[tournament.pk]), HTTP_ACCEPT_LANGUAGE="pt-PT"
    ).content.decode()
    assert page.count("De folga, segue em frente") == 3
    assert "Quartos de final" in page


# The tie-breaks as a player says them -----------------------------------------------


@pytest.mark.parametrize("language", ["en", "pt-PT"])
def test_a_shared_rank_says_it_is_shared_and_a_pair_ahead_says_whom_it_is_ahead_of(ana, language):
    from django.utils import translation

    # Round 1 of five pairs: the two winners share the lead, level on everything; the
    # pair sitting out (0 mocas lost) is ahead of the two losers on moca difference.
    tournament = tournament_of(ana, pairs=5, tables=2, mocas_to_win=2)
    tournament.start_round(ana)
    play_round(tournament)
    with translation.override(language):
        lines = boards.read(tournament).standings
        reasons = {line.name: line.reason for line in lines}
    sitting_out = lines[2].name
    assert [line.rank for line in lines] == [1, 1, 3, 4, 4]
    if language == "en":
        assert (
            reasons[lines[0].name] == f"Shares the place with {lines[1].name}: level on everything"
        )
        assert reasons[sitting_out] == f"Ahead of {lines[3].name} on moca difference"
        assert (
            reasons[lines[4].name] == f"Shares the place with {lines[3].name}: level on everything"
        )
    else:
        assert reasons[lines[0].name].startswith(f"Partilha o lugar com {lines[1].name}")
        assert reasons[sitting_out] == f"À frente de {lines[3].name} na diferença de mocas"


def test_a_shared_place_ahead_of_the_next_pair_says_they_are_ahead_together():
    def line(name, rank, ahead_on=None):
        return boards.StandingLine(rank, name, name, 3, 1, 0, 2, 0, 8, 0, ahead_on, False)

    lines = [line("A", 1), line("B", 1, "moca_difference"), line("C", 3)]
    boards._explain(lines)
    assert [one.reason for one in lines] == [
        "Shares the place with B: level on everything",
        "Shares the place with A: level on everything; together, ahead of C on moca difference",
        "",
    ]


# Reading while the room plays ----------------------------------------------------------


def test_a_round_drawn_while_a_screen_reads_is_left_for_its_next_reading(ana):
    from django.db import connection

    tournament = tournament_of(ana, pairs=4, mocas_to_win=1)
    tournament.start_round(ana)
    play_round(tournament)
    drawn = []

    def draw_after_the_rounds_are_read(execute, sql, params, many, context):
        result = execute(sql, params, many, context)
        if not drawn and sql.lstrip().startswith("SELECT") and 'FROM "tournaments_round"' in sql:
            drawn.append(True)
            tournament.start_round(ana)  # the organiser, between the screen's queries
        return result

    with connection.execute_wrapper(draw_after_the_rounds_are_read):
        now = tournament.progress()
    assert drawn and len(now.rounds) == 1 and len(now.series()) == 2
    assert len(tournament.progress().rounds) == 2

"""A tournament played rubber by rubber through the sheets' own changes (models only)."""

import pytest

from matches import values
from matches.models import Match
from tests.tournaments import pair_id, play_round, tournament_of, win_rubber, win_series
from tournaments.models import Tournament


def test_a_round_puts_its_series_on_the_tables_and_the_rest_wait(ana):
    tournament = tournament_of(ana, pairs=6, tables=2)
    tournament.start_round(ana)
    now = tournament.progress()
    series = now.rounds[0].series
    assert [s.table for s in series] == [1, 2, None]
    assert series[2].current_match is None and series[2].waiting
    first = Match.objects.get(pk=series[0].current_match)
    assert first.host == ana
    names = {seat.position: seat.name for seat in first.seat_list()}
    a, b = (tournament.pairs.get(pk=pk) for pk in (series[0].a, series[0].b))
    assert names == {"a1": a.first, "a2": a.second, "b1": b.first, "b2": b.second}


def test_the_series_next_rubber_starts_by_itself_with_the_same_seats(ana):
    tournament = tournament_of(ana, pairs=4, tables=2, mocas_to_win=2)
    tournament.start_round(ana)
    series = tournament.progress().rounds[0].series[0]
    first = series.current_match
    win_rubber(first, "a")
    now = tournament.progress().series_by_id(series.id)
    assert now.mocas == {"a": 1, "b": 0} and not now.decided
    following = Match.objects.get(pk=now.current_match)
    assert following.previous_id == first
    assert Match.objects.get(pk=first).next_rubber_id() == following.pk
    # the deal passes on round the table
    assert following.first_dealer != "a1"


def test_a_rubber_ended_early_decides_nothing(ana):
    tournament = tournament_of(ana, pairs=2, tables=1, mocas_to_win=1)
    tournament.start_round(ana)
    series = tournament.progress().rounds[0].series[0]
    Match.objects.get(pk=series.current_match).end(ana)
    now = tournament.progress().series_by_id(series.id)
    assert now.mocas == {"a": 0, "b": 0}
    assert now.current_match is not None and now.current_match != series.current_match


def test_a_decided_series_hands_its_table_to_the_next_waiting_series(ana):
    tournament = tournament_of(ana, pairs=6, tables=2, mocas_to_win=2)
    tournament.start_round(ana)
    first, _, waiting = tournament.progress().rounds[0].series
    last = win_series(tournament, first.id, tournament.pairs.get(pk=first.a).first)
    assert last.winner == first.a and last.mocas == {"a": 2, "b": 0}
    now = tournament.progress().series_by_id(waiting.id)
    assert now.table == 1 and now.current_match is not None
    # the phones of the table's last rubber follow to it
    assert Match.objects.get(pk=now.current_match).previous_id == last.matches[-1]


def test_round_robin_plays_to_its_champion(ana):
    tournament = tournament_of(ana, pairs=4, tables=2, mocas_to_win=1)
    for _ in range(3):
        tournament.start_round(ana)
        play_round(tournament, winners=lambda series: min(series.a, series.b))
    now = tournament.progress()
    assert now.finished and now.status == "finished"
    assert now.champion == pair_id(tournament, "Ana")
    assert [s.points for s in now.standings] == [9, 6, 3, 0]
    with pytest.raises(values.Conflict, match="No round is left"):
        tournament.start_round(ana)


def test_a_round_cannot_start_while_one_is_being_played(ana):
    tournament = tournament_of(ana, pairs=4)
    tournament.start_round(ana)
    with pytest.raises(values.Conflict, match="Round 1 is still being played"):
        tournament.start_round(ana)


def test_only_the_organiser_starts_a_round(ana, olga):
    tournament = tournament_of(ana, pairs=4)
    with pytest.raises(values.Refusal, match="Only the tournament's organiser"):
        tournament.start_round(olga)
    assert not tournament.rounds.exists()


def test_knockout_plays_to_its_champion_with_byes_in_the_first_round(ana):
    tournament = tournament_of(ana, pairs=5, tables=2, mocas_to_win=1, format="knockout")
    tournament.start_round(ana)
    first = tournament.progress().rounds[0]
    assert len(first.byes) == 3 and len(first.series) == 1
    play_round(tournament)
    tournament.start_round(ana)
    assert not tournament.progress().rounds[1].byes
    play_round(tournament)
    tournament.start_round(ana)
    now = play_round(tournament)
    assert len(now.rounds[2].series) == 1
    now = tournament.progress()
    assert now.finished and now.champion == now.rounds[2].series[0].winner


def test_round_robin_then_knockout_seeds_one_against_four(ana):
    tournament = tournament_of(
        ana, pairs=4, tables=2, mocas_to_win=1, format="round_robin_knockout", knockout_size=4
    )
    for _ in range(3):
        tournament.start_round(ana)
        play_round(tournament, winners=lambda series: min(series.a, series.b))
    standings = tournament.progress().standings
    tournament.start_round(ana)
    knockout = tournament.progress().rounds[3]
    assert knockout.phase == "knockout"
    seeds = [s.pair for s in standings]
    assert [(s.a, s.b) for s in knockout.series] == [(seeds[0], seeds[3]), (seeds[1], seeds[2])]
    play_round(tournament, winners=lambda series: series.b)  # the underdogs win
    # knockout series don't change the round robin's standings
    assert [s.pair for s in tournament.progress().standings] == seeds
    tournament.start_round(ana)
    now = play_round(tournament)
    now = tournament.progress()
    assert now.finished and now.champion == seeds[3]


def test_a_walkover_is_won_mocas_to_win_to_nil_and_the_table_plays_on(ana):
    tournament = tournament_of(ana, pairs=6, tables=2, mocas_to_win=3)
    tournament.start_round(ana)
    first, _, waiting = tournament.progress().rounds[0].series
    tournament.walkover(ana, first.id, first.b)
    now = tournament.progress()
    state = now.series_by_id(first.id)
    assert state.walkover and state.winner == first.b
    assert state.mocas == {"a": 0, "b": 3} and state.games == {"a": 0, "b": 0}
    assert Match.objects.get(pk=first.current_match).status == Match.ENDED
    assert now.series_by_id(waiting.id).table == 1
    standing = next(s for s in now.standings if s.pair == first.b)
    assert (standing.points, standing.mocas_won, standing.games_won) == (3, 3, 0)


def test_no_walkover_once_a_rubber_of_the_series_was_won(ana):
    tournament = tournament_of(ana, pairs=4, tables=2, mocas_to_win=3)
    tournament.start_round(ana)
    series = tournament.progress().rounds[0].series[0]
    win_rubber(series.current_match, "a")
    with pytest.raises(values.Conflict, match="can't be a walkover"):
        tournament.walkover(ana, series.id, series.b)
    assert not tournament.progress().series_by_id(series.id).walkover


def test_a_negra_orders_two_pairs_that_share_a_rank(ana):
    # Ana's pair beats Zé's, Zé's beats Inês's, Inês's beats Ana's: all three level.
    tournament = tournament_of(ana, pairs=3, tables=1, mocas_to_win=1)
    ana_s, ze_s, ines_s = (pair_id(tournament, name) for name in ("Ana", "Zé", "Inês"))
    beats = {ana_s: ze_s, ze_s: ines_s, ines_s: ana_s}
    for _ in range(3):
        tournament.start_round(ana)
        play_round(tournament, winners=lambda s: s.a if beats[s.a] == s.b else s.b)
    now = tournament.progress()
    assert [s.rank for s in now.standings] == [1, 1, 1]
    with pytest.raises(values.InvalidInput, match="two different pairs"):
        tournament.play_negra(ana, [ana_s, ana_s])
    match = tournament.play_negra(ana, [ze_s, ana_s])
    assert match.host == ana
    assert [s.name for s in match.seat_list()] == ["Zé", "Maria", "Ana", "Rui"]
    win_rubber(match.pk, "a")  # Zé's pair wins it
    # three level: negras two at a time, until the rank is settled
    assert [s.rank for s in tournament.progress().standings] == [1, 1, 1]
    win_rubber(tournament.play_negra(ana, [ze_s, ines_s]).pk, "a")
    standings = tournament.progress().standings
    assert [(s.pair, s.rank) for s in standings] == [(ze_s, 1), (ana_s, 2), (ines_s, 2)]
    assert standings[0].ahead_on == "negra"
    # a negra's mocas and games count in no figure
    assert all(s.mocas_won == 1 and s.games_won == 4 for s in standings)


def test_no_negra_between_pairs_that_do_not_share_a_rank(ana):
    tournament = tournament_of(ana, pairs=4, tables=2, mocas_to_win=1)
    for _ in range(3):
        tournament.start_round(ana)
        play_round(tournament, winners=lambda series: min(series.a, series.b))
    with pytest.raises(values.Conflict, match="don't share a rank"):
        tournament.play_negra(ana, [pair_id(tournament, "Ana"), pair_id(tournament, "Zé")])


def test_the_organiser_ends_the_tournament(ana):
    tournament = tournament_of(ana, pairs=4)
    tournament.start_round(ana)
    tournament.end(ana)
    now = tournament.progress()
    assert now.finished
    with pytest.raises(values.Conflict):
        tournament.start_round(ana)


def test_the_pairs_change_until_the_first_round(ana):
    tournament = tournament_of(ana, pairs=4)
    tournament.set_pairs(ana, [["Ana", "Zé"], ["Rui", "Maria"]])
    assert [p.name for p in tournament.pairs.all()] == ["Ana & Zé", "Rui & Maria"]
    tournament.start_round(ana)
    with pytest.raises(values.Conflict, match="can't change"):
        tournament.set_pairs(ana, [["Ana", "Zé"], ["Rui", "Maria"]])


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"pairs": [["Ana", "Rui"]]}, "from 2 to 64 pairs"),
        ({"pairs": [["Ana", "Rui"], ["Ana", "Zé"]]}, "Ana is in two pairs"),
        ({"pairs": [["Ana"], ["Zé", "Maria"]]}, "Pair 1"),
        ({"tables": 0}, "Tables must be a whole number"),
        ({"mocas_to_win": "x"}, "Mocas to win must be a whole number"),
        ({"format": "swiss"}, "The format must be"),
        ({"format": "round_robin_knockout", "knockout_size": 3}, "top 2, 4 or 8"),
        ({"format": "round_robin_knockout", "knockout_size": 8}, "there are 2"),
        ({"rounds": 5}, "Rounds must be a whole number from 1 to 1"),
    ],
)
def test_bad_options_are_refused_and_nothing_is_made(ana, options, message):
    options = {"pairs": [["Ana", "Rui"], ["Zé", "Maria"]], **options}
    with pytest.raises(values.InvalidInput, match=message):
        Tournament.objects.open(ana, name="Torneio", **options)
    assert not Tournament.objects.exists()

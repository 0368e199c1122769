"""Standings across nights: per player, and pair against pair, computed in SQL."""

import pytest

from matches.models import Match
from matches.standings import standings
from tests.conftest import SEAT_NAMES
from tests.nights import SWAP_PARTNERS, four_rubbers, play


@pytest.fixture
def rubbers(match, ana, ze):
    return four_rubbers(match, ana, ze)


def line(players, name):
    return next(player for player in players if player.name == name)


def test_players_rubbers_won_and_win_rate(rubbers, rui):
    players = standings(Match.objects.played_by(rui)).players
    assert [p.name for p in players] == ["Rui", "Ana", "Maria", "Zé"]
    rui_line = line(players, "Rui")
    assert (rui_line.rubbers, rui_line.won, rui_line.finished, rui_line.games) == (4, 3, 3, 14)
    assert rui_line.rate == 1.0
    ana_line = line(players, "Ana")
    assert (ana_line.rubbers, ana_line.won, ana_line.finished, ana_line.ended_early) == (4, 2, 3, 1)
    assert ana_line.rate == pytest.approx(2 / 3)
    assert line(players, "Zé").rate == 0.0
    assert line(players, "Zé").user is not None


def test_pair_against_pair_whichever_sides_they_sat_on(rubbers, rui):
    meetings = standings(Match.objects.played_by(rui)).head_to_head
    assert [(m.pairs, m.rubbers, m.won, m.ended_early) for m in meetings] == [
        (("Ana & Rui", "Zé & Maria"), 2, (2, 0), 0),
        (("Ana & Zé", "Rui & Maria"), 2, (0, 1), 1),
    ]


def test_standings_span_nights_and_follow_filters(rubbers, ana, rui):
    tonight = rubbers[0].night
    next_night = Match.objects.start(ana, SEAT_NAMES, host_seat="a1")
    for position in ("a2", "b1", "b2"):
        next_night.seats.filter(position=position).update(user=None)
    play(next_night, ana, ("b", 4))  # Ana with an unseated "Rui" loses to names alone
    everything = standings(Match.objects.played_by(ana))
    ana_line = line(everything.players, "Ana")
    assert (ana_line.rubbers, ana_line.won, ana_line.finished) == (5, 2, 4)
    assert [p.user for p in everything.players if p.name == "Rui"].count(None) == 1
    only_tonight = standings(Match.objects.played_by(ana).filter(night=tonight))
    assert line(only_tonight.players, "Ana").rubbers == 4


def test_seats_without_accounts_count_by_name(ana):
    first = Match.objects.start(ana, {"a1": "Rita", "a2": "Tó", "b1": "Nuno", "b2": "Inês"})
    play(first, ana, ("b", 2), ("b", 2))
    second = first.rematch(ana, SWAP_PARTNERS)  # Rita & Nuno against Tó & Inês
    play(second, ana, ("a", 4))
    table = standings(Match.objects.played_by(ana))
    rita = line(table.players, "Rita")
    assert (rita.user, rita.rubbers, rita.won) == (None, 2, 1)
    assert [(m.pairs, m.won) for m in table.head_to_head] == [
        (("Nuno & Inês", "Rita & Tó"), (1, 0)),
        (("Rita & Nuno", "Tó & Inês"), (1, 0)),
    ]


def test_standings_take_three_queries_however_many_rubbers(
    match, ana, rui, django_assert_num_queries
):
    # The players, the meetings, and the seating of each meeting's first rubber.
    with django_assert_num_queries(3):
        standings(Match.objects.played_by(ana))
    previous = match
    for _ in range(12):
        play(previous, ana, ("a", 4))
        previous = previous.rematch(ana, SWAP_PARTNERS)
    with django_assert_num_queries(3):
        table = standings(Match.objects.played_by(ana))
    assert line(table.players, "Ana").won == 12

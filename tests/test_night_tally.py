"""A night's tally (standings.tally): per pair and per player, on hand-made nights with known
answers."""

import pytest

from matches import rules
from matches.models import Match, Night
from matches.standings import tally

SWAP_PARTNERS = {"a1": "a1", "a2": "b1", "b1": "a2", "b2": "b2"}
CHANGE_SIDES = {"a1": "b1", "a2": "b2", "b1": "a1", "b2": "a2"}


def play(match, by, *cells):
    """Enter each (side, games) in the next deal; games 0 for both sides is a tie."""
    for side, games, *sweep in cells:
        number = rules.current_deal(match.sheet())
        match.record(by, deal=number, side=side, games=games, sweep=bool(sweep))


def standing(rows, name):
    return next(row for row in rows if row.name == name)


@pytest.fixture
def night(match, ana, ze):
    """Four rubbers: a shutout after a tie, a bandeira with partners swapped,
    a rubber ended early, and a chapéu back in the first pairs."""
    play(match, ana, ("a", 0), ("b", 0), ("a", 3), ("a", 1))
    assert match.marks == ["shutout"]
    second = match.rematch(ana, SWAP_PARTNERS)  # Ana & Zé against Rui & Maria
    play(second, ana, ("b", 4, "sweep"))
    third = second.rematch(ana)
    play(third, ana, ("a", 1), ("b", 2))
    third.end(ze)
    fourth = third.rematch(ana, SWAP_PARTNERS)  # Ana & Rui against Zé & Maria again
    play(fourth, ana, ("b", 1), ("a", 2), ("a", 2))
    assert fourth.marks == ["chapeu"]
    return match.night


def test_pairs_are_counted_whichever_side_they_sat_on(night):
    pairs = tally(night.rubbers())["pairs"]
    assert [pair.name for pair in pairs] == ["Ana & Rui", "Rui & Maria", "Ana & Zé", "Zé & Maria"]
    ana_rui = standing(pairs, "Ana & Rui")
    assert (ana_rui.rubbers, ana_rui.won, ana_rui.games) == (2, 2, 8)
    assert (ana_rui.shutouts, ana_rui.chapeus, ana_rui.bandeiras) == (1, 1, 0)
    rui_maria = standing(pairs, "Rui & Maria")
    assert (rui_maria.rubbers, rui_maria.won, rui_maria.games, rui_maria.bandeiras) == (2, 1, 6, 1)
    assert rui_maria.ended_early == 1
    ana_ze = standing(pairs, "Ana & Zé")
    assert (ana_ze.rubbers, ana_ze.won, ana_ze.games, ana_ze.ended_early) == (2, 0, 1, 1)
    ze_maria = standing(pairs, "Zé & Maria")
    assert (ze_maria.rubbers, ze_maria.won, ze_maria.games, ze_maria.ended_early) == (2, 0, 1, 0)


def test_players_add_up_every_rubber_they_sat_in(night, ana, rui):
    players = tally(night.rubbers())["players"]
    assert [player.name for player in players] == ["Rui", "Ana", "Maria", "Zé"]
    rui_row = standing(players, "Rui")
    assert rui_row.user == rui.pk
    assert (rui_row.rubbers, rui_row.won, rui_row.games) == (4, 3, 14)
    assert (rui_row.bandeiras, rui_row.shutouts, rui_row.chapeus, rui_row.ended_early) == (
        1,
        1,
        1,
        1,
    )
    ana_row = standing(players, "Ana")
    assert (ana_row.rubbers, ana_row.won, ana_row.games, ana_row.ended_early) == (4, 2, 9, 1)
    ze_row = standing(players, "Zé")
    assert (ze_row.won, ze_row.games) == (0, 2)


def test_a_sheet_kept_by_the_host_alone_counts_players_by_seat_name(ana):
    first = Match.objects.start(ana, {"a1": "Rita", "a2": "Tó", "b1": "Nuno", "b2": "Inês"})
    play(first, ana, ("b", 2), ("b", 2))
    second = first.rematch(ana, CHANGE_SIDES)  # Nuno & Inês now on side a
    play(second, ana, ("a", 1), ("b", 4))
    counted = tally(first.night.rubbers())
    nuno_ines = standing(counted["pairs"], "Nuno & Inês")
    assert (nuno_ines.rubbers, nuno_ines.won, nuno_ines.games) == (2, 1, 5)
    assert standing(counted["players"], "Rita").user is None
    assert standing(counted["players"], "Rita").won == 1
    assert len(counted["players"]) == 4


def test_a_rubber_still_in_play_counts_its_games_but_no_win(match, ana):
    play(match, ana, ("a", 2))
    counted = tally(match.night.rubbers())
    assert standing(counted["pairs"], "Ana & Rui").games == 2
    assert standing(counted["pairs"], "Ana & Rui").won == 0


def test_tally_queries_stay_flat_as_the_night_grows(match, ana, django_assert_num_queries):
    night = match.night
    with django_assert_num_queries(2):
        tally(night.rubbers())
    previous = match
    for _ in range(10):
        play(previous, ana, ("a", 4))
        previous = previous.rematch(ana)
    night = Night.objects.get(pk=night.pk)
    with django_assert_num_queries(2):
        counted = tally(night.rubbers())
    assert standing(counted["pairs"], "Ana & Rui").won == 10


def test_a_tie_counts_nothing_and_the_bandeira_after_it_counts_what_was_entered(match, ana):
    play(match, ana, ("a", 0), ("b", 0), ("b", 5, "sweep"))
    assert (match.games_a, match.games_b, match.marks) == (0, 5, ["bandeira"])
    counted = tally(match.night.rubbers())
    ze_maria = standing(counted["pairs"], "Zé & Maria")
    # One deal scored, so 5–0 is a bandeira but not a shutout (that takes two deals or more).
    assert (ze_maria.won, ze_maria.games, ze_maria.bandeiras, ze_maria.shutouts) == (1, 5, 1, 0)
    ana_rui = standing(counted["pairs"], "Ana & Rui")
    assert (ana_rui.rubbers, ana_rui.won, ana_rui.games, ana_rui.bandeiras) == (1, 0, 0, 0)

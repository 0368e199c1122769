"""The standings of a club tournament (points, tie-breaks, shared ranks, negras) on
tournaments/ranking.py alone: no database."""

import subprocess
import sys
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments import ranking
from tournaments.ranking import (
    GAME_DIFFERENCE,
    HEAD_TO_HEAD_MOCAS,
    HEAD_TO_HEAD_POINTS,
    MOCA_DIFFERENCE,
    MOCAS_WON,
    NEGRA,
    Series,
    level_groups,
    standings,
)

FIGURES = (
    "points",
    "series_won",
    "series_lost",
    "mocas_won",
    "mocas_lost",
    "games_won",
    "games_lost",
)


def played(a, b, mocas_a, mocas_b, games_a=None, games_b=None):
    """A series won by whoever won more mocas; games, unless given, 4 to each moca won (a
    rubber is played to 4 games) and none to the loser of it."""
    return Series(
        a=a,
        b=b,
        mocas_a=mocas_a,
        mocas_b=mocas_b,
        games_a=4 * mocas_a if games_a is None else games_a,
        games_b=4 * mocas_b if games_b is None else games_b,
        winner=a if mocas_a > mocas_b else b,
    )


def walkover(winner, absent, mocas_to_win=3):
    return Series(winner, absent, mocas_to_win, 0, 0, 0, winner=winner)


def order(table):
    return [line.pair for line in table]


def ranks(table):
    return {line.pair: line.rank for line in table}


def line_of(table, pair):
    return next(line for line in table if line.pair == pair)


def figures(line):
    return tuple(getattr(line, name) for name in FIGURES)


def test_ranking_imports_nothing_from_django():
    code = (
        "import sys; import tournaments.ranking; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'django'))"
    )
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"


# Points and figures --------------------------------------------------------------


def test_a_series_won_is_three_points_and_the_figures_add_up():
    table = standings(["A", "B"], [played("A", "B", 3, 1, games_a=14, games_b=9)])
    assert order(table) == ["A", "B"]
    a, b = table
    assert (a.rank, *figures(a), a.ahead_on) == (1, 3, 1, 0, 3, 1, 14, 9, None)
    assert (b.rank, *figures(b), b.ahead_on) == (2, 0, 0, 1, 1, 3, 9, 14, None)


def test_pairs_with_no_series_appear_with_zeros():
    table = standings(["A", "B", "Idle"], [played("A", "B", 3, 0)])
    assert figures(line_of(table, "Idle")) == (0,) * len(FIGURES)
    # Idle and B are level on 0 points; Idle's 0 beats B's −3 on moca difference.
    assert order(table) == ["A", "Idle", "B"]
    assert line_of(table, "Idle").ahead_on == MOCA_DIFFERENCE


def test_no_series_at_all_every_pair_shares_first_place_with_zeros():
    table = standings(["A", "B", "C"], [])
    assert [(line.pair, line.rank, line.ahead_on) for line in table] == [
        ("A", 1, None),
        ("B", 1, None),
        ("C", 1, None),
    ]
    assert all(figures(line) == (0,) * len(FIGURES) for line in table)
    assert level_groups(table) == [["A", "B", "C"]]


def test_walkover_counts_its_mocas_and_no_games():
    table = standings(["A", "Absent"], [walkover("A", "Absent")])
    a, absent = table
    assert (a.pair, *figures(a)) == ("A", 3, 1, 0, 3, 0, 0, 0)
    assert (absent.pair, *figures(absent)) == ("Absent", 0, 0, 1, 0, 3, 0, 0)


def test_walkover_mocas_decide_moca_difference_over_a_hard_fought_win():
    # A's walkover (3–0, no games) beats C's 3–2 on moca difference though C won more games.
    series = [walkover("A", "X"), played("C", "Y", 3, 2, games_a=20, games_b=17)]
    table = standings(["C", "A", "X", "Y"], series)
    assert order(table)[:2] == ["A", "C"]
    assert line_of(table, "A").ahead_on == MOCA_DIFFERENCE


# The tie-breaks, each deciding where no earlier one does ---------------------------------


def test_level_on_points_split_by_head_to_head_points():
    # A beat B; B has the better moca difference overall, but the series between them comes first.
    series = [
        played("A", "B", 3, 2),
        played("B", "C", 3, 0),
        played("B", "D", 3, 0),
        played("A", "C", 3, 2),
    ]
    table = standings(["B", "A", "C", "D"], series)
    assert order(table)[:2] == ["A", "B"]
    assert (line_of(table, "A").points, line_of(table, "B").points) == (6, 6)
    assert line_of(table, "A").ahead_on == HEAD_TO_HEAD_POINTS
    assert ranks(table)["B"] == 2


def test_level_on_points_and_head_to_head_points_split_by_head_to_head_moca_difference():
    # A beat B, B beat C, C beat A: 3 head-to-head points each. Among them C is +1, B 0, A −1;
    # overall (with their wins over D and E) the order would be the reverse: A +5, B +4, C +3.
    series = [
        played("A", "B", 3, 2),
        played("B", "C", 3, 2),
        played("C", "A", 3, 1),
        played("A", "D", 3, 0),
        played("A", "E", 3, 0),
        played("B", "D", 3, 1),
        played("B", "E", 3, 1),
        played("C", "D", 3, 2),
        played("C", "E", 3, 2),
    ]
    table = standings(["A", "B", "C", "D", "E"], series)
    assert order(table)[:3] == ["C", "B", "A"]
    assert [line.points for line in table[:3]] == [9, 9, 9]
    assert [line.ahead_on for line in table[:3]] == [HEAD_TO_HEAD_MOCAS, HEAD_TO_HEAD_MOCAS, None]
    assert [line.rank for line in table[:3]] == [1, 2, 3]


def test_level_pairs_that_never_met_split_by_overall_moca_difference():
    # No series between A and B: steps 1 and 2 are 0 for both. A is +1 (4–3), B 0 (5–5); on
    # mocas won B would be ahead.
    series = [
        played("A", "X", 3, 0),
        played("Y", "A", 3, 1),
        played("B", "X", 3, 2),
        played("Y", "B", 3, 2),
    ]
    table = standings(["B", "A", "X", "Y"], series)
    assert order(table) == ["Y", "A", "B", "X"]
    assert line_of(table, "A").ahead_on == MOCA_DIFFERENCE
    assert (line_of(table, "A").mocas_won, line_of(table, "B").mocas_won) == (4, 5)


def test_level_on_moca_difference_split_by_mocas_won():
    # Both 0 on moca difference; B won 5 mocas, A 3. On game difference A would be ahead.
    series = [
        played("A", "X", 3, 0, games_a=12, games_b=0),
        played("Y", "A", 3, 0, games_a=12, games_b=5),
        played("B", "X", 3, 2, games_a=13, games_b=12),
        played("Y", "B", 3, 2, games_a=13, games_b=12),
    ]
    table = standings(["A", "B", "X", "Y"], series)
    assert order(table) == ["Y", "B", "A", "X"]
    assert line_of(table, "B").ahead_on == MOCAS_WON
    b, a = line_of(table, "B"), line_of(table, "A")
    assert b.mocas_won - b.mocas_lost == a.mocas_won - a.mocas_lost == 0
    assert b.games_won - b.games_lost < a.games_won - a.games_lost


def test_level_on_mocas_split_by_game_difference():
    # Same mocas, won and lost, for A and B; A is +2 in games, B −4.
    series = [
        played("A", "X", 3, 1, games_a=14, games_b=6),
        played("Y", "A", 3, 1, games_a=12, games_b=6),
        played("B", "X", 3, 1, games_a=12, games_b=10),
        played("Y", "B", 3, 1, games_a=13, games_b=7),
    ]
    table = standings(["B", "A", "X", "Y"], series)
    assert order(table) == ["Y", "A", "B", "X"]
    assert line_of(table, "A").ahead_on == GAME_DIFFERENCE
    assert (line_of(table, "A").games_won, line_of(table, "A").games_lost) == (20, 18)


TRIANGLE = [
    # A beat B, B beat C, C beat A, each 3–2: among the three, level on points and mocas.
    played("A", "B", 3, 2),
    played("B", "C", 3, 2),
    played("C", "A", 3, 2),
    # Then each wins over X and loses to Y: C by the most (+2), A and B both net 0, B with more
    # mocas won (so mocas won, step 4, would put B above A).
    played("A", "X", 3, 0),
    played("Y", "A", 3, 0),
    played("B", "X", 3, 1),
    played("Y", "B", 3, 1),
    played("C", "X", 3, 0),
    played("Y", "C", 3, 2),
]


def test_pairs_left_level_by_a_split_start_again_from_head_to_head_among_themselves():
    table = standings(["X", "Y", "B", "A", "C"], TRIANGLE)
    assert order(table) == ["Y", "C", "A", "B", "X"]
    assert [line.points for line in table] == [9, 6, 6, 6, 0]
    # Moca difference (+2, 0, 0) splits off C; A and B start again at step 1 between them alone,
    # where A's win over B counts (among the three, each had 3 head-to-head points).
    assert [line.ahead_on for line in table] == [
        None,
        MOCA_DIFFERENCE,
        HEAD_TO_HEAD_POINTS,
        None,
        None,
    ]
    assert [line.rank for line in table] == [1, 2, 3, 4, 5]
    a, b = line_of(table, "A"), line_of(table, "B")
    assert a.mocas_won - a.mocas_lost == b.mocas_won - b.mocas_lost
    assert b.mocas_won > a.mocas_won


# Shared ranks ----------------------------------------------------------------------------


def shared_second():
    """A top, D bottom, B and C level on everything between them (they never met)."""
    series = [
        played("A", "B", 3, 0),
        played("A", "C", 3, 0),
        played("B", "D", 3, 0),
        played("C", "D", 3, 0),
    ]
    return series


def test_pairs_level_after_every_step_share_a_rank_numbered_1_2_2_4():
    table = standings(["A", "C", "B", "D"], shared_second())
    # Within the shared rank the pairs keep the order they were given in.
    assert [(line.pair, line.rank, line.ahead_on) for line in table] == [
        ("A", 1, None),
        ("C", 2, None),
        ("B", 2, None),
        ("D", 4, None),
    ]
    assert level_groups(table) == [["C", "B"]]


def test_level_groups_lists_each_shared_rank_in_rank_order():
    # Two shared ranks: A and B on 3 points; C and D on 0. Nobody met anybody twice.
    series = [played("A", "C", 3, 0), played("B", "D", 3, 0)]
    table = standings(["A", "B", "C", "D"], series)
    assert [line.rank for line in table] == [1, 1, 3, 3]
    assert level_groups(table) == [["A", "B"], ["C", "D"]]
    assert level_groups([]) == []


# Negras ----------------------------------------------------------------------------------


def test_a_negra_orders_two_level_pairs():
    table = standings(["A", "C", "B", "D"], shared_second(), negras=[("B", "C")])
    assert [(line.pair, line.rank, line.ahead_on) for line in table] == [
        ("A", 1, None),
        ("B", 2, NEGRA),
        ("C", 3, None),
        ("D", 4, None),
    ]
    assert level_groups(table) == []


def three_level():
    """A, B and C each beat D 3–0 and met nobody else: level on everything."""
    return [played(pair, "D", 3, 0) for pair in ("A", "B", "C")]


def test_two_negras_in_a_chain_order_three_level_pairs():
    table = standings(["C", "B", "A", "D"], three_level(), negras=[("B", "C"), ("A", "B")])
    assert [(line.pair, line.rank, line.ahead_on) for line in table] == [
        ("A", 1, NEGRA),
        ("B", 2, NEGRA),
        ("C", 3, None),
        ("D", 4, None),
    ]


def test_a_negra_winner_over_both_others_goes_ahead_and_they_still_share():
    table = standings(["A", "B", "C", "D"], three_level(), negras=[("C", "A"), ("C", "B")])
    assert [(line.pair, line.rank, line.ahead_on) for line in table[:3]] == [
        ("C", 1, NEGRA),
        ("A", 2, None),
        ("B", 2, None),
    ]
    assert level_groups(table) == [["A", "B"]]


def test_a_negra_that_leaves_a_third_level_pair_unordered_keeps_all_three_sharing():
    # B beat C, but nothing puts A above or below either: A would share with B and with C.
    table = standings(["A", "B", "C", "D"], three_level(), negras=[("B", "C")])
    assert [line.rank for line in table] == [1, 1, 1, 4]
    assert [line.ahead_on for line in table] == [None] * 4
    assert level_groups(table) == [["A", "B", "C"]]


def test_negras_that_contradict_each_other_order_nothing():
    negras = [("A", "B"), ("B", "C"), ("C", "A")]
    table = standings(["A", "B", "C", "D"], three_level(), negras=negras)
    assert [line.rank for line in table] == [1, 1, 1, 4]


def test_a_negra_between_pairs_not_level_changes_nothing():
    series = shared_second()
    pairs = ["A", "C", "B", "D"]
    without = standings(pairs, series)
    # Negras between pairs on different points: A, B and D each have points of their own.
    assert standings(pairs, series, negras=[("D", "A"), ("D", "B")]) == without
    split = [played("A", "B", 3, 2), played("B", "C", 3, 0), played("A", "C", 3, 2)]
    plain = standings(["A", "B", "C"], split)  # A above B on head-to-head points
    assert standings(["A", "B", "C"], split, negras=[("B", "A")]) == plain


def test_negras_through_a_pair_not_level_order_nothing():
    # B beat A and A beat C in negras, but A is above B and C on points: no chain through A.
    table = standings(["A", "C", "B", "D"], shared_second(), negras=[("B", "A"), ("A", "C")])
    assert [(line.pair, line.rank) for line in table] == [("A", 1), ("C", 2), ("B", 2), ("D", 4)]


def test_a_negra_counts_in_no_figure():
    # A negra is recorded as (winner, loser) only: its mocas and games are not in the figures.
    without = standings(["A", "C", "B", "D"], shared_second())
    with_negra = standings(["A", "C", "B", "D"], shared_second(), negras=[("B", "C")])
    assert {line.pair: figures(line) for line in with_negra} == {
        line.pair: figures(line) for line in without
    }


# Refusals --------------------------------------------------------------------------------


def test_a_series_whose_winner_is_not_one_of_its_pairs_is_refused():
    with pytest.raises(ValueError, match="winner"):
        Series("A", "B", 3, 0, 12, 0, winner="C")
    with pytest.raises(ValueError, match="two different pairs"):
        Series("A", "A", 3, 0, 12, 0, winner="A")


def test_a_series_or_negra_naming_an_unknown_pair_is_refused():
    with pytest.raises(ValueError, match="unknown pair"):
        standings(["A"], [played("A", "B", 3, 0)])
    with pytest.raises(ValueError, match="negra"):
        standings(["A", "B"], [], negras=[("A", "Z")])
    with pytest.raises(ValueError, match="twice"):
        standings(["A", "A"], [])


# Properties ------------------------------------------------------------------------------


@st.composite
def tournaments(draw):
    """Some pairs, some decided series between them (walkovers among them), some negras."""
    size = draw(st.integers(1, 7))
    pairs = [f"P{number}" for number in range(size)]
    series = []
    if size > 1:
        for _ in range(draw(st.integers(0, 16))):
            a, b = draw(st.lists(st.sampled_from(pairs), min_size=2, max_size=2, unique=True))
            loser_mocas = draw(st.integers(0, 2))
            if draw(st.booleans()):
                series.append(walkover(a, b))
            else:
                games = draw(st.tuples(st.integers(0, 30), st.integers(0, 30)))
                series.append(Series(a, b, 3, loser_mocas, *games, winner=a))
    negras = []
    if size > 1:
        negras = draw(
            st.lists(st.lists(st.sampled_from(pairs), min_size=2, max_size=2, unique=True))
        )
    return pairs, series, [tuple(negra) for negra in negras]


@given(tournaments(), st.randoms(use_true_random=False))
def test_any_table_lists_each_pair_once_ranked_and_adds_up(tournament, shuffler):
    pairs, series, negras = tournament
    table = standings(pairs, series, negras)
    assert sorted(order(table)) == sorted(pairs)
    assert table[0].rank == 1
    assert sum(line.points for line in table) == ranking.POINTS_FOR_A_WIN * len(series)
    for index, (above, below) in enumerate(pairwise(table)):
        assert above.rank <= below.rank
        assert above.points >= below.points
        # Competition ranking: a new rank is one more than the pairs above it.
        assert below.rank in (above.rank, index + 2)
        if above.rank == below.rank or above.points > below.points:
            assert above.ahead_on is None
        else:
            assert above.ahead_on is not None
    assert table[-1].ahead_on is None
    # The order the series and pairs come in changes no pair's rank.
    shuffled_pairs, shuffled_series = list(pairs), list(series)
    shuffler.shuffle(shuffled_pairs)
    shuffler.shuffle(shuffled_series)
    assert ranks(standings(shuffled_pairs, shuffled_series, negras)) == ranks(table)

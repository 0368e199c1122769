"""The tournament draw, as plain values: no database, no Django (tournaments.draw needs neither)."""

import random
import subprocess
import sys
from collections import Counter
from itertools import combinations
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.draw import (
    Round,
    bracket,
    knockout_round,
    knockout_rounds_left,
    round_robin,
    seeded,
)

ROOT = Path(__file__).resolve().parent.parent
SIZES = range(2, 65)


def next_power_of_two(n):
    size = 1
    while size < n:
        size *= 2
    return size


def met(rounds):
    """Every meeting of a draw as an unordered pair of pairs, once per time it is played."""
    return Counter(frozenset(meeting) for r in rounds for meeting in r.meetings)


# Round robin --------------------------------------------------------------------------------


@pytest.mark.parametrize("n", SIZES)
def test_round_robin_plays_n_minus_1_rounds_for_even_n_and_n_for_odd_n(n):
    assert len(round_robin(range(n))) == (n - 1 if n % 2 == 0 else n)


@pytest.mark.parametrize("n", SIZES)
def test_round_robin_no_two_pairs_meet_twice(n):
    assert max(met(round_robin(range(n))).values()) == 1


@pytest.mark.parametrize("n", SIZES)
def test_round_robin_every_pair_plays_every_round_but_its_bye_and_no_round_twice(n):
    for r in round_robin(range(n)):
        seated = [pair for meeting in r.meetings for pair in meeting] + r.byes
        assert sorted(seated) == list(range(n))
        assert all(a != b for a, b in r.meetings)
        assert len(r.byes) == n % 2


@pytest.mark.parametrize("n", SIZES)
def test_round_robin_every_pair_meets_every_other_exactly_once(n):
    assert met(round_robin(range(n))) == Counter(
        frozenset(meeting) for meeting in combinations(range(n), 2)
    )


@pytest.mark.parametrize("n", SIZES)
def test_round_robin_odd_n_gives_each_pair_one_bye_and_even_n_none(n):
    byes = Counter(pair for r in round_robin(range(n)) for pair in r.byes)
    if n % 2:
        assert byes == Counter(range(n))
    else:
        assert not byes


@pytest.mark.parametrize("n", SIZES)
def test_round_robin_rounds_takes_the_first_rounds_of_the_full_draw(n):
    full = round_robin(range(n))
    for r in range(1, len(full) + 1):
        assert round_robin(range(n), rounds=r) == full[:r]


@pytest.mark.parametrize("n", SIZES)
def test_round_robin_nobody_is_always_listed_first_or_always_second(n):
    draw = round_robin(range(n))
    first = Counter(a for r in draw for a, _ in r.meetings)
    played = Counter(pair for r in draw for meeting in r.meetings for pair in meeting)
    for pair in range(n):
        # Listed first about half the time: off by at most one from an even split.
        assert abs(2 * first[pair] - played[pair]) <= 2


def test_round_robin_is_the_same_draw_for_the_same_pairs():
    pairs = ["ana-rui", "ze-maria", "olga-ines", "joao-rita", "tó-becas"]
    assert round_robin(pairs) == round_robin(list(pairs)) == round_robin(tuple(pairs))


def test_round_robin_of_four_pairs_is_the_circle_method():
    assert round_robin("ABCD") == [
        Round(meetings=[("A", "D"), ("B", "C")], byes=[]),
        Round(meetings=[("C", "A"), ("D", "B")], byes=[]),
        Round(meetings=[("A", "B"), ("C", "D")], byes=[]),
    ]


def test_round_robin_of_three_pairs_gives_a_bye_a_round():
    assert round_robin("ABC") == [
        Round(meetings=[("B", "C")], byes=["A"]),
        Round(meetings=[("C", "A")], byes=["B"]),
        Round(meetings=[("A", "B")], byes=["C"]),
    ]


def test_round_robin_takes_any_hashable_pairs_even_falsy_ones():
    pairs = [None, 0, "", (), frozenset()]
    draw = round_robin(pairs)
    assert Counter(pair for r in draw for pair in r.byes) == Counter(pairs)
    assert met(draw) == Counter(frozenset(meeting) for meeting in combinations(pairs, 2))


def test_round_robin_does_not_change_the_pairs_it_is_given():
    pairs = [1, 2, 3]
    round_robin(pairs)
    assert pairs == [1, 2, 3]


@pytest.mark.parametrize("pairs", [[], [7]])
def test_round_robin_refuses_fewer_than_two_pairs(pairs):
    with pytest.raises(ValueError):
        round_robin(pairs)


def test_round_robin_refuses_a_pair_listed_twice():
    with pytest.raises(ValueError):
        round_robin([1, 2, 1, 3])


@pytest.mark.parametrize(("n", "rounds"), [(4, 0), (4, 4), (5, 6), (5, -1), (2, 2)])
def test_round_robin_refuses_more_rounds_than_the_draw_has_or_none(n, rounds):
    with pytest.raises(ValueError):
        round_robin(range(n), rounds=rounds)


# Knockout ----------------------------------------------------------------------------------


@given(n=st.integers(2, 64), seed=st.integers())
def test_knockout_round_every_pair_meets_or_sits_out_exactly_once(n, seed):
    r = knockout_round(range(n), random.Random(seed))
    seated = [pair for meeting in r.meetings for pair in meeting] + r.byes
    assert sorted(seated) == list(range(n))


@given(n=st.integers(2, 64), seed=st.integers())
def test_knockout_round_byes_bring_the_next_round_to_a_power_of_two(n, seed):
    r = knockout_round(range(n), random.Random(seed))
    assert len(r.byes) == next_power_of_two(n) - n
    assert len(r.meetings) + len(r.byes) == next_power_of_two(n) // 2


@given(seed=st.integers())
def test_knockout_round_is_the_same_draw_for_the_same_seed(seed):
    pairs = list(range(13))
    assert knockout_round(pairs, random.Random(seed)) == knockout_round(pairs, random.Random(seed))
    assert pairs == list(range(13))


def test_knockout_round_draws_at_random():
    draws = {repr(knockout_round(range(8), random.Random(seed))) for seed in range(20)}
    assert len(draws) > 1


@pytest.mark.parametrize("pairs", [[], ["A"]])
def test_knockout_round_refuses_fewer_than_two_pairs(pairs):
    with pytest.raises(ValueError):
        knockout_round(pairs, random.Random(0))


def test_knockout_round_refuses_a_pair_listed_twice():
    with pytest.raises(ValueError):
        knockout_round(["A", "B", "A"], random.Random(0))


def test_seeded_two_pairs_play_1_v_2():
    assert seeded(["1st", "2nd"]) == Round(meetings=[("1st", "2nd")], byes=[])


def test_seeded_four_pairs_play_1_v_4_and_2_v_3():
    assert seeded([1, 2, 3, 4]) == Round(meetings=[(1, 4), (2, 3)], byes=[])


def test_seeded_eight_pairs_play_in_bracket_order():
    assert seeded(range(1, 9)) == Round(meetings=[(1, 8), (4, 5), (2, 7), (3, 6)], byes=[])


def test_seeded_then_bracket_keeps_the_top_seeds_apart_until_the_final():
    quarters = seeded(range(1, 9))
    favourites = [min(meeting) for meeting in quarters.meetings]  # the better seed always wins
    semis = bracket(favourites)
    assert semis.meetings == [(1, 4), (2, 3)]
    assert bracket([min(meeting) for meeting in semis.meetings]).meetings == [(1, 2)]


@pytest.mark.parametrize("n", [0, 1, 3, 5, 6, 7, 9, 16])
def test_seeded_refuses_other_sizes(n):
    with pytest.raises(ValueError):
        seeded(range(1, n + 1))


def test_bracket_pairs_adjacent_winners_in_order():
    assert bracket("ABCDEF") == Round(meetings=[("A", "B"), ("C", "D"), ("E", "F")], byes=[])
    assert bracket(["X", "Y"]) == Round(meetings=[("X", "Y")], byes=[])


@pytest.mark.parametrize("winners", [[], ["A"], ["A", "B", "C"], list(range(7))])
def test_bracket_refuses_an_odd_count_or_fewer_than_two(winners):
    with pytest.raises(ValueError):
        bracket(winners)


@pytest.mark.parametrize(
    ("pairs", "rounds"), [(1, 0), (2, 1), (3, 2), (4, 2), (5, 3), (8, 3), (9, 4), (64, 6)]
)
def test_knockout_rounds_left_is_ceil_log2(pairs, rounds):
    assert knockout_rounds_left(pairs) == rounds


@pytest.mark.parametrize("pairs", [0, -1])
def test_knockout_rounds_left_refuses_fewer_than_one_pair(pairs):
    with pytest.raises(ValueError):
        knockout_rounds_left(pairs)


@given(n=st.integers(2, 64), seed=st.integers())
def test_knockout_from_a_random_first_round_plays_knockout_rounds_left_rounds(n, seed):
    first = knockout_round(range(n), random.Random(seed))
    # The lower pair of each meeting wins, the byes go through; then the bracket to the end.
    winners = [min(meeting) for meeting in first.meetings] + first.byes
    played = 1
    while len(winners) > 1:
        winners = [min(meeting) for meeting in bracket(winners).meetings]
        played += 1
    assert played == knockout_rounds_left(n)


# No Django -------------------------------------------------------------------------------


def test_importing_the_draw_imports_nothing_from_django():
    check = (
        "import sys; import tournaments.draw; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'django'))"
    )
    result = subprocess.run(
        [sys.executable, "-c", check], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"

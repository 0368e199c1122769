"""The final places of a club tournament (SPEC, Club tournaments: final places) and the
sizes its knockout rounds are named by, on tournaments/places.py alone: no database."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.places import KnockoutRound, Place, final_places, round_size


def as_lists(places):
    return [(place.place, list(place.pairs)) for place in places]


def in_order(*pairs):
    """A round robin's standings with no shared rank."""
    return [(pair, rank) for rank, pair in enumerate(pairs, 1)]


def test_a_round_robin_alone_places_as_its_standings_rank():
    standings = [("A", 1), ("B", 2), ("C", 2), ("D", 4), ("E", 5)]
    assert as_lists(final_places(standings)) == [
        (1, ["A"]),
        (2, ["B", "C"]),
        (4, ["D"]),
        (5, ["E"]),
    ]


def test_after_a_knockout_of_four_the_champion_is_first_and_the_rest_follow_the_round_robin():
    # Six pairs; the top four are seeded 1 v 4, 2 v 3; the fourth wins it all.
    standings = in_order("A", "B", "C", "D", "E", "F")
    knockout = [
        KnockoutRound([("D", "A"), ("B", "C")]),
        KnockoutRound([("D", "B")]),
    ]
    assert as_lists(final_places(standings, knockout, champion="D")) == [
        (1, ["D"]),
        (2, ["B"]),
        (3, ["A", "C"]),
        (5, ["E"]),
        (6, ["F"]),
    ]


def test_after_a_knockout_of_eight_the_quarter_finals_losers_share_fifth():
    standings = in_order(*"ABCDEFGHIJ")
    knockout = [
        KnockoutRound([("A", "H"), ("D", "E"), ("G", "B"), ("C", "F")]),
        KnockoutRound([("A", "D"), ("C", "G")]),
        KnockoutRound([("C", "A")]),
    ]
    assert as_lists(final_places(standings, knockout, champion="C")) == [
        (1, ["C"]),
        (2, ["A"]),
        (3, ["D", "G"]),
        (5, ["H", "E", "B", "F"]),
        (9, ["I"]),
        (10, ["J"]),
    ]


def test_the_pairs_out_of_the_knockout_keep_a_shared_round_robin_rank():
    standings = [("A", 1), ("B", 2), ("C", 3), ("D", 3)]
    knockout = [KnockoutRound([("B", "A")])]
    assert as_lists(final_places(standings, knockout, champion="B")) == [
        (1, ["B"]),
        (2, ["A"]),
        (3, ["C", "D"]),
    ]


def test_a_knockout_alone_with_byes_places_the_first_rounds_losers_after_the_byes():
    # Six pairs: two sit out the first round (a bracket of 8), so four go on.
    knockout = [
        KnockoutRound([("A", "B"), ("C", "D")], byes=["E", "F"]),
        KnockoutRound([("E", "A"), ("C", "F")]),
        KnockoutRound([("C", "E")]),
    ]
    assert as_lists(final_places(None, knockout, champion="C")) == [
        (1, ["C"]),
        (2, ["E"]),
        (3, ["A", "F"]),
        (5, ["B", "D"]),
    ]


def test_a_knockout_alone_of_five_places_its_one_first_round_loser_fifth():
    knockout = [
        KnockoutRound([("A", "B")], byes=["C", "D", "E"]),
        KnockoutRound([("A", "C"), ("D", "E")]),
        KnockoutRound([("D", "A")]),
    ]
    assert as_lists(final_places(None, knockout, champion="D")) == [
        (1, ["D"]),
        (2, ["A"]),
        (3, ["C", "E"]),
        (5, ["B"]),
    ]


def test_ended_before_its_champion_a_round_robin_then_knockout_places_by_its_round_robin():
    standings = in_order("A", "B", "C", "D", "E", "F")
    semi_finals = [KnockoutRound([("D", "A"), ("B", "C")])]
    assert as_lists(final_places(standings, semi_finals, champion=None)) == [
        (place, [pair]) for pair, place in standings
    ]


def test_a_knockout_alone_ended_early_has_no_final_places():
    first = [KnockoutRound([("A", "B"), ("C", "D")])]
    assert final_places(None, first, champion=None) == []
    assert final_places(None) == []


def test_a_champion_who_did_not_win_the_final_is_refused():
    knockout = [KnockoutRound([("A", "B"), ("C", "D")]), KnockoutRound([("A", "C")])]
    with pytest.raises(ValueError, match="did not win the final"):
        final_places(None, knockout, champion="C")
    with pytest.raises(ValueError, match="did not win the final"):
        final_places(None, knockout[:1], champion="A")  # the semi-finals are no final
    with pytest.raises(ValueError, match="did not win the final"):
        final_places(None, [], champion="A")


def test_a_pair_placed_twice_is_refused():
    knockout = [KnockoutRound([("A", "B"), ("C", "B")]), KnockoutRound([("A", "C")])]
    with pytest.raises(ValueError, match="placed twice"):
        final_places(None, knockout, champion="A")


@pytest.mark.parametrize(
    ("pairs", "size"),
    [(2, 2), (3, 4), (4, 4), (5, 8), (6, 8), (8, 8), (9, 16), (16, 16), (17, 32), (64, 64)],
)
def test_a_knockout_round_belongs_to_the_bracket_of_the_next_power_of_two(pairs, size):
    assert round_size(pairs) == size


def test_a_round_of_fewer_than_two_pairs_has_no_size():
    with pytest.raises(ValueError):
        round_size(1)


def _knockout(pairs, data):
    """A knockout alone of ``pairs`` played to its champion, as the draw plays one: the
    byes in the first round, every round's winners drawn at random."""
    rounds = []
    left = list(pairs)
    byes = round_size(len(left)) - len(left)
    while len(left) > 1:
        left = data.draw(st.permutations(left))
        sitting, playing = left[:byes], left[byes:]
        series = []
        for a, b in zip(playing[::2], playing[1::2], strict=True):
            series.append((a, b) if data.draw(st.booleans()) else (b, a))
        rounds.append(KnockoutRound(series, sitting))
        left = [winner for winner, _ in series] + sitting
        byes = 0
    return rounds, left[0]


@given(st.integers(min_value=2, max_value=40), st.data())
def test_a_knockout_alone_places_every_pair_once_the_losers_of_a_round_after_all_who_went_further(
    count, data
):
    rounds, champion = _knockout(range(count), data)
    final = final_places(None, rounds, champion)
    listed = [pair for place in final for pair in place.pairs]
    assert sorted(listed) == list(range(count))
    assert final[0] == Place(1, (champion,))
    position = 1
    for place in final:
        assert place.place == position  # numbered 1, 2, 3, 3, 5
        position += len(place.pairs)

"""The rules of the sheet (SPEC.md "Rules of the sheet") on rules.py alone: no database."""

import re
import subprocess
import sys
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from matches import rules, values
from matches.rules import Conflict, Deal, InvalidInput

NAMES = {"a": "Ana & Rui", "b": "Zé & Maria"}
TIE = Deal(0, 0)


def win(side, games, sweep=False):
    return Deal(games, 0, sweep) if side == "a" else Deal(0, games, sweep)


def refused(kind, message):
    """pytest.raises for a refusal whose message contains ``message`` word for word."""
    return pytest.raises(kind, match=re.escape(message))


def test_rules_import_nothing_from_django():
    code = (
        "import sys; import matches.rules; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'django'))"
    )
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"


# The calculator ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("rank", "points"), [("aces", 11), ("sevens", 10), ("kings", 4), ("jacks", 3), ("queens", 2)]
)
def test_each_counting_card_is_worth_its_points(rank, points):
    assert rules.card_points(**{rank: 1}) == points
    assert rules.card_points(**{rank: 4}) == 4 * points


def test_all_the_counting_cards_make_120_and_none_make_0():
    assert rules.card_points(aces=4, sevens=4, kings=4, jacks=4, queens=4) == 120
    assert rules.card_points() == 0


def test_seed_002_worked_example_is_65_points_and_1_game():
    cards = {"aces": 3, "sevens": 2, "kings": 1, "jacks": 2, "queens": 1}
    assert rules.card_points(**cards) == 65
    calculation = rules.calculate(cards=cards)
    assert calculation.points == 65
    assert calculation.other_points == 55
    assert calculation.games == 1
    assert not calculation.tie


@pytest.mark.parametrize(
    ("points", "games"),
    [
        (0, 0),
        (2, 0),
        (30, 0),
        (59, 0),
        (60, 0),
        (61, 1),
        (75, 1),
        (90, 1),
        (91, 2),
        (105, 2),
        (118, 2),
        (120, 2),
    ],
)
def test_points_to_games(points, games):
    assert rules.games_for_points(points) == games
    assert rules.calculate(points=points).games == games


def test_every_trick_is_4_games():
    assert rules.games_for_points(120, every_trick=True) == 4
    assert rules.calculate(points=120, every_trick=True).games == 4


def test_120_points_with_a_trick_lost_is_2_games_not_4():
    assert rules.games_for_points(120, every_trick=False) == 2


@pytest.mark.parametrize("points", [0, 61, 90, 118])
def test_every_trick_under_120_points_is_refused(points):
    with refused(InvalidInput, f"Every trick means all 120 points, not {points}."):
        rules.games_for_points(points, every_trick=True)


@pytest.mark.parametrize("points", [1, 119, "1", 119.0])
def test_1_and_119_points_cannot_happen(points):
    with refused(InvalidInput, "no set of cards adds up to 1 or 119"):
        rules.games_for_points(points)
    with refused(InvalidInput, "no set of cards adds up to 1 or 119"):
        rules.calculate(points=points)


def test_60_points_is_a_tie_worth_nothing():
    calculation = rules.calculate(points=60)
    assert calculation.tie
    assert calculation.games == 0
    assert calculation.other_points == 60


@pytest.mark.parametrize("points", [-1, 121, 1000, 65.5, "sixty", "", None, True, float("nan")])
def test_points_out_of_range_or_not_whole_are_refused(points):
    with pytest.raises(InvalidInput, match="Points"):
        rules.games_for_points(points)


def test_points_given_as_text_are_read():
    assert rules.calculate(points=" 95 ").points == 95
    assert rules.calculate(points=" 95 ").games == 2


@pytest.mark.parametrize("count", [5, -1, 1.5, "two", None, False])
def test_card_counts_out_of_0_to_4_are_refused_naming_the_rank(count):
    with pytest.raises(InvalidInput, match="Kings"):
        rules.card_points(aces=1, kings=count)


def test_calculator_takes_points_or_cards_not_both_or_neither():
    with refused(InvalidInput, "Give either the points or the cards"):
        rules.calculate()
    with refused(InvalidInput, "Give either the points or the cards"):
        rules.calculate(points=65, cards={"aces": 3})


def test_calculator_refuses_cards_that_do_not_count():
    with refused(InvalidInput, "not fours"):
        rules.calculate(cards={"aces": 1, "fours": 2})


# What a cell may hold ---------------------------------------------------------


@pytest.mark.parametrize("games", [0, 1, 2, 3, 4, "3", 2.0])
def test_cell_takes_0_to_4_with_no_tie_pending(games):
    assert rules.check_games(games, pending=0) == int(games)


def test_cell_over_4_with_no_tie_pending_is_refused_saying_why():
    with refused(
        InvalidInput, "A deal can't be worth 7 games here: with no tie pending the most is 4."
    ):
        rules.check_games(7, pending=0)
    with refused(InvalidInput, "the most is 4"):
        rules.check_games(5, pending=0)


@pytest.mark.parametrize("pending", [1, 2, 3, 5])
def test_cell_takes_up_to_4_plus_the_pending_extras(pending):
    assert rules.check_games(4 + pending, pending) == 4 + pending
    with refused(
        InvalidInput,
        f"A deal can't be worth {5 + pending} games here: with {pending} extra pending "
        f"the most is {4 + pending}.",
    ):
        rules.check_games(5 + pending, pending)


@pytest.mark.parametrize("games", [-1, -4, "-2"])
def test_negative_games_are_refused_the_sheet_only_goes_upward(games):
    with refused(InvalidInput, "Games can't be negative: the sheet only goes upward."):
        rules.check_games(games, pending=0)


@pytest.mark.parametrize(
    "games",
    [1.5, 0.1, "1.5", "two", "", " ", "--3", "3-", "٣", None, True, False, float("nan"),
     float("inf"), [1], {"games": 1}],
)  # fmt: skip
def test_cell_refuses_anything_but_a_whole_number(games):
    with refused(InvalidInput, "Games must be a whole number."):
        rules.check_games(games, pending=3)


def test_a_number_with_no_upper_bound_says_its_lower_bound():
    with refused(InvalidInput, "The deal must be a whole number, 1 or more."):
        values.whole_number(0, "The deal", 1)
    with refused(InvalidInput, "Aces must be a whole number from 0 to 4."):
        values.whole_number(5, "Aces", 0, 4)


# Entering a deal --------------------------------------------------------------


def test_games_for_one_side_complete_the_deal_and_the_other_cell_reads_0():
    deal = rules.enter(None, "b", 2, number=1, pending=0)
    assert deal == Deal(0, 2)
    assert deal.complete
    assert not deal.tie
    assert deal.winner == "b"


def test_zero_waits_for_the_other_side():
    deal = rules.enter(None, "a", 0, number=1, pending=0)
    assert deal == Deal(0, None)
    assert not deal.complete
    assert deal.winner is None


def test_zero_from_both_sides_is_a_tie():
    deal = rules.enter(Deal(0, None), "b", 0, number=1, pending=0)
    assert deal.complete
    assert deal.tie
    assert deal.winner is None


def test_zero_then_games_from_the_other_side_completes_the_deal():
    deal = rules.enter(Deal(None, 0), "a", 1, number=1, pending=0)
    assert deal == Deal(1, 0)
    assert deal.winner == "a"


def test_second_entry_for_a_filled_cell_is_already_recorded():
    with refused(
        Conflict,
        "Deal 3 already has 2 for Ana & Rui: it was already recorded, and nothing was "
        "counted twice.",
    ):
        rules.enter(Deal(2, 0), "a", 2, number=3, pending=0, names=NAMES)


def test_zero_entered_twice_is_already_recorded():
    with refused(Conflict, "Deal 1 already has 0 for Zé & Maria"):
        rules.enter(Deal(None, 0), "b", 0, number=1, pending=0, names=NAMES)


def test_games_after_own_zero_are_refused_saying_the_zero_came_first():
    with refused(Conflict, "already has 0 for Ana & Rui, so 2 was not entered"):
        rules.enter(Deal(0, None), "a", 2, number=1, pending=0, names=NAMES)


def test_second_claim_in_a_deal_is_refused_naming_the_first():
    with refused(
        Conflict,
        "Deal 4 is already claimed: Ana & Rui won 2 in it. Only one side can win games in a deal.",
    ):
        rules.enter(Deal(2, 0), "b", 1, number=4, pending=0, names=NAMES)


def test_at_most_one_side_wins_games_in_a_deal():
    with pytest.raises(Conflict):
        rules.enter(Deal(0, 3), "a", 3, number=1, pending=0)


def test_already_claimed_and_recorded_are_conflicts_and_bad_numbers_invalid_input():
    assert Conflict.status == 409
    assert InvalidInput.status == 400
    assert issubclass(Conflict, values.Refusal)
    assert issubclass(InvalidInput, values.Refusal)


def test_entry_over_the_limit_is_refused_even_for_an_empty_cell():
    with refused(InvalidInput, "the most is 5"):
        rules.enter(None, "a", 6, number=2, pending=1)


def test_entry_for_an_unknown_side_is_refused():
    with refused(InvalidInput, "The side must be a or b."):
        rules.enter(None, "c", 1, number=1, pending=0)


def test_entry_marked_as_a_bandeira_must_be_worth_at_least_4():
    with refused(InvalidInput, "A bandeira (every trick) is worth at least 4 games, not 2."):
        rules.enter(None, "a", 2, number=1, pending=0, sweep=True)
    assert rules.enter(None, "a", 4, number=1, pending=0, sweep=True) == Deal(4, 0, True)


def test_4_games_with_no_tie_pending_can_only_be_a_bandeira():
    assert rules.enter(None, "b", 4, number=1, pending=0).sweep


def test_games_made_of_pending_extras_are_not_a_bandeira():
    assert not rules.enter(None, "a", 4, number=3, pending=2).sweep
    assert not rules.enter(None, "a", 3, number=2, pending=1).sweep
    assert rules.enter(None, "a", 5, number=2, pending=1).sweep


def test_zero_entry_is_never_a_bandeira():
    with pytest.raises(InvalidInput):
        rules.enter(None, "a", 0, number=1, pending=0, sweep=True)


# Ties and extra games ---------------------------------------------------------


@pytest.mark.parametrize(
    ("deals", "pending"),
    [
        ([], 0),
        ([TIE], 1),
        ([TIE, TIE], 2),
        ([TIE, TIE, TIE], 3),
        ([win("a", 1)], 0),
        ([TIE, win("b", 2)], 0),
        ([TIE, win("b", 2), TIE], 1),
        ([TIE, TIE, win("a", 3), TIE, TIE], 2),
        # A half-entered deal does not break the run of ties before it.
        ([TIE, Deal(0, None)], 1),
    ],
)
def test_pending_extras_after_ties_in_a_row(deals, pending):
    assert rules.pending_extra(deals) == pending


def test_after_a_tie_a_61_to_90_deal_is_entered_as_2_and_counted_as_2():
    sheet = [TIE]
    pending = rules.pending_extra(sheet)
    games = rules.calculate(points=75).games + pending
    sheet.append(rules.enter(None, "a", games, number=2, pending=pending))
    assert rules.totals(sheet) == {"a": 2, "b": 0}


def test_the_sheet_does_not_add_the_extra_itself():
    sheet = [TIE, rules.enter(None, "b", 1, number=2, pending=1)]
    assert rules.totals(sheet) == {"a": 0, "b": 1}


# Totals and the result --------------------------------------------------------


def test_totals_count_only_complete_deals():
    sheet = [win("a", 2), TIE, win("b", 1), Deal(0, None)]
    assert rules.totals(sheet) == {"a": 2, "b": 1}


def test_rubber_under_4_games_is_not_over():
    outcome = rules.result([win("a", 2), win("b", 1), win("a", 1)])
    assert outcome.games == {"a": 3, "b": 1}
    assert outcome.winner is None
    assert not outcome.over
    assert outcome.won_at is None
    assert outcome.marks == ()


def test_a_side_reaching_4_wins_the_rubber():
    outcome = rules.result([win("a", 2), win("b", 2), win("a", 2)])
    assert outcome.winner == "a"
    assert outcome.over
    assert outcome.won_at == 3
    assert outcome.games == {"a": 4, "b": 2}


def test_a_side_passing_4_wins_the_rubber():
    outcome = rules.result([win("b", 3), win("b", 2)])
    assert outcome.winner == "b"
    assert outcome.games == {"a": 0, "b": 5}


def test_the_first_side_to_reach_4_wins_whatever_comes_after():
    outcome = rules.result([win("a", 2), win("a", 2), win("b", 4, sweep=True)])
    assert outcome.winner == "a"
    assert outcome.won_at == 2
    assert outcome.games == {"a": 4, "b": 0}


def test_an_incomplete_deal_wins_nothing():
    assert rules.result([win("a", 3), Deal(0, None)]).winner is None


def test_a_bandeira_wins_on_the_spot_whatever_the_score():
    outcome = rules.result([win("b", 3), win("a", 4, sweep=True)])
    assert outcome.winner == "a"
    assert outcome.games == {"a": 4, "b": 3}
    assert outcome.marks == ("bandeira",)


def test_a_bandeira_in_the_first_deal_is_not_a_shutout():
    outcome = rules.result([win("a", 4, sweep=True)])
    assert outcome.winner == "a"
    assert outcome.marks == ("bandeira",)


def test_a_4_0_win_over_two_deals_is_a_shutout():
    outcome = rules.result([win("b", 2), TIE, win("b", 2)])
    assert outcome.winner == "b"
    assert outcome.marks == ("shutout",)


def test_a_4_0_win_in_one_scoring_deal_is_not_a_shutout():
    # Two ties, then 2 games plus the 2 extras: 4 games, one scoring deal, no sweep.
    outcome = rules.result([TIE, TIE, win("a", 4)])
    assert outcome.winner == "a"
    assert outcome.marks == ()


def test_a_4_1_win_is_a_chapeu():
    outcome = rules.result([win("a", 2), win("b", 1), win("a", 2)])
    assert outcome.games == {"a": 4, "b": 1}
    assert outcome.marks == ("chapeu",)


def test_a_4_2_win_has_no_marks():
    assert rules.result([win("a", 2), win("b", 2), win("a", 2)]).marks == ()


def test_unfinished_rubbers_have_no_marks():
    assert rules.result([win("a", 2), win("a", 1)]).marks == ()  # 3–0
    assert rules.result([win("a", 2), win("b", 1), win("a", 1)]).marks == ()  # 3–1


def test_the_marks_change_no_score():
    outcome = rules.result([win("a", 1), win("a", 1), win("a", 2)])
    assert outcome.marks == ("shutout",)
    assert outcome.games == rules.totals([win("a", 1), win("a", 1), win("a", 2)])


# Checking a whole sheet after a correction ------------------------------------


def test_check_sheet_accepts_a_sheet_won_at_its_last_deal():
    outcome = rules.check_sheet([win("a", 2), TIE, win("a", 3)])
    assert outcome.winner == "a"
    assert outcome.won_at == 3


def test_check_sheet_refuses_a_sheet_that_ends_before_its_last_deal():
    with refused(
        InvalidInput,
        "This would end the rubber at deal 2, but deal 3 comes after it: correct deal 3 first.",
    ):
        rules.check_sheet([win("a", 2), win("a", 2), win("b", 1)])


def test_check_sheet_names_every_deal_after_the_early_end():
    with refused(InvalidInput, "end the rubber at deal 1, but deals 2–4 come after it"):
        rules.check_sheet([win("b", 4, True), win("a", 1), TIE, Deal(0, None)])


def test_check_sheet_refuses_a_cell_over_its_limit_once_a_tie_is_gone():
    assert rules.check_sheet([TIE, win("a", 3)]).games == {"a": 3, "b": 0}
    with refused(InvalidInput, "with no tie pending the most is 4"):
        rules.check_sheet([win("b", 1), win("a", 5)])


def test_check_sheet_refuses_both_sides_winning_games_in_a_deal():
    with refused(InvalidInput, "deal 2 has both"):
        rules.check_sheet([TIE, Deal(1, 2)])


def test_check_sheet_refuses_a_bandeira_under_4():
    with refused(InvalidInput, "A bandeira (every trick) is worth at least 4 games"):
        rules.check_sheet([Deal(2, 0, sweep=True)])


def test_current_deal_is_the_incomplete_one_or_the_next():
    assert rules.current_deal([]) == 1
    assert rules.current_deal([win("a", 1)]) == 2
    assert rules.current_deal([win("a", 1), Deal(None, 0)]) == 2


# Whose deal it is -------------------------------------------------------------


@pytest.mark.parametrize(
    ("direction", "first", "dealers"),
    [
        (values.COUNTERCLOCKWISE, "a1", ["a1", "b1", "a2", "b2", "a1"]),
        (values.COUNTERCLOCKWISE, "b1", ["b1", "a2", "b2", "a1", "b1"]),
        (values.COUNTERCLOCKWISE, "a2", ["a2", "b2", "a1", "b1", "a2"]),
        (values.COUNTERCLOCKWISE, "b2", ["b2", "a1", "b1", "a2", "b2"]),
        (values.CLOCKWISE, "a1", ["a1", "b2", "a2", "b1", "a1"]),
        (values.CLOCKWISE, "b2", ["b2", "a2", "b1", "a1", "b2"]),
        (values.CLOCKWISE, "a2", ["a2", "b1", "a1", "b2", "a2"]),
        (values.CLOCKWISE, "b1", ["b1", "a1", "b2", "a2", "b1"]),
    ],
)
def test_dealer_of_each_deal(direction, first, dealers):
    assert [rules.dealer(n, first, direction) for n in range(1, 6)] == dealers
    # The leader is the next player in turn, who also deals the next deal.
    assert [rules.leader(n, first, direction) for n in range(1, 5)] == dealers[1:]


def test_counterclockwise_a1_deals_b1_leads_then_b1_deals():
    assert rules.dealer(1, "a1") == "a1"
    assert rules.leader(1, "a1") == "b1"
    assert rules.dealer(2, "a1") == "b1"
    assert rules.leader(2, "a1") == "a2"


def test_clockwise_a1_deals_b2_leads():
    assert rules.dealer(1, "a1", values.CLOCKWISE) == "a1"
    assert rules.leader(1, "a1", values.CLOCKWISE) == "b2"
    assert rules.dealer(2, "a1", values.CLOCKWISE) == "b2"


# Properties -------------------------------------------------------------------

RANKS = tuple(rules.CARD_VALUES)


@given(st.tuples(*(st.integers(0, rules.CARDS_PER_RANK) for _ in RANKS)))
def test_any_split_of_the_40_cards_adds_to_120_and_at_most_one_side_wins(counts):
    ours = dict(zip(RANKS, counts, strict=True))
    theirs = {rank: rules.CARDS_PER_RANK - count for rank, count in ours.items()}
    a = rules.calculate(cards=ours)
    b = rules.calculate(cards=theirs)
    assert a.points + b.points == 120
    assert a.other_points == b.points
    assert not (a.games and b.games)
    assert a.tie == b.tie == (a.points == b.points == 60)
    if not a.tie:
        assert (a.games > 0) != (b.games > 0)  # only one side passes 60


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["a", "b", "c"]),
            st.one_of(st.integers(-2, 10), st.sampled_from([1.5, "2", "x", None, True])),
            st.booleans(),
            st.integers(0, 3),  # how many deals back: a late phone entering an old deal
        ),
        max_size=60,
    )
)
def test_no_sequence_of_accepted_entries_lowers_a_side_total(entries):
    sheet = []
    previous = {"a": 0, "b": 0}
    for side, games, sweep, back in entries:
        current = rules.current_deal(sheet)
        number = max(1, current - back)
        deal = sheet[number - 1] if number <= len(sheet) else None
        try:
            entered = rules.enter(
                deal,
                side,
                games,
                number=number,
                pending=rules.pending_extra(sheet[: number - 1]),
                sweep=sweep,
            )
        except values.Refusal:
            continue
        # A complete deal never takes another entry: nothing is counted twice.
        assert deal is None or not deal.complete
        assert not (entered.a and entered.b)
        if number <= len(sheet):
            sheet[number - 1] = entered
        else:
            sheet.append(entered)
        now = rules.totals(sheet)
        assert now["a"] >= previous["a"]
        assert now["b"] >= previous["b"]
        previous = now


@given(
    st.integers(1, 1000),
    st.sampled_from(values.SEATS),
    st.sampled_from(values.DIRECTIONS),
)
def test_the_deal_goes_round_all_four_seats_with_sides_alternating(number, first, direction):
    four = [rules.dealer(number + i, first, direction) for i in range(4)]
    assert sorted(four) == sorted(values.SEATS)
    assert rules.dealer(number + 4, first, direction) == four[0]
    for this, following in pairwise([*four, four[0]]):
        assert rules.side_of(this) != rules.side_of(following)
    assert rules.leader(number, first, direction) == four[1]


def test_a_late_zero_after_the_other_side_claimed_says_the_deal_is_complete():
    with refused(
        Conflict, "Deal 1 is already complete: Ana & Rui won 2 in it, so the 0 for Zé & Maria"
    ):
        rules.enter(Deal(2, 0), "b", 0, number=1, pending=0, names=NAMES)


def test_a_partners_entry_first_is_not_called_a_double_tap():
    """Maria entered 0 for her side; Zé's 1 for the same side, sent later (a queued tap),
    is refused with what the deal holds and what became of his number."""
    deal = rules.enter(
        None, "b", 0, number=6, pending=0, names={"a": "Ana & Rui", "b": "Zé & Maria"}
    )
    with pytest.raises(values.Conflict) as refused:
        rules.enter(deal, "b", 1, number=6, pending=0, names={"a": "Ana & Rui", "b": "Zé & Maria"})
    assert str(refused.value) == (
        "Deal 6 already has 0 for Zé & Maria, so 1 was not entered: undo that entry first "
        "to change it."
    )
    with pytest.raises(values.Conflict, match="nothing was counted twice"):
        rules.enter(deal, "b", 0, number=6, pending=0)

"""The club's ratings and forecasts (clubs/ratings.py): pure functions, no database."""

import math

from hypothesis import given
from hypothesis import strategies as st

from clubs.ratings import (
    PROVISIONAL_BELOW,
    TUNING,
    Rubber,
    Skill,
    calibrate,
    chance,
    fit_calibration,
    new_skill,
    rate,
    raw_chance,
)

ANA, RUI, ZE, MARIA, OLGA = 1, 2, 3, 4, 5


def rubbers_of(*played):
    """Rubbers keyed 1, 2, ... from (side a, side b, winner)."""
    return [Rubber(key, a, b, winner) for key, (a, b, winner) in enumerate(played, start=1)]


NIGHT = rubbers_of(
    ((ANA, RUI), (ZE, MARIA), "a"),
    ((ANA, ZE), (RUI, OLGA), "b"),
    ((MARIA, OLGA), (ANA, RUI), "a"),
    ((ZE, RUI), (MARIA, ANA), "a"),
    ((OLGA, ANA), (ZE, MARIA), "b"),
)

a_rubber = st.builds(
    lambda four, key, winner: Rubber(key, four[:2], four[2:4], winner),
    st.permutations(range(6)).map(lambda p: tuple(p[:4])),
    st.integers(1, 10_000),
    st.sampled_from("ab"),
)
a_skill = st.builds(
    Skill,
    st.floats(0, 50, allow_nan=False),
    st.floats(0.5, 9, allow_nan=False),
)
a_chance = st.floats(0, 1, allow_nan=False)
a_calibration = st.floats(0, 1, allow_nan=False)


def test_the_same_rubbers_give_the_same_ratings():
    assert rate(NIGHT) == rate(list(NIGHT))
    assert rate(NIGHT).skills[ANA] == rate(NIGHT).skills[ANA]


def test_a_player_with_no_rubber_has_the_first_rating_and_is_provisional():
    fresh = new_skill()
    assert (fresh.rubbers, fresh.won, fresh.provisional) == (0, 0, True)
    assert fresh.rating == fresh.mu - TUNING.k * fresh.sigma
    assert rate([]).skills == {}


def test_the_order_of_the_rubbers_matters():
    swapped = [NIGHT[1], NIGHT[0], *NIGHT[2:]]
    assert rate(swapped).skills != rate(NIGHT).skills


def test_a_corrected_old_rubber_gives_what_its_new_result_would_have_from_the_start():
    corrected = [*NIGHT[:1], Rubber(2, (ANA, ZE), (RUI, OLGA), "a"), *NIGHT[2:]]
    from_the_start = rate(corrected)
    # Re-rated from the rubber before the correction on, as a club would do it.
    again = rate(corrected[1:], start=rate(NIGHT[:1]).skills)
    assert again.skills == from_the_start.skills
    assert from_the_start.skills != rate(NIGHT).skills
    # Later rubbers' ratings follow: Maria played neither the first nor the corrected one.
    later = [point for point in from_the_start.points[MARIA] if point.key > 2]
    assert later != [point for point in rate(NIGHT).points[MARIA] if point.key > 2]


@given(st.lists(a_rubber, max_size=12), st.lists(a_rubber, max_size=12))
def test_rating_later_rubbers_from_earlier_ratings_is_rating_them_all(earlier, later):
    first = rate(earlier)
    both = rate(later, start=first.skills)
    whole = rate(earlier + later)
    assert both.skills == whole.skills
    assert first.raw + both.raw == whole.raw
    for player, points in whole.points.items():
        assert first.points.get(player, []) + both.points.get(player, []) == points


@given(st.lists(a_rubber, max_size=8), a_rubber)
def test_the_winners_gain_and_the_losers_lose(before, rubber):
    start = rate(before).skills
    after = rate([rubber], start=start).skills
    winners, losers = (rubber.a, rubber.b) if rubber.winner == "a" else (rubber.b, rubber.a)
    for player in winners:
        was = start.get(player, new_skill())
        assert after[player].mu > was.mu
        assert (after[player].rubbers, after[player].won) == (was.rubbers + 1, was.won + 1)
    for player in losers:
        was = start.get(player, new_skill())
        assert after[player].mu < was.mu
        assert (after[player].rubbers, after[player].won) == (was.rubbers + 1, was.won)


def test_each_rubber_gives_a_point_of_each_players_chart():
    points = rate(NIGHT).points
    assert [point.key for point in points[ANA]] == [1, 2, 3, 4, 5]
    assert [point.key for point in points[OLGA]] == [2, 3, 5]
    last = points[OLGA][-1]
    assert (last.mu, last.sigma) == (rate(NIGHT).skills[OLGA].mu, rate(NIGHT).skills[OLGA].sigma)


def test_each_rubbers_raw_forecast_is_the_models_chance_before_it():
    for upto, rubber in enumerate(NIGHT):
        skills = rate(NIGHT[:upto]).skills
        a = [skills.get(player, new_skill()) for player in rubber.a]
        b = [skills.get(player, new_skill()) for player in rubber.b]
        assert rate(NIGHT).raw[upto] == (raw_chance(a, b), int(rubber.winner == "a"))


def test_a_player_is_provisional_below_ten_rated_rubbers():
    nine = rubbers_of(*[((ANA, RUI), (ZE, MARIA), "a")] * (PROVISIONAL_BELOW - 1))
    assert rate(nine).skills[ANA].provisional
    ten = rubbers_of(*[((ANA, RUI), (ZE, MARIA), "a")] * PROVISIONAL_BELOW)
    assert not rate(ten).skills[ANA].provisional
    assert rate(ten).skills[ANA].won == PROVISIONAL_BELOW


def test_a_rubber_of_fewer_than_four_players_or_without_a_winner_is_refused():
    for wrong in (Rubber(1, (ANA, RUI), (ANA, ZE), "a"), Rubber(1, (ANA, RUI), (ZE, MARIA), "")):
        try:
            rate([wrong])
        except ValueError:
            continue
        raise AssertionError(f"{wrong} was rated")


@given(a_skill, a_skill, a_skill, a_skill, a_calibration)
def test_the_two_sides_chances_sum_to_one(a1, a2, b1, b2, calibration):
    assert chance([a1, a2], [b1, b2], calibration) + chance([b1, b2], [a1, a2], calibration) == 1
    assert 0 <= chance([a1, a2], [b1, b2], calibration) <= 1


@given(a_skill, a_skill, a_calibration)
def test_equal_sides_have_even_chances(one, other, calibration):
    assert chance([one, other], [other, one], calibration) == 0.5


@given(a_skill, a_skill, a_skill, a_skill)
def test_a_calibration_of_zero_is_a_coin(a1, a2, b1, b2):
    assert chance([a1, a2], [b1, b2], 0) == 0.5


@given(a_skill, a_skill, a_skill, a_skill, a_calibration)
def test_a_forecast_is_never_surer_than_the_models_own(a1, a2, b1, b2, calibration):
    raw = raw_chance([a1, a2], [b1, b2])
    assert abs(chance([a1, a2], [b1, b2], calibration) - 0.5) <= abs(raw - 0.5)
    assert chance([a1, a2], [b1, b2], 1) == calibrate(raw, 1)


def test_the_stronger_side_is_favoured():
    strong, weak = Skill(30, 2, 40, 30), Skill(20, 2, 40, 10)
    stronger, weaker = [strong, strong], [weak, weak]
    assert chance(stronger, weaker, 1) > 0.9
    assert 0.5 < chance(stronger, weaker, 0.3) < chance(stronger, weaker, 1)


@given(st.lists(st.tuples(a_chance, st.integers(0, 1)), max_size=60))
def test_the_calibration_is_between_a_coin_and_the_model(raw):
    calibration = fit_calibration(raw)
    assert 0 <= calibration <= 1
    assert fit_calibration(list(raw)) == calibration


def test_no_rubbers_calibrate_to_a_coin():
    assert fit_calibration([]) == 0


def test_forecasts_the_results_bear_out_keep_their_confidence():
    """700 of 1,000 rubbers forecast at 70 % won: the forecasts stand nearly as they are;
    the same forecasts of which half came true shrink to a coin."""
    borne_out = [(0.7, 1)] * 350 + [(0.3, 0)] * 350 + [(0.7, 0)] * 150 + [(0.3, 1)] * 150
    assert 0.9 < fit_calibration(borne_out) <= 1
    half = [(0.7, 1)] * 250 + [(0.7, 0)] * 250 + [(0.3, 1)] * 250 + [(0.3, 0)] * 250
    assert fit_calibration(half) < 1e-9


def test_forecasts_surer_than_the_results_are_made_less_sure():
    """Forecasts of 90 % of which 70 % came true: made about 70 %."""
    overconfident = [(0.9, 1)] * 700 + [(0.9, 0)] * 300
    assert math.isclose(calibrate(0.9, fit_calibration(overconfident)), 0.7, abs_tol=0.01)


def test_few_rubbers_keep_the_forecasts_near_a_coin():
    assert fit_calibration([(0.7, 1)] * 3) < fit_calibration([(0.7, 1)] * 300)

"""A club's ratings: a Bayesian skill rating for partnerships (Weng–Lin, as openskill
implements it) and the forecasts it gives, calibrated on the club's own rubbers.

Pure functions, no Django, no randomness: the ratings are what the rated rubbers give in
the order they were won, so rating them again from the start always gives the same
figures. The model, its parameters and the calibration's form were chosen by measurement
(``bench/ratings.py``; docs/decisions/0009-club-ratings.md).
"""

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist

from openskill.models import ThurstoneMostellerFull

PROVISIONAL_BELOW = 10  # fewer rated rubbers than this: provisional (SPEC)

# A chance past this is certainty as far as a card game goes; it keeps logs finite.
SUREST = 1 - 1e-12
# The logistic's slope at a coin is the normal's at this multiple (√(8/π)): past a coin,
# a logistic of this multiple of the normal's quantile is always the less sure of the two.
PROBIT_TO_LOGIT = math.sqrt(8 / math.pi)


@dataclass(frozen=True)
class Tuning:
    """The model and its parameters. ``TUNING`` is the club's; the bench tries others."""

    model: type = ThurstoneMostellerFull
    mu: float = 25.0
    sigma: float = 25.0 / 3.0
    beta: float = 25.0 / 12.0  # half openskill's: a rubber's result tells more
    tau: float = 25.0 / 300.0  # openskill's: a season's form may change
    k: float = 2.0  # the leaderboard's rating is mu - k·sigma
    prior: float = 0.25  # the calibration's prior: a normal of this spread about 0
    # What the calibration scales: the raw chance's normal quantile ("probit"), or its
    # logit, whose tails grow as the square of the model's.
    link: str = "probit"

    def openskill(self):
        return self.model(mu=self.mu, sigma=self.sigma, beta=self.beta, tau=self.tau)


TUNING = Tuning()
_MODELS: dict[Tuning, object] = {}


def _model(tuning: Tuning):
    """openskill's model for ``tuning``, made once: the model holds no state between rates."""
    if tuning not in _MODELS:
        _MODELS[tuning] = tuning.openskill()
    return _MODELS[tuning]


@dataclass(frozen=True)
class Skill:
    """One player's rating as it stands."""

    mu: float
    sigma: float
    rubbers: int = 0  # rated rubbers played
    won: int = 0

    @property
    def rating(self) -> float:
        """The conservative figure the leaderboard ranks by."""
        return self.mu - TUNING.k * self.sigma

    @property
    def provisional(self) -> bool:
        return self.rubbers < PROVISIONAL_BELOW


def new_skill(tuning: Tuning = TUNING) -> Skill:
    """A player with no rated rubber."""
    return Skill(tuning.mu, tuning.sigma)


@dataclass(frozen=True)
class Rubber:
    """One rated rubber, in the order rubbers were won."""

    key: int  # the match id
    a: tuple[int, int]  # player ids of side a
    b: tuple[int, int]
    winner: str  # "a" or "b"


@dataclass(frozen=True)
class Point:
    """A player's rating after one rubber (for the chart)."""

    key: int
    mu: float
    sigma: float


@dataclass
class Pass:
    """What rating some rubbers gave."""

    skills: dict[int, Skill]  # every player's rating after the rubbers
    points: dict[int, list[Point]] = field(default_factory=dict)  # rubber by rubber
    # (uncalibrated chance side a had, 1 if a won else 0), per rubber, each forecast
    # from the ratings before that rubber
    raw: list[tuple[float, int]] = field(default_factory=list)

    def calibration(self, tuning: Tuning = TUNING) -> float:
        """The calibration this pass's rubbers bear out (see ``fit_calibration``): the
        club's when the pass rated all its rubbers from the start."""
        return fit_calibration(self.raw, tuning)


def rate(
    rubbers: Iterable[Rubber], start: dict[int, Skill] | None = None, tuning: Tuning = TUNING
) -> Pass:
    """The ratings ``rubbers`` give, in order, from ``start`` (players absent start
    at new_skill())."""
    model = _model(tuning)
    skills = dict(start or {})
    # Each player met in this pass: openskill's rating (made once a pass, as each costs
    # a fresh random id), rubbers played and won; their Skill is made at the end.
    ratings, played, won = {}, {}, {}
    points: dict[int, list[Point]] = {}
    raw = []
    twice_beta_squared = 2 * tuning.beta**2
    for rubber in rubbers:
        players = (*rubber.a, *rubber.b)
        if len(set(players)) != 4 or rubber.winner not in ("a", "b"):
            raise ValueError(f"rubber {rubber.key}: four different players and a winner")
        for player in players:
            if player not in ratings:
                skill = skills.get(player) or new_skill(tuning)
                ratings[player] = model.rating(mu=skill.mu, sigma=skill.sigma)
                played[player], won[player] = skill.rubbers, skill.won
                points[player] = []
        four = [ratings[player] for player in players]
        difference = (four[0].mu + four[1].mu) - (four[2].mu + four[3].mu)
        spread = math.fsum([twice_beta_squared, *(rating.sigma**2 for rating in four)])
        a_won = rubber.winner == "a"
        raw.append((_phi(difference, math.sqrt(spread)), int(a_won)))
        # With no ranks, openskill takes the first side for the winner.
        if a_won:
            winners, losers = model.rate([four[:2], four[2:]])
            after = winners + losers
        else:
            winners, losers = model.rate([four[2:], four[:2]])
            after = losers + winners
        for index, (player, rating) in enumerate(zip(players, after, strict=True)):
            ratings[player] = rating
            played[player] += 1
            won[player] += (index < 2) == a_won
            points[player].append(Point(rubber.key, rating.mu, rating.sigma))
    for player, rating in ratings.items():
        skills[player] = Skill(rating.mu, rating.sigma, played[player], won[player])
    return Pass(skills, points, raw)


def raw_chance(a: Sequence[Skill], b: Sequence[Skill], tuning: Tuning = TUNING) -> float:
    """The model's own chance that side a wins, uncalibrated: openskill's ``predict_win``
    for two sides, computed so that swapping the sides gives exactly 1 less it."""
    difference = sum(skill.mu for skill in a) - sum(skill.mu for skill in b)
    spread = math.fsum([2 * tuning.beta**2, *(skill.sigma**2 for skill in (*a, *b))])
    return _phi(difference, math.sqrt(spread))


def _phi(difference: float, spread: float) -> float:
    """The normal's chance below ``difference`` for ``spread``, exactly 1 less its
    chance below ``-difference``."""
    stronger = 0.5 * math.erfc(-abs(difference) / spread / math.sqrt(2))
    return stronger if difference >= 0 else 1 - stronger


def _evidence(favoured: float, tuning: Tuning) -> float:
    """How sure a raw chance of at least 0.5 is, on the scale the calibration shrinks
    (0 for a coin)."""
    favoured = min(favoured, SUREST)
    if tuning.link == "logit":
        return math.log(favoured / (1 - favoured))
    return PROBIT_TO_LOGIT * NormalDist().inv_cdf(favoured)


def calibrate(raw: float, calibration: float, tuning: Tuning = TUNING) -> float:
    """``raw``, a chance, made less sure: the logistic of ``calibration`` times its
    evidence (0 a coin's 0.5, 1 about the model's own, never surer); side b's is exactly
    1 less side a's."""
    if raw < 0.5:
        return 1 - calibrate(1 - raw, calibration, tuning)
    return 1 / (1 + math.exp(-calibration * _evidence(raw, tuning)))


def chance(
    a: Sequence[Skill], b: Sequence[Skill], calibration: float, tuning: Tuning = TUNING
) -> float:
    """The chance side a wins a rubber against b: the model's win probability,
    calibrated (``calibration`` from the club's own rated rubbers). a+b sum to 1."""
    return calibrate(raw_chance(a, b, tuning), calibration, tuning)


def fit_calibration(raw: Sequence[tuple[float, int]], tuning: Tuning = TUNING) -> float:
    """From (uncalibrated chance of a, outcome) pairs of a club's rubbers, each
    forecast made before that rubber was rated: the calibration ``chance`` applies,
    so forecasts are no more confident than these results bear out.

    The most probable multiple in [0, 1] of the forecasts' evidence (see ``calibrate``)
    in a logistic regression of the results, under a normal prior about 0 (a coin) of
    spread ``tuning.prior``: with few rubbers the forecasts stay near a coin's, and never
    grow surer than the model's own.
    """
    # Each forecast folded onto the side it favours: (its evidence, 1 if that side won).
    folded = []
    for chance_a, a_won in raw:
        favoured, won = (chance_a, a_won) if chance_a >= 0.5 else (1 - chance_a, 1 - a_won)
        evidence = _evidence(favoured, tuning)
        if evidence > 0:
            folded.append((evidence, won))
    precision = 1 / tuning.prior**2

    def slope_and_curvature(c):
        """The log posterior's first and second derivatives at ``c``."""
        slope, curvature = -c * precision, -precision
        for evidence, won in folded:
            p = 1 / (1 + math.exp(-c * evidence))
            slope += evidence * (won - p)
            curvature -= evidence * evidence * p * (1 - p)
        return slope, curvature

    # The log posterior is concave: its slope falls as c grows. Newton's steps, kept
    # inside the bracket where the slope changes sign, else halving it.
    low, high = 0.0, 1.0
    if slope_and_curvature(low)[0] <= 0:
        return low
    if slope_and_curvature(high)[0] >= 0:
        return high
    c = 0.5
    for _ in range(100):
        slope, curvature = slope_and_curvature(c)
        if slope > 0:
            low = c
        else:
            high = c
        step = c - slope / curvature
        following = step if low < step < high else (low + high) / 2
        if abs(following - c) < 1e-9:
            return following
        c = following
    return c

"""Do the club's ratings rank players by skill where win rates cannot, and are their
forecasts no worse than a coin?

Simulates clubs whose players have a true skill (a normal's draw), through the pure
functions of clubs/ratings.py (no database): each rubber takes four of the club's players
at random, and side a wins with a logistic chance of its true skills' sum against the
other's, at a scale that makes rubbers as noisy as four games are. Three clubs:

- carry: 12 players; in 4 rubbers of 5 the best of the four partners the weakest (a
  regular carrying a newcomer), else the pairs are drawn at random;
- random: 12 players, pairs drawn at random;
- newcomers: 8 players, 4 more arriving after 60 rubbers and 4 more after 120, pairs
  as in carry.

For each club and seed, at 60, 120 and 240 rubbers: Spearman's ρ between true skill and
the conservative rating, mu, and the win rate (players who have played); and the Brier
score of the forecasts, each made before its rubber was rated from the ratings and the
calibration fitted on the rubbers before it (a coin scores 0.25); then a reliability
table, the forecasts in bins against the share their side won. It compares the
candidate models and parameters briefly, then shows the chosen one (clubs.ratings.TUNING)
in full, and the time ``rate`` takes over 20,000 rubbers of 300 players.

    .venv/bin/python bench/ratings.py                # 200 seeds, the candidates too
    .venv/bin/python bench/ratings.py --check        # 20 seeds, the chosen tuning alone

It exits 1 if a goal (issue 45) fails: ρ of the rating at least 0.75 at 240 rubbers and
0.2 above the win rates' in carry, Brier at most 0.25 in every club.
"""

import argparse
import math
import random
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from openskill.models import (  # noqa: E402
    BradleyTerryFull,
    PlackettLuce,
    ThurstoneMostellerPart,
)

from clubs.ratings import (  # noqa: E402
    TUNING,
    Rubber,
    Tuning,
    calibrate,
    fit_calibration,
    new_skill,
    rate,
)

CHECKPOINTS = (60, 120, 240)
CARRIED = 0.8  # the share of carry's rubbers where the best partners the weakest
SCALE = 1.5  # the logistic's scale on the true skills' difference of sums: noisy rubbers
COIN = 0.25
GOAL_RHO, GOAL_ABOVE_WIN_RATES = 0.75, 0.2
BINS = 10  # reliability bins of 5 points, from 50 %

# The clubs: players at the start, and those who arrive after so many rubbers.
CLUBS = {
    "carry": (12, {}, True),
    "random": (12, {}, False),
    "newcomers": (8, {60: 4, 120: 4}, True),
}

# openskill's models and parameters tried (label, tuning); k and the calibration's prior
# are tried on the chosen model alone, as they change nothing of the ratings themselves.
CANDIDATES = [
    ("PlackettLuce, openskill's defaults", Tuning(model=PlackettLuce, beta=25 / 6)),
    ("BradleyTerryFull, defaults", Tuning(model=BradleyTerryFull, beta=25 / 6)),
    ("PlackettLuce, beta 25/24", Tuning(model=PlackettLuce, beta=25 / 24)),
    ("ThurstoneMostellerPart, defaults", Tuning(model=ThurstoneMostellerPart, beta=25 / 6)),
    ("ThurstoneMostellerFull, defaults", Tuning(beta=25 / 6)),
    ("ThurstoneMostellerFull, beta 25/24", Tuning(beta=25 / 24)),
    ("ThurstoneMostellerFull, beta 25/12, tau 0", Tuning(tau=0.0)),
    ("ThurstoneMostellerFull, beta 25/12, on logits", replace(TUNING, link="logit")),
    ("ThurstoneMostellerFull, beta 25/12 (chosen)", TUNING),
]


def simulate(club, seed, rubbers):
    """(true skill by player, the rubbers in order) of one club and seed."""
    starting, arriving, carry = CLUBS[club]
    rng = random.Random(f"{club}-{seed}")
    skill = {player: rng.gauss(0, 1) for player in range(starting)}
    played = []
    for key in range(rubbers):
        for _ in range(arriving.get(key, 0)):
            skill[len(skill)] = rng.gauss(0, 1)
        four = rng.sample(sorted(skill), 4)
        if carry and rng.random() < CARRIED:
            four.sort(key=skill.get)
            four = [four[3], four[0], four[1], four[2]]  # the best with the weakest
            if rng.random() < 0.5:
                four = four[2:] + four[:2]
        edge = (skill[four[0]] + skill[four[1]] - skill[four[2]] - skill[four[3]]) / SCALE
        winner = "a" if rng.random() < 1 / (1 + math.exp(-edge)) else "b"
        played.append(Rubber(key, (four[0], four[1]), (four[2], four[3]), winner))
    return skill, played


def ranks(values):
    """Each value's rank from 1, ties sharing their average rank."""
    order = sorted(range(len(values)), key=values.__getitem__)
    ranked = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for place in range(start, end + 1):
            ranked[order[place]] = (start + end) / 2 + 1
        start = end + 1
    return ranked


def spearman(xs, ys):
    """Spearman's ρ (0 when either side has no spread)."""
    rx, ry = ranks(xs), ranks(ys)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((x - mx) * (y - my) for x, y in zip(rx, ry, strict=True))
    sxx = sum((x - mx) ** 2 for x in rx)
    syy = sum((y - my) ** 2 for y in ry)
    return sxy / math.sqrt(sxx * syy) if sxx and syy else 0.0


def forecasts(raw, tuning):
    """Each rubber's forecast for side a, from the calibration fitted on the rubbers
    before it, as the club's sheet would have shown it; and those calibrations."""
    shown, calibrations = [], []
    for index, (chance_a, _won) in enumerate(raw):
        calibration = fit_calibration(raw[:index], tuning)
        calibrations.append(calibration)
        shown.append(calibrate(chance_a, calibration, tuning))
    return shown, calibrations


def brier(shown, raw, upto):
    return sum((f - won) ** 2 for f, (_c, won) in zip(shown[:upto], raw[:upto], strict=True)) / upto


def run_club(club, seed, tuning, ks, priors):
    """One club and seed: ρ by checkpoint for each k, mu and win rates; Brier by
    checkpoint for the raw forecasts and each calibration prior; the forecasts."""
    truth, rubbers = simulate(club, seed, CHECKPOINTS[-1])
    skills, raw, rho = {}, [], {}
    done = 0
    for upto in CHECKPOINTS:
        rated = rate(rubbers[done:upto], start=skills, tuning=tuning)
        skills, done = rated.skills, upto
        raw += rated.raw
        players = sorted(skills)
        true = [truth[p] for p in players]
        for k in ks:
            rating = [skills[p].mu - k * skills[p].sigma for p in players]
            rho[upto, f"k={k:g}"] = spearman(rating, true)
        rho[upto, "win rate"] = spearman([skills[p].won / skills[p].rubbers for p in players], true)
    scores = {}
    kept = {}
    for upto in CHECKPOINTS:
        scores[upto, "raw"] = brier([c for c, _won in raw], raw, upto)
    for prior in priors:
        shown, calibrations = forecasts(raw, replace(tuning, prior=prior))
        kept[prior] = (shown, raw, calibrations)
        for upto in CHECKPOINTS:
            scores[upto, prior] = brier(shown, raw, upto)
    return rho, scores, kept


def mean(values):
    values = list(values)
    return sum(values) / len(values)


def measure(tuning, seeds, ks, priors):
    """Means over seeds, by club: ρ[(upto, k)], Brier[(upto, prior)], and every
    forecast of each prior as (shown, outcome, calibration) for the reliability table."""
    results = {}
    for club in CLUBS:
        runs = [run_club(club, seed, tuning, ks, priors) for seed in range(seeds)]
        rho = {key: mean(run[0][key] for run in runs) for key in runs[0][0]}
        scores = {key: mean(run[1][key] for run in runs) for key in runs[0][1]}
        pooled = {
            prior: [
                (f, won, c)
                for run in runs
                for f, (_raw, won), c in zip(*run[2][prior], strict=True)
            ]
            for prior in priors
        }
        results[club] = (rho, scores, pooled)
    return results


def reliability(pooled):
    """Rows of (bin's low %, forecasts, mean forecast, share won), side b's folded onto a."""
    bins = [[] for _ in range(BINS)]
    for shown, won, _c in pooled:
        favoured, favoured_won = (shown, won) if shown >= 0.5 else (1 - shown, 1 - won)
        bins[min(int((favoured - 0.5) * 2 * BINS), BINS - 1)].append((favoured, favoured_won))
    return [
        (50 + 5 * i, len(b), mean(f for f, _ in b), mean(w for _, w in b))
        for i, b in enumerate(bins)
        if b
    ]


def show_chosen(results, tuning):
    k, prior = f"k={tuning.k:g}", tuning.prior
    print(
        f"\nChosen: {tuning.model.__name__}(mu={tuning.mu:g}, sigma={tuning.sigma:.4g}, "
        f"beta={tuning.beta:.4g}, tau={tuning.tau:.4g}); rating mu - {tuning.k:g}·sigma; "
        f"calibration on the {tuning.link}, prior {prior:g}"
    )
    print(
        f"{'club':<10} {'rubbers':>7} {'ρ rating':>9} {'ρ mu':>6} {'ρ wins':>7} "
        f"{'above':>6} {'Brier':>7} {'raw':>7} {'coin':>5} {'calib.':>7}"
    )
    for club, (rho, scores, pooled) in results.items():
        for upto in CHECKPOINTS:
            calibration = mean(c for _f, _w, c in pooled[prior][upto - 1 :: CHECKPOINTS[-1]])
            print(
                f"{club:<10} {upto:>7} {rho[upto, k]:>9.3f} {rho[upto, 'k=0']:>6.3f} "
                f"{rho[upto, 'win rate']:>7.3f} {rho[upto, k] - rho[upto, 'win rate']:>+6.3f} "
                f"{scores[upto, prior]:>7.4f} {scores[upto, 'raw']:>7.4f} {COIN:>5.2f} "
                f"{calibration:>7.3f}"
            )
    print("\nReliability (all forecasts to 240 rubbers, side b's folded onto a):")
    print(f"{'club':<10} {'forecast':>9} {'rubbers':>8} {'mean':>6} {'won':>6}")
    for club, (_rho, _scores, pooled) in results.items():
        for low, count, forecast, won in reliability(pooled[prior]):
            print(f"{club:<10} {low:>3}–{low + 5:>3}% {count:>8} {forecast:>6.3f} {won:>6.3f}")


def compare(seeds):
    """The candidates, briefly: each model with the chosen k and prior; then k and the
    prior on the chosen model. Returns the chosen model's measure, every k and prior."""
    last, k = CHECKPOINTS[-1], f"k={TUNING.k:g}"
    print(f"Candidates ({seeds} seeds; ρ with k={TUNING.k:g} and Brier at {last} rubbers):")
    print(
        f"{'':<44} {'ρ carry':>8} {'random':>7} {'newc.':>6} "
        + " ".join(f"{'Brier ' + club[:6]:>12}" for club in CLUBS)
        + f" {'raw carry':>10}"
    )
    for label, tuning in CANDIDATES:
        tuning = replace(tuning, k=TUNING.k, prior=TUNING.prior)
        results = measure(tuning, seeds, [TUNING.k], [TUNING.prior])
        print(
            f"{label:<44} "
            + " ".join(
                f"{results[club][0][last, k]:>{width}.3f}"
                for club, width in zip(CLUBS, (8, 7, 6), strict=True)
            )
            + " "
            + " ".join(f"{results[club][1][last, TUNING.prior]:>12.4f}" for club in CLUBS)
            + f" {results['carry'][1][last, 'raw']:>10.4f}"
        )
    ks, priors = [0, 1, 2, 3], sorted({0.1, 0.25, 0.5, 1.0, 1e6, TUNING.prior})
    results = measure(TUNING, seeds, sorted({*ks, TUNING.k}), priors)
    print(f"\nThe conservative multiple k (rating mu - k·sigma), ρ at {last} rubbers:")
    print(f"{'club':<10} " + " ".join(f"{'k=' + str(k):>7}" for k in ks) + f" {'win rate':>9}")
    for club, (rho, _scores, _pooled) in results.items():
        print(
            f"{club:<10} "
            + " ".join(f"{rho[last, f'k={k}']:>7.3f}" for k in ks)
            + f" {rho[last, 'win rate']:>9.3f}"
        )
    print("\nThe calibration's prior spread (1e+06: none), Brier at 60 / 120 / 240 rubbers:")
    print(f"{'club':<10} " + " ".join(f"{p:>20}" for p in ["raw", *map("{:g}".format, priors)]))
    for club, (_rho, scores, _pooled) in results.items():
        print(
            f"{club:<10} "
            + " ".join(
                f"{scores[60, p]:>6.4f} {scores[120, p]:.4f} {scores[last, p]:.4f}"
                for p in ["raw", *priors]
            )
        )
    return results


def timing():
    """Seconds ``rate`` takes over 20,000 rubbers of 300 players, then ``fit_calibration``
    over their 20,000 forecasts (the best of three)."""
    rng = random.Random("timing")
    rubbers = []
    for key in range(20_000):
        four = rng.sample(range(300), 4)
        rubbers.append(Rubber(key, (four[0], four[1]), (four[2], four[3]), rng.choice("ab")))
    rated, fitted = [], []
    for _ in range(3):
        started = time.perf_counter()
        whole = rate(rubbers)
        rated.append(time.perf_counter() - started)
        started = time.perf_counter()
        whole.calibration()
        fitted.append(time.perf_counter() - started)
    assert len(whole.skills) == 300 and new_skill() == new_skill()
    return min(rated), min(fitted)


def goals(results):
    """The goals that failed, as sentences."""
    failed = []
    last, k = CHECKPOINTS[-1], f"k={TUNING.k:g}"
    rho = results["carry"][0]
    if rho[last, k] < GOAL_RHO:
        failed.append(f"carry: ρ {rho[last, k]:.3f} at {last} rubbers, under {GOAL_RHO}")
    if rho[last, k] - rho[last, "win rate"] < GOAL_ABOVE_WIN_RATES:
        failed.append(f"carry: ρ only {rho[last, k] - rho[last, 'win rate']:.3f} above win rates")
    for club, (_rho, scores, _pooled) in results.items():
        for upto in CHECKPOINTS:
            if scores[upto, TUNING.prior] > COIN:
                failed.append(f"{club}: Brier {scores[upto, TUNING.prior]:.4f} at {upto} rubbers")
    return failed


def main(argv=None):
    command_line = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    command_line.add_argument("--seeds", type=int, help="200, or 20 with --check")
    command_line.add_argument(
        "--check", action="store_true", help="the chosen tuning alone, few seeds"
    )
    args = command_line.parse_args(argv)
    seeds = args.seeds or (20 if args.check else 200)
    if args.check:
        results = measure(TUNING, seeds, [0, TUNING.k], [TUNING.prior])
    else:
        results = compare(seeds)
    show_chosen(results, TUNING)
    rated, fitted = timing()
    print(
        f"\nrate() over 20,000 rubbers of 300 players: {rated:.2f} s; "
        f"fit_calibration() over their 20,000 forecasts: {fitted:.2f} s"
    )
    failed = goals(results)
    for sentence in failed:
        print(f"goal failed: {sentence}")
    print("goals: " + ("failed" if failed else f"met ({seeds} seeds)"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

"""The draw of a club tournament of pairs: a round robin by the circle method, and knockout
rounds drawn at random or seeded from the standings. Nothing here knows about Django: pairs
are opaque hashable values (ids in practice), rounds are plain values."""

import random
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Round:
    """One round of a draw: who meets whom, and who sits out."""

    meetings: list[tuple]  # (a, b) pairs meeting in this round, in table order
    byes: list  # pairs sitting out this round (no points)


# Stands in for the missing pair when the count is odd: whoever meets it sits out. A fresh
# object, so that no real pair (None, 0, "") can be mistaken for it.
_PHANTOM = object()

# seeded() knows the brackets a club actually plays after a round robin.
_SEEDED_SIZES = (2, 4, 8)


def _distinct(pairs: Sequence, least: int) -> list:
    pairs = list(pairs)
    if len(pairs) < least:
        raise ValueError(f"At least {least} pairs are needed, not {len(pairs)}.")
    if len(set(pairs)) != len(pairs):
        raise ValueError("A pair is listed more than once.")
    return pairs


def _next_power_of_two(n: int) -> int:
    return 1 << (n - 1).bit_length()


def round_robin(pairs: Sequence, rounds: int | None = None) -> list[Round]:
    """The circle method: N pairs play N-1 rounds (N rounds when N is odd, one pair
    sitting out each round, each pair exactly once); no two pairs meet twice, every pair
    plays every round but its bye. ``rounds`` takes the first R of them (1 <= R <= the full
    count, else ValueError)."""
    circle = _distinct(pairs, least=2)
    if len(circle) % 2:
        circle.append(_PHANTOM)
    n = len(circle)
    full = n - 1
    if rounds is None:
        rounds = full
    if not 1 <= rounds <= full:
        raise ValueError(f"{len(pairs)} pairs play between 1 and {full} rounds, not {rounds}.")

    fixed, others = circle[0], circle[1:]
    draw = []
    for r in range(rounds):
        # Turning the others one place a round brings each of them once against every
        # other, and once against the fixed pair.
        turned = others[-r:] + others[:-r]  # r == 0: as they are
        seats = [fixed, *turned]
        meetings, byes = [], []
        for table in range(n // 2):
            a, b = seats[table], seats[n - 1 - table]
            # The others take the first place about half the time as they go round the
            # circle; the fixed pair never moves, so it takes turns.
            if table == 0 and r % 2:
                a, b = b, a
            if a is _PHANTOM:
                byes.append(b)
            elif b is _PHANTOM:
                byes.append(a)
            else:
                meetings.append((a, b))
        draw.append(Round(meetings=meetings, byes=byes))
    return draw


def knockout_round(pairs: Sequence, rng: random.Random) -> Round:
    """Pairs drawn at random. When the count is not a power of two, the byes all fall in
    this (first) round: exactly next_power_of_two(n) - n byes, so the next round has a
    power of two. Fewer than 2 pairs: ValueError."""
    drawn = _distinct(pairs, least=2)
    rng.shuffle(drawn)
    sitting_out = _next_power_of_two(len(drawn)) - len(drawn)
    byes, playing = drawn[:sitting_out], drawn[sitting_out:]
    meetings = list(zip(playing[::2], playing[1::2], strict=True))
    return Round(meetings=meetings, byes=byes)


def seeded(ranked: Sequence) -> Round:
    """The first knockout round after a round robin, seeded from the standings:
    2 pairs: 1 v 2; 4: 1 v 4, 2 v 3; 8: 1 v 8, 4 v 5, 2 v 7, 3 v 6 (bracket order, so
    that pairing the winners of adjacent meetings gives the usual bracket). Other
    sizes: ValueError."""
    ranked = _distinct(ranked, least=2)
    n = len(ranked)
    if n not in _SEEDED_SIZES:
        raise ValueError(f"A seeded knockout takes 2, 4 or 8 pairs, not {n}.")
    # Each seed in a bracket of k meets k + 1 - seed: doubling the bracket one size at a time
    # keeps the top two seeds apart until the final, the top four until the semi-finals...
    seeds = [1]
    while len(seeds) < n:
        size = 2 * len(seeds)
        seeds = [s for seed in seeds for s in (seed, size + 1 - seed)]
    meetings = [(ranked[seeds[i] - 1], ranked[seeds[i + 1] - 1]) for i in range(0, n, 2)]
    return Round(meetings=meetings, byes=[])


def bracket(winners: Sequence) -> Round:
    """The next round of a seeded knockout: the winners of adjacent meetings meet
    (1st v 2nd, 3rd v 4th ...), in order. An odd count or fewer than 2: ValueError."""
    winners = _distinct(winners, least=2)
    if len(winners) % 2:
        raise ValueError(f"An odd number of winners ({len(winners)}) cannot all meet.")
    return Round(meetings=list(zip(winners[::2], winners[1::2], strict=True)), byes=[])


def knockout_rounds_left(pairs: int) -> int:
    """How many knockout rounds a knockout of ``pairs`` pairs plays (ceil(log2 n)); 1 pair: 0."""
    if pairs < 1:
        raise ValueError(f"A knockout needs at least 1 pair, not {pairs}.")
    # The exact ceil(log2 n), without the float rounding of math.log2.
    return (pairs - 1).bit_length()

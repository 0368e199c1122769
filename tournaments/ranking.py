"""The standings of a club Sueca tournament: points, the five tie-breaks, shared ranks, negras.

Pure functions on plain values (no Django), so the rule is tested without a database.
"""

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

# Step names, in order; the presentation layer translates them.
HEAD_TO_HEAD_POINTS = "head_to_head_points"
HEAD_TO_HEAD_MOCAS = "head_to_head_mocas"
MOCA_DIFFERENCE = "moca_difference"
MOCAS_WON = "mocas_won"
GAME_DIFFERENCE = "game_difference"
NEGRA = "negra"
POINTS_FOR_A_WIN = 3


@dataclass(frozen=True)
class Series:
    """A decided series between pairs ``a`` and ``b``. A walkover is mocas_to_win–0, games 0–0."""

    a: Hashable
    b: Hashable
    mocas_a: int
    mocas_b: int
    games_a: int  # games of every rubber of the series, summed (0 for a walkover)
    games_b: int
    winner: Hashable  # a or b

    def __post_init__(self):
        # Refused here rather than miscounted later: a wrong series would move every figure.
        if self.a == self.b:
            raise ValueError(f"a series needs two different pairs, not {self.a!r} twice")
        if self.winner not in (self.a, self.b):
            raise ValueError(f"the winner {self.winner!r} is neither {self.a!r} nor {self.b!r}")
        if min(self.mocas_a, self.mocas_b, self.games_a, self.games_b) < 0:
            raise ValueError("mocas and games cannot be negative")


@dataclass(frozen=True)
class Standing:
    pair: Hashable
    rank: int  # 1-based, shared ranks numbered 1, 2, 2, 4
    points: int
    series_won: int
    series_lost: int
    mocas_won: int
    mocas_lost: int
    games_won: int
    games_lost: int
    # Why this pair is above the next pair in the list, when both had the same points: one of
    # the step names; None when the next pair has fewer points, when they share the rank, or
    # for the last pair.
    ahead_on: str | None


@dataclass
class _Figures:
    points: int = 0
    series_won: int = 0
    series_lost: int = 0
    mocas_won: int = 0
    mocas_lost: int = 0
    games_won: int = 0
    games_lost: int = 0


def _sides(one: Series):
    """The series from each side: (pair, opponent, mocas for, mocas against, games for,
    games against, won)."""
    yield one.a, one.b, one.mocas_a, one.mocas_b, one.games_a, one.games_b, one.winner == one.a
    yield one.b, one.a, one.mocas_b, one.mocas_a, one.games_b, one.games_a, one.winner == one.b


def _overall(pairs: Sequence[Hashable], series: Sequence[Series]) -> dict[Hashable, _Figures]:
    figures = {pair: _Figures() for pair in pairs}
    for one in series:
        for pair, _, mocas_for, mocas_against, games_for, games_against, won in _sides(one):
            line = figures[pair]
            line.points += POINTS_FOR_A_WIN if won else 0
            line.series_won += won
            line.series_lost += not won
            line.mocas_won += mocas_for
            line.mocas_lost += mocas_against
            line.games_won += games_for
            line.games_lost += games_against
    return figures


def _among(group: Sequence[Hashable], series: Sequence[Series]) -> dict[Hashable, _Figures]:
    """Figures from the series played between pairs of ``group`` only (steps 1 and 2)."""
    members = set(group)
    return _overall(group, [one for one in series if one.a in members and one.b in members])


# A step's key: for each pair of the group, a number, higher ranking higher.
_Key = Callable[
    [Sequence[Hashable], Mapping[Hashable, _Figures], Sequence[Series]], Mapping[Hashable, int]
]


def _head_to_head_points(group, overall, series):
    return {pair: line.points for pair, line in _among(group, series).items()}


def _head_to_head_mocas(group, overall, series):
    return {pair: line.mocas_won - line.mocas_lost for pair, line in _among(group, series).items()}


def _moca_difference(group, overall, series):
    return {pair: overall[pair].mocas_won - overall[pair].mocas_lost for pair in group}


def _mocas_won(group, overall, series):
    return {pair: overall[pair].mocas_won for pair in group}


def _game_difference(group, overall, series):
    return {pair: overall[pair].games_won - overall[pair].games_lost for pair in group}


_STEPS: tuple[tuple[str, _Key], ...] = (
    (HEAD_TO_HEAD_POINTS, _head_to_head_points),
    (HEAD_TO_HEAD_MOCAS, _head_to_head_mocas),
    (MOCA_DIFFERENCE, _moca_difference),
    (MOCAS_WON, _mocas_won),
    (GAME_DIFFERENCE, _game_difference),
)

# An ordering: blocks of pairs sharing a rank, best first, and between each two blocks the
# name of what put the one above the other (so one name fewer than blocks).
_Order = tuple[list[list[Hashable]], list[str | None]]


def _break_ties(
    group: list[Hashable], overall: Mapping[Hashable, _Figures], series: Sequence[Series]
) -> _Order:
    """Order pairs level on points by the five steps. The first step that tells any of them
    apart splits the group by its key, and each part of two or more pairs starts again from
    step 1 among itself alone: its head-to-head counts only the series inside that part. A
    group no step tells apart is one block (a shared rank), in the order it came in."""
    if len(group) < 2:
        return [group], []
    for name, key in _STEPS:
        keys = key(group, overall, series)
        values = sorted(set(keys.values()), reverse=True)
        if len(values) < 2:
            continue
        blocks: list[list[Hashable]] = []
        reasons: list[str | None] = []
        for value in values:
            if blocks:
                reasons.append(name)
            part_blocks, part_reasons = _break_ties(
                [pair for pair in group if keys[pair] == value], overall, series
            )
            blocks += part_blocks
            reasons += part_reasons
        return blocks, reasons
    return [group], []


def _by_negras(group: list[Hashable], negras: Sequence[tuple[Hashable, Hashable]]) -> _Order:
    """Order a still-level group by the negras played inside it, taken as a partial order:
    X is above Y when a chain of negras inside the group leads from X to Y and none leads back
    (contradictory negras cancel). The group is cut into consecutive blocks only where every
    pair above the cut is above every pair below it, so any two pairs the negras do not order
    stay sharing a rank; with one negra among three pairs, all three still share it."""
    members = set(group)
    beaten = {pair: set() for pair in group}
    for winner, loser in negras:
        if winner in members and loser in members:
            beaten[winner].add(loser)
    below = {pair: _reachable(pair, beaten) for pair in group}

    def above(x, y):
        return y in below[x] and x not in below[y]

    blocks: list[list[Hashable]] = []
    rest = list(group)
    while rest:
        # The smallest top of ``rest`` that is above all the others: a pair with k pairs above
        # it can only be in a top of more than k, so trying the sizes in turn finds it.
        for size in range(1, len(rest) + 1):
            top = [x for x in rest if sum(above(y, x) for y in rest) < size]
            others = [y for y in rest if y not in top]
            if len(top) == size and all(above(x, y) for x in top for y in others):
                break
        blocks.append(top)
        rest = others
    return blocks, [NEGRA] * (len(blocks) - 1)


def _reachable(start: Hashable, beaten: Mapping[Hashable, set]) -> set:
    seen: set = set()
    stack = list(beaten[start])
    while stack:
        pair = stack.pop()
        if pair not in seen:
            seen.add(pair)
            stack.extend(beaten[pair])
    return seen


def standings(
    pairs: Sequence, series: Iterable[Series], negras: Iterable[tuple] = ()
) -> list[Standing]:
    """Every pair in ``pairs`` (those with no series too: all zeros), ranked. ``negras``
    are (winner, loser) of the deciding rubbers recorded.

    Pairs are ranked by points, then the pairs level on points by the five steps (see
    ``_break_ties``); pairs still level share a rank, which the negras among them may settle.
    A negra between pairs that are not level after the five steps changes nothing. Within a
    shared rank the pairs keep the order of ``pairs``. A series or negra naming a pair not in
    ``pairs`` is refused (ValueError), as is a pair given twice."""
    pairs = list(pairs)
    if len(set(pairs)) != len(pairs):
        raise ValueError("a pair is given twice")
    known = set(pairs)
    series = list(series)
    negras = [tuple(negra) for negra in negras]
    for one in series:
        if one.a not in known or one.b not in known:
            raise ValueError(f"a series of {one.a!r} and {one.b!r} names an unknown pair")
    for negra in negras:
        winner, loser = negra
        if winner not in known or loser not in known or winner == loser:
            raise ValueError(f"the negra {negra!r} needs two different known pairs")

    overall = _overall(pairs, series)
    blocks: list[list[Hashable]] = []
    reasons: list[str | None] = []
    for points in sorted({line.points for line in overall.values()}, reverse=True):
        if blocks:
            reasons.append(None)  # fewer points: no tie-break to name
        level = [pair for pair in pairs if overall[pair].points == points]
        tie_blocks, tie_reasons = _break_ties(level, overall, series)
        for index, block in enumerate(tie_blocks):
            if index:
                reasons.append(tie_reasons[index - 1])
            negra_blocks, negra_reasons = _by_negras(block, negras)
            blocks += negra_blocks
            reasons += negra_reasons

    table = []
    for index, block in enumerate(blocks):
        rank = len(table) + 1
        for position, pair in enumerate(block):
            last = position == len(block) - 1
            line = overall[pair]
            table.append(
                Standing(
                    pair=pair,
                    rank=rank,
                    points=line.points,
                    series_won=line.series_won,
                    series_lost=line.series_lost,
                    mocas_won=line.mocas_won,
                    mocas_lost=line.mocas_lost,
                    games_won=line.games_won,
                    games_lost=line.games_lost,
                    ahead_on=reasons[index] if last and index < len(reasons) else None,
                )
            )
    return table


def level_groups(table: list[Standing]) -> list[list]:
    """The groups of pairs that share a rank (two or more), in rank order: what a negra may
    settle."""
    groups: list[list] = []
    for previous, line in pairwise([None, *table]):
        if previous is not None and previous.rank == line.rank:
            groups[-1].append(line.pair)
        else:
            groups.append([line.pair])
    return [group for group in groups if len(group) > 1]

"""The final places of a club tournament, and the sizes its knockout rounds are named by.

Pure functions on plain values (no Django), beside ``ranking``: the rule is tested without
a database. SPEC, Club tournaments, "Final places": in a knockout the champion is 1st,
the final's loser 2nd, the semi-finals' losers share 3rd, the quarter-finals' losers 5th,
and so on; the pairs that did not reach the knockout follow in the round robin's order.
"""

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class KnockoutRound:
    """A decided knockout round: each series as (winner, loser), and the pairs that sat it
    out (a bye takes a pair on to the next round)."""

    series: Sequence[tuple[Hashable, Hashable]]
    byes: Sequence[Hashable] = field(default_factory=tuple)

    @property
    def pairs(self) -> int:
        return 2 * len(self.series) + len(self.byes)


@dataclass(frozen=True)
class Place:
    place: int  # 1-based; pairs sharing it are numbered alike (1, 2, 3, 3, 5)
    pairs: tuple  # listed together when they share it


def round_size(pairs: int) -> int:
    """The bracket a knockout round of ``pairs`` pairs (byes included) belongs to: 2 is the
    final, 4 the semi-finals, 8 the quarter-finals; 6 pairs (two of them sitting out) play
    the quarter-finals of a bracket of 8."""
    if pairs < 2:
        raise ValueError(f"A knockout round has at least 2 pairs, not {pairs}.")
    return 1 << (pairs - 1).bit_length()


def final_places(
    round_robin: Sequence[tuple[Hashable, int]] | None,
    knockout: Sequence[KnockoutRound] = (),
    champion: Hashable | None = None,
) -> list[Place]:
    """The final places of a finished tournament, best first.

    ``round_robin`` is its standings as (pair, rank), best first (None when it had no
    round robin: a knockout alone); ``knockout`` its knockout rounds, first to last, and
    ``champion`` the final's winner, or None when the knockout did not reach it (or there
    was none). With a champion, the knockout places its pairs and the rest follow by their
    round robin's rank; without one, a round robin places as its standings, and a knockout
    alone has no final places. A champion who did not win the last round, or a pair placed
    twice, is refused (ValueError)."""
    if champion is None:
        if round_robin is None:
            return []
        return _by_rank(list(round_robin), start=1)

    if not knockout or [winner for winner, _ in knockout[-1].series] != [champion]:
        raise ValueError(f"{champion!r} did not win the final")
    if knockout[-1].byes:
        raise ValueError("nobody sits out a final")
    places = [Place(1, (champion,))]
    placed = {champion}
    for round in reversed(knockout):
        losers = tuple(loser for _, loser in round.series)
        if placed & set(losers) or len(set(losers)) != len(losers):
            raise ValueError(f"a pair of {losers!r} is placed twice")
        # The losers of a round share the place after all who went further.
        if losers:
            places.append(Place(len(placed) + 1, losers))
            placed.update(losers)
    rest = [(pair, rank) for pair, rank in round_robin or () if pair not in placed]
    return places + _by_rank(rest, start=len(placed) + 1)


def _by_rank(ranked: list[tuple[Hashable, int]], start: int) -> list[Place]:
    """``ranked`` placed from ``start`` on, pairs level on rank sharing a place."""
    places: list[Place] = []
    for index, (pair, rank) in enumerate(ranked):
        if index and rank == ranked[index - 1][1]:
            places[-1] = Place(places[-1].place, (*places[-1].pairs, pair))
        else:
            places.append(Place(start + index, (pair,)))
    return places

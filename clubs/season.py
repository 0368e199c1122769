"""A season's table: pure functions on plain values (no Django), tested without a database.

SPEC, Clubs, "Season": both players of a pair get the points of the pair's final place
(0 past the table) plus the point for taking part; pairs that share a place each get that
place's points. The table ranks players by points, then tournaments won, then best
place, then rubbers won; still level, they share the rank (1, 2, 2, 4).
"""

import datetime
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Finished:
    """A tournament that counts: its final places (best first) as (place, pair ids), and
    each pair's two players."""

    places: Sequence[tuple[int, Sequence[Hashable]]]
    players: Mapping[Hashable, tuple[Hashable, Hashable]]


@dataclass
class Line:
    player: Hashable
    points: int = 0
    tournaments: int = 0
    won: int = 0  # tournaments won (1st place)
    best: int | None = None  # best final place
    rubbers_won: int = 0
    rank: int = 0

    def key(self) -> tuple:
        best = self.best if self.best is not None else float("inf")
        return (-self.points, -self.won, best, -self.rubbers_won)


def shown(seasons: Sequence, today: datetime.date):
    """The season a club's page and its TV show (anything with a ``start`` and an
    ``end``): the one today falls in; between seasons the last one that began, whose
    table is final; before the first, the first to begin. None without a season."""
    begun = [season for season in seasons if season.start <= today]
    covering = [season for season in begun if today <= season.end]
    if begun:
        return max(covering or begun, key=lambda season: season.start)
    return min(seasons, key=lambda season: season.start, default=None)


def points_for(place: int, points: Sequence[int]) -> int:
    return points[place - 1] if 1 <= place <= len(points) else 0


def table(
    tournaments: Sequence[Finished],
    points: Sequence[int],
    taking_part: int,
    rubbers_won: Mapping[Hashable, int] | None = None,
) -> list[Line]:
    """Every player of the season's tournaments, best first, ranked (SPEC)."""
    rubbers_won = rubbers_won or {}
    lines: dict[Hashable, Line] = {}
    for tournament in tournaments:
        for place, pairs in tournament.places:
            for pair in pairs:
                for player in dict.fromkeys(tournament.players[pair]):
                    line = lines.setdefault(player, Line(player))
                    line.points += points_for(place, points) + taking_part
                    line.tournaments += 1
                    line.won += place == 1
                    line.best = place if line.best is None else min(line.best, place)
    for player, line in lines.items():
        line.rubbers_won = rubbers_won.get(player, 0)
    ordered = sorted(lines.values(), key=Line.key)
    for index, line in enumerate(ordered):
        level = index and ordered[index - 1].key() == line.key()
        line.rank = ordered[index - 1].rank if level else index + 1
    return ordered

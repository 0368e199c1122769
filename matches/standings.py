"""The looking-back numbers: a night's tally and the standings across nights.

Both are read from the results stored on each match (games, winner, marks), so
their queries stay flat however many rubbers there are.
"""

from dataclasses import dataclass, field

from django.db import models
from django.db.models import Case, Count, F, FilteredRelation, Min, Q, Sum, Value, When
from django.db.models.functions import Cast, Concat, Greatest, Least

from . import values
from .models import Match, Seat, seat_side


def pair_name(players) -> str:
    """A pair by its two players' names in seat order (x1 & x2), as the sheet names a
    side: one rule for a rubber, the night's tally and the standings. A pair that sat
    both ways goes by the way it sat in its first rubber."""
    return " & ".join(players)


# A night's tally ------------------------------------------------------------------


@dataclass
class Standing:
    """One line of a night's tally."""

    name: str
    rubbers: int = 0
    won: int = 0
    games: int = 0
    bandeiras: int = 0
    shutouts: int = 0
    chapeus: int = 0
    ended_early: int = 0

    def count(self, match, side):
        self.rubbers += 1
        self.games += match.games_a if side == "a" else match.games_b
        if match.winner == side:
            self.won += 1
            self.bandeiras += "bandeira" in match.marks
            self.shutouts += "shutout" in match.marks
            self.chapeus += "chapeu" in match.marks
        if match.status == Match.ENDED:
            self.ended_early += 1


@dataclass
class PlayerStanding(Standing):
    user: int | None = None


@dataclass
class PairStanding(Standing):
    players: list = field(default_factory=list)


def tally(rubbers) -> dict:
    """Per pair and per player of these rubbers (a night's, with their seats):
    rubbers, rubbers won, games, bandeiras, shutouts, chapéus and rubbers ended early.

    A player is their account where they sat with one, else the seat's name; a
    pair is its two players, whichever side they sat on.
    """
    players, pairs = {}, {}
    for match in rubbers:
        seats = match.seat_list()
        for side in values.SIDES:
            keys = []
            for seat in (seat for seat in seats if seat.side == side):
                key = ("user", seat.user_id) if seat.user_id else ("name", seat.name)
                if key not in players:
                    players[key] = PlayerStanding(name=seat.name, user=seat.user_id)
                players[key].count(match, side)
                keys.append(key)
            pair = frozenset(keys)
            if pair not in pairs:
                names = [players[key].name for key in keys]
                pairs[pair] = PairStanding(name=pair_name(names), players=names)
            pairs[pair].count(match, side)

    def order(standing):
        return (-standing.won, -standing.games, standing.name)

    return {
        "pairs": sorted(pairs.values(), key=order),
        "players": sorted(players.values(), key=order),
    }


# Standings across nights ------------------------------------------------------------

# Joins a pair's two player keys; seat names never hold a newline.
PAIR_JOIN = "\n"


def player_key(seat):
    """The player in ``seat`` (a relation's name) in SQL: "u<id>" for an account,
    "n<name>" for a seat without one."""
    return Case(
        When(
            **{f"{seat}__user__isnull": False},
            then=Concat(Value("u"), Cast(f"{seat}__user_id", models.CharField())),
        ),
        default=Concat(Value("n"), f"{seat}__name"),
        output_field=models.CharField(),
    )


def seat_at(position):
    # A join per seat rather than a subquery: PostgreSQL's planner then sees a cheap
    # plan (a subquery repeated in every expression looked dear enough to start JIT).
    return FilteredRelation("seats", condition=Q(seats__position=position))


@dataclass
class PlayerRecord:
    """One player's line in the standings."""

    name: str
    user: int | None
    rubbers: int
    won: int
    finished: int
    ended_early: int
    games: int

    @property
    def rate(self):
        """Rubbers won out of those finished, 0.0 to 1.0."""
        return self.won / self.finished if self.finished else 0.0


@dataclass
class Meeting:
    """Two pairs' head-to-head: rubbers they played against each other and who won."""

    pairs: tuple
    rubbers: int
    won: tuple
    ended_early: int


@dataclass
class Standings:
    players: list
    head_to_head: list


def standings(rubbers) -> Standings:
    """Per player and pair against pair, over these rubbers, both aggregated in SQL
    over the results stored on each match: three queries however many rubbers."""
    rubbers = rubbers.order_by().values("pk")
    players = _players(rubbers)
    names = {
        f"u{player.user}" if player.user else f"n{player.name}": player.name for player in players
    }
    return Standings(players=players, head_to_head=_meetings(rubbers, names))


def _players(rubbers) -> list[PlayerRecord]:
    """A player is their account where they sat with one, else the seat's name. The
    win rate counts rubbers won out of those finished (won by either side): a rubber
    ended early or still in play has no loser."""
    seats = (
        Seat.objects.filter(match__in=rubbers)
        .annotate(side=seat_side(), anonymous=Case(When(user__isnull=True, then="name")))
        .values("user", "anonymous", "user__display_name", "user__username")
        .annotate(
            rubbers=Count("pk"),
            won=Count("pk", filter=Q(match__winner=F("side"))),
            finished=Count("pk", filter=Q(match__status=Match.WON)),
            ended_early=Count("pk", filter=Q(match__status=Match.ENDED)),
            games=Sum(Case(When(side="a", then="match__games_a"), default="match__games_b")),
        )
    )
    players = [
        PlayerRecord(
            name=row["anonymous"] or row["user__display_name"] or row["user__username"],
            user=row["user"],
            rubbers=row["rubbers"],
            won=row["won"],
            finished=row["finished"],
            ended_early=row["ended_early"],
            games=row["games"] or 0,
        )
        for row in seats
    ]
    players.sort(key=lambda p: (-p.won, -p.rate, -p.rubbers, p.name.casefold()))
    return players


def _meetings(rubbers, names) -> list[Meeting]:
    """Pair against pair: each pair is its two players' keys, in either order, so the
    rubbers of two pairs group together whichever side each sat on. A pair goes by
    the seat order it sat in the first rubber of the two pairs' (``pair_name``)."""

    def pair(first, second):
        return Concat(Least(first, second), Value(PAIR_JOIN), Greatest(first, second))

    rows = list(
        Match.objects.filter(pk__in=rubbers)
        .annotate(**{f"seat_{position}": seat_at(position) for position in values.SEATS})
        .annotate(**{position: player_key(f"seat_{position}") for position in values.SEATS})
        .annotate(pair_a=pair("a1", "a2"), pair_b=pair("b1", "b2"))
        .annotate(one=Least("pair_a", "pair_b"), two=Greatest("pair_a", "pair_b"))
        .values("one", "two")
        .annotate(
            rubbers=Count("pk"),
            one_won=Count(
                "pk", filter=Q(winner="a", pair_a=F("one")) | Q(winner="b", pair_b=F("one"))
            ),
            two_won=Count(
                "pk", filter=Q(winner="a", pair_a=F("two")) | Q(winner="b", pair_b=F("two"))
            ),
            ended_early=Count("pk", filter=Q(status=Match.ENDED)),
            first=Min("pk"),
        )
        .order_by()
    )
    seated = _seatings([row["first"] for row in rows])

    def named(key, first):
        players = key.split(PAIR_JOIN)
        in_order = next(pair for pair in seated[first] if sorted(pair) == sorted(players))
        return pair_name(names.get(player, player[1:]) for player in in_order)

    head_to_head = []
    for row in rows:
        # The two pairs in alphabetical order of their names.
        sides = sorted(
            [
                (named(row["one"], row["first"]), row["one_won"]),
                (named(row["two"], row["first"]), row["two_won"]),
            ],
            key=lambda side: side[0].casefold(),
        )
        head_to_head.append(
            Meeting(
                pairs=(sides[0][0], sides[1][0]),
                rubbers=row["rubbers"],
                won=(sides[0][1], sides[1][1]),
                ended_early=row["ended_early"],
            )
        )
    head_to_head.sort(key=lambda m: (-m.rubbers, m.pairs))
    return head_to_head


def _seatings(rubbers) -> dict[int, list[list[str]]]:
    """Each rubber's two pairs as player keys in seat order (x1, x2): one query."""
    seatings = {rubber: [[], []] for rubber in rubbers}
    seats = Seat.objects.filter(match__in=rubbers).order_by("match", "position")
    for seat in seats.values("match", "position", "user", "name"):
        key = f"u{seat['user']}" if seat["user"] else f"n{seat['name']}"
        seatings[seat["match"]][seat["position"][0] == "b"].append(key)
    return seatings

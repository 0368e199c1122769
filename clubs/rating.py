"""The club's ratings as stored, derived from its rubbers and never set by hand.

Ratings follow the rubbers in the order they were first won (``ClubRubber.won_at``).
When a rubber's result changes (it is won; a correction or an undo changes who won an
old one; two players are merged), ``rerate`` takes each player back to where they stood
before that rubber and rates it and every later one again, in the change's transaction,
so the ratings are always what the rubbers give from the start. A rubber won last (the
usual case) re-rates that one rubber alone.
"""

import gc
from contextlib import contextmanager

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from matches.models import Match, Seat

from . import ratings
from .models import Club, ClubRubber, Player


def rated(match_status, winner, walkover, players) -> bool:
    """Whether a club rubber rates its players (SPEC): won by a side (not ended early,
    not a walkover), between four different players."""
    return (
        match_status == Match.WON
        and winner in ("a", "b")
        and not walkover
        and len(set(players)) == 4
    )


@contextmanager
def _collector_paused():
    """Python's collector held off while a pass runs: re-rating thousands of rubbers makes
    hundreds of thousands of small lists that hold no cycle, and the collector, woken every
    700 of them, would walk them all again and again (a quarter of a 20,000-rubber
    correction, docs/decisions/0010-club-ratings-stored.md). It runs again as it was after."""
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


def rerate(club_id, since: ClubRubber | None = None) -> None:
    """The ratings of club ``club_id`` again from rubber ``since`` (None: from the first),
    with the club's row locked: one re-rating at a time."""
    with transaction.atomic(), _collector_paused():
        # With its forecasts, which every other read of a club leaves aside.
        club = Club.objects.select_for_update().defer(None).get(pk=club_id)
        rated_rubbers = ClubRubber.objects.filter(club=club, won_at__isnull=False)
        rubbers = rated_rubbers
        if since is not None:
            if since.won_at is None:
                return
            rubbers = rubbers.filter(
                Q(won_at__gt=since.won_at) | Q(won_at=since.won_at, match_id__gte=since.match_id)
            )
        order = list(rubbers.order_by("won_at", "match_id").values_list("match_id", flat=True))
        # Their rows are read by a subquery: a list of thousands of ids costs more to send.
        again, seated = _rated_rubbers(order, rubbers.values("match_id"))
        keys = set(order)
        players = Player.objects.filter(club=club).select_for_update()
        # From the first rubber (a merge, a correction of the oldest), nothing before it
        # stands: the points, the biggest thing a club stores, need not be read. From a
        # later one, only the players of the rubbers rated again may change: theirs are.
        from_the_start = since is None or len(order) == rated_rubbers.count()
        if from_the_start:
            players = list(players.defer("points"))
        else:
            players = list(players.filter(pk__in=seated))
        start, kept = {}, {}
        for player in players:
            if from_the_start:
                kept[player.pk] = []
                start[player.pk] = ratings.new_skill()
                continue
            # The rubbers before ``since`` stand: each player as they were after them.
            cut = next((i for i, point in enumerate(player.points) if point[0] in keys), None)
            kept[player.pk] = player.points if cut is None else player.points[:cut]
            start[player.pk] = _standing(kept[player.pk])
        result = ratings.rate(again, start)
        winning = {rubber.key: set(getattr(rubber, rubber.winner)) for rubber in again}
        changed = []
        for player in players:
            points = kept[player.pk]
            new = result.points.get(player.pk, [])
            if not new and not from_the_start and len(points) == len(player.points):
                continue
            player.points = points + [
                [point.key, point.mu, point.sigma, int(player.pk in winning[point.key])]
                for point in new
            ]
            skill = _standing(player.points)
            player.mu, player.sigma, player.rubbers, player.won = (
                skill.mu,
                skill.sigma,
                skill.rubbers,
                skill.won,
            )
            changed.append(player)
        Player.objects.bulk_update(
            changed, ["points", "mu", "sigma", "rubbers", "won"], batch_size=500
        )
        forecasts = [entry for entry in club.forecasts if entry[0] not in keys]
        forecasts += [
            [rubber.key, chance, won]
            for rubber, (chance, won) in zip(again, result.raw, strict=True)
        ]
        club.forecasts = forecasts
        club.calibration = ratings.fit_calibration(
            [(chance, won) for _key, chance, won in forecasts]
        )
        club.save(update_fields=["forecasts", "calibration"])
        club.changed()


def _standing(points) -> ratings.Skill:
    if not points:
        return ratings.new_skill()
    last = points[-1]
    return ratings.Skill(last[1], last[2], len(points), sum(point[3] for point in points))


def _rated_rubbers(order, matches) -> tuple[list[ratings.Rubber], set[int]]:
    """Rubbers ``order`` (match ids, in the ratings' order; ``matches`` the same as a
    subquery) that rate their players, and every player seated in any of them."""
    rows = {
        pk: (status, winner, walkover)
        for pk, status, winner, walkover in Match.objects.filter(pk__in=matches).values_list(
            "pk", "status", "winner", "walkover"
        )
    }
    seats: dict[int, dict[str, int]] = {}
    seated = set()
    for match_id, position, player_id in Seat.objects.filter(match__in=matches).values_list(
        "match_id", "position", "player_id"
    ):
        seats.setdefault(match_id, {})[position] = player_id
        seated.add(player_id)
    rubbers = []
    for key in order:
        (status, winner, walkover), at = rows[key], seats.get(key, {})
        players = [at.get(position) for position in ("a1", "a2", "b1", "b2")]
        if None not in players and rated(status, winner, walkover, players):
            rubbers.append(ratings.Rubber(key, tuple(players[:2]), tuple(players[2:]), winner))
    return rubbers, seated


def won_now(rubber: ClubRubber) -> None:
    """A club rubber's result changed: its place in the order is when it was first won."""
    if rubber.won_at is None and rubber.match.status == Match.WON:
        rubber.won_at = timezone.now()
        rubber.save(update_fields=["won_at"])
    rerate(rubber.club_id, rubber)

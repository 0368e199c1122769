"""What a club does when one of its rubbers starts or its result changes, and when two
entries of a player become one."""

from django.dispatch import receiver

from matches.signals import result_changed, rubber_started, topic_changed
from tournaments.models import Pair, Tournament
from tournaments.models.tournament import TOPIC as TOURNAMENT

from . import board, rating, ratings
from .models import Club, ClubRubber, Player, TournamentResult
from .signals import players_merged


@receiver(rubber_started, dispatch_uid="clubs.forecast")
def forecast(sender, match, seats, **kwargs):
    """A rubber whose four seats are a club's players is the club's: its forecast is
    kept as it starts (no query for any other rubber)."""
    ids = [seat.player_id for seat in sorted(seats, key=lambda seat: seat.position)]
    if None in ids:
        return
    found = Player.objects.filter(pk__in=ids).select_related("club")
    players = {player.pk: player for player in found.defer("points", "club__forecasts")}
    clubs = {player.club_id for player in players.values()}
    if len(players) != 4 or len(clubs) != 1:
        return
    club = next(iter(players.values())).club
    a, b = ([players[pk].skill for pk in side] for side in (ids[:2], ids[2:]))
    ClubRubber.objects.create(
        match=match, club=club, forecast=ratings.chance(a, b, club.calibration)
    )


@receiver(result_changed, dispatch_uid="clubs.rerate")
def rerate(sender, match, **kwargs):
    """A club rubber was won, or who won it changed: the ratings follow, in the same
    transaction."""
    rubber = ClubRubber.objects.filter(match=match).first()
    if rubber is not None:
        rubber.match = match
        rating.won_now(rubber)


@receiver(players_merged, dispatch_uid="clubs.rerate_merged")
def rerate_merged(sender, club, **kwargs):
    """Two entries of a player became one: every rubber of the club is rated again, from
    the first, in the merge's transaction."""
    rating.rerate(club.pk)


@receiver(topic_changed, dispatch_uid="clubs.tournament_result")
def tournament_changed(sender, topic, **kwargs):
    """A club tournament changed: how it stands is kept for the seasons and the records
    (its club's screens told when that changes). One query for any other tournament."""
    if topic[0] != TOURNAMENT:
        return
    club = (
        Pair.objects.filter(tournament=topic[1], first_player__isnull=False)
        .values_list("first_player__club", flat=True)
        .first()
    )
    if club is None:
        return
    kept = TournamentResult.objects.filter(tournament=topic[1]).first()
    was = (kept.finished, kept.day, kept.places) if kept else None
    now = board.keep_result(Tournament.objects.get(pk=topic[1]), club)
    if (now.finished, now.day, now.places) != was:
        Club.objects.get(pk=club).changed()

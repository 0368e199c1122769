"""The club endpoints of API.md ("Clubs"): the club and its roster, linking accounts and
adding organisers, the ratings and forecasts, a player's record, the seasons; the
board's read-only view by its watch link, and the live streams of both.

Thin views: a body read by a serializer of ``serializers``, one of the club's own
methods (which check every rule and refuse in the pages' words), and a reading of
``board`` as the answer.
"""

from django.db import transaction
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.decorators import api_view
from rest_framework.response import Response

from matches import limits, links, values
from matches.api.base import answers, anyone, endpoint, errors, row_id, too_many, valid
from matches.api.events import reader, stream, streams
from matches.api.readings import ForecastSerializer
from matches.models import NotFound, nothing_here

from . import board as boards
from . import ratings
from .models import Club, Player, club_link_gone, no_such_player, player_link_gone, topic
from .roster import four_players
from .serializers import (
    ClubCreateSerializer,
    ClubSerializer,
    LinkedPlayerSerializer,
    MergeSerializer,
    OrganiserSerializer,
    PlayerLinkSerializer,
    PlayerNameSerializer,
    PlayerRecordSerializer,
    PlayerSerializer,
    RatingsSerializer,
    SeasonCreateSerializer,
    SeasonSerializer,
)

TAG = "clubs"


def readable(request, id) -> Club:
    """Club ``id``, for its organisers and its players' accounts; the same 404 for
    anyone else as for a club that is not there."""
    club = Club.objects.readable_by(request.user).filter(pk=row_id(id)).first()
    if club is None:
        raise NotFound(nothing_here())
    return club


def player_of(club, player_id) -> Player:
    player = club.players.filter(pk=row_id(player_id, no_such_player())).first()
    if player is None:
        raise NotFound(no_such_player())
    return player


def answer(request, club, status_code=status.HTTP_200_OK, *, watching=False):
    """The club as JSON, with its event stream; its watch token for organisers."""
    if watching:
        events = reverse("api-club-watch-events", args=[club.watch_token])
    else:
        events = reverse("api-club-events", args=[club.pk])
    context = {
        "organiser": not watching and club.is_organiser(request.user),
        "events": links.absolute(request, events),
    }
    return Response(ClubSerializer(boards.read(club), context=context).data, status=status_code)


@answers(201, ClubSerializer, 400, 401)
@endpoint("POST", "start_club", "Open a club", TAG, request=ClubCreateSerializer)
def clubs(request):
    """The caller organises it; its roster starts empty."""
    club = Club.objects.open(request.user, valid(ClubCreateSerializer, request)["name"])
    return answer(request, club, status.HTTP_201_CREATED)


@answers(200, ClubSerializer, 401, 404)
@endpoint("GET", "get_club", "A club", TAG)
def club_detail(request, id):
    """Its organisers, roster and seasons, for its organisers and its players' accounts
    (the watch token for organisers only)."""
    return answer(request, readable(request, id))


@limits.guarded(too_many)
@answers(200, ClubSerializer, 404)
@endpoint("GET", "watch_club", "A club by its watch link", TAG)
@anyone()
def watch(request, watch_token):
    """No sign-in: the board's watch token is enough. Never shows the token."""
    club = Club.objects.filter(watch_token=watch_token).first()
    if club is None:
        raise NotFound(club_link_gone())
    return answer(request, club, watching=True)


# The roster -----------------------------------------------------------------------------


@answers(201, PlayerSerializer, 400, 401, 403, 404, 409)
@endpoint("POST", "add_club_player", "Add a player", TAG, request=PlayerNameSerializer)
def players(request, id):
    """Organisers. A name the roster has already, whatever its case, is a 409."""
    club = readable(request, id)
    player = club.add_player(request.user, valid(PlayerNameSerializer, request)["name"])
    return Response(PlayerSerializer(player).data, status=status.HTTP_201_CREATED)


@extend_schema(
    methods=["GET"],
    operation_id="get_club_player",
    summary="A player's record",
    description="The rating after each rated rubber, partners and opponents, bandeiras "
    "and shutouts won, tournaments and places.",
    responses={200: PlayerRecordSerializer, **errors(401, 404)},
    tags=[TAG],
)
@extend_schema(
    methods=["PATCH"],
    operation_id="rename_club_player",
    summary="Rename a player",
    description="Organisers. Rubbers and tournaments keep the names they were played under.",
    request=PlayerNameSerializer,
    responses={200: PlayerSerializer, **errors(400, 401, 403, 404, 409)},
    tags=[TAG],
)
@api_view(["GET", "PATCH"])
def player_detail(request, id, player_id):
    club = readable(request, id)
    if request.method == "PATCH":
        with transaction.atomic():
            name = valid(PlayerNameSerializer, request)["name"]
            player = club.rename_player(request.user, row_id(player_id, no_such_player()), name)
        return Response(PlayerSerializer(player).data)
    record = boards.record(club, player_of(club, player_id))
    return Response(PlayerRecordSerializer(record).data)


@answers(200, PlayerSerializer, 400, 401, 403, 404, 409)
@endpoint("POST", "merge_club_players", "Merge two entries", TAG, request=MergeSerializer)
def merge(request, id, player_id):
    """Organisers: two entries of one person become ``into``; every rubber and pair of
    this one is theirs, and the ratings are derived again from the club's first rubber."""
    club = readable(request, id)
    into = club.merge_players(
        request.user, row_id(player_id, no_such_player()), valid(MergeSerializer, request)["into"]
    )
    return Response(PlayerSerializer(into).data)


@answers(200, PlayerLinkSerializer, 401, 403, 404)
@endpoint("POST", "hand_club_player_link", "A player's link", TAG)
def player_link(request, id, player_id):
    """Organisers: a fresh link for the player to link their account (the one handed
    out before stops working). The player opens it signed in, or sends its token to
    ``POST /api/clubs/players/link/{token}/``."""
    club = readable(request, id)
    player = club.hand_link(request.user, row_id(player_id, no_such_player()))
    link = links.absolute(request, reverse("club_player_link", args=[player.link_token]))
    return Response(
        PlayerLinkSerializer({"pk": player.pk, "link_token": player.link_token, "link": link}).data
    )


@extend_schema(
    methods=["GET"],
    operation_id="get_club_player_link",
    summary="Whose link this is",
    description="The player a link an organiser handed out is for, and their club: what "
    "to ask before linking.",
    responses={200: LinkedPlayerSerializer, **errors(401, 404)},
    tags=[TAG],
)
@extend_schema(
    methods=["POST"],
    operation_id="link_club_player",
    summary="Link my account to a player",
    description="The caller's account becomes the player's, by the link an organiser "
    "handed out; the link is spent.",
    request=None,
    responses={200: PlayerSerializer, **errors(401, 404, 409)},
    tags=[TAG],
)
@api_view(["GET", "POST"])
def link(request, token):
    if request.method == "POST":
        with transaction.atomic():
            return Response(PlayerSerializer(Club.link_account(request.user, token)).data)
    player = Player.objects.filter(link_token=token).exclude(link_token="").first()
    if player is None:
        raise NotFound(player_link_gone())
    return Response(LinkedPlayerSerializer(player).data)


@answers(200, ClubSerializer, 400, 401, 403, 404, 409)
@endpoint("POST", "add_club_organiser", "Add an organiser", TAG, request=OrganiserSerializer)
def organisers(request, id):
    """Organisers: the account linked to ``player`` organises the club too (409 while
    the player has no account linked)."""
    club = readable(request, id)
    club.add_organiser(request.user, valid(OrganiserSerializer, request)["player"])
    return answer(request, club)


@answers(200, ClubSerializer, 401, 403, 404, 409)
@endpoint("DELETE", "remove_club_organiser", "Remove an organiser", TAG)
def organiser_detail(request, id, user_id):
    """Organisers; a club keeps at least one (409)."""
    club = readable(request, id)
    club.remove_organiser(request.user, row_id(user_id))
    return answer(request, club)


# Ratings and forecasts ------------------------------------------------------------------


@answers(200, RatingsSerializer, 401, 404)
@endpoint("GET", "get_club_ratings", "The leaderboard", TAG)
def club_ratings(request, id):
    """Every player of the roster, best first by the conservative rating (skill less
    a multiple of its uncertainty); those with no rated rubber last."""
    club = readable(request, id)
    return Response(RatingsSerializer({"players": boards.leaderboard(club)}).data)


SIDE_PARAMETERS = [
    OpenApiParameter(side, str, description=f"Side {side}'s two players: ids, comma-separated.")
    for side in ("a", "b")
]


@answers(200, ForecastSerializer, 400, 401, 404)
@endpoint("GET", "get_club_forecast", "A forecast", TAG, parameters=SIDE_PARAMETERS)
def forecast(request, id):
    """The chance each side would have to win a rubber, from the four players' ratings,
    calibrated on the club's own rubbers; it sums to 1."""
    club = readable(request, id)
    sides = {side: str(request.query_params.get(side, "")).split(",") for side in ("a", "b")}
    ids = [part.strip() for side in sides.values() for part in side]
    if len(ids) != 4 or not all(
        part.isascii() and part.isdigit() and len(part) < 19 for part in ids
    ):
        raise values.InvalidInput(four_players())
    found = {player.pk: player for player in club.players.defer("points").filter(pk__in=ids)}
    if len(set(ids)) != 4 or len(found) != 4:
        raise values.InvalidInput(four_players())
    skills = [found[int(pk)].skill for pk in ids]
    chance = ratings.chance(skills[:2], skills[2:], club.calibration)
    return Response(ForecastSerializer({"a": chance, "b": 1 - chance}).data)


# Seasons --------------------------------------------------------------------------------


@answers(201, SeasonSerializer, 400, 401, 403, 404)
@endpoint("POST", "start_club_season", "Create a season", TAG, request=SeasonCreateSerializer)
def seasons(request, id):
    """Organisers. ``points`` (by final place, from 1st) and ``taking_part`` may be left
    out for the defaults: 10, 8, 6, 5, 4, 3, 2, 1 and 1."""
    club = readable(request, id)
    season = club.add_season(request.user, **valid(SeasonCreateSerializer, request))
    return Response(
        SeasonSerializer(boards.season_table(club, season)).data, status=status.HTTP_201_CREATED
    )


@answers(200, SeasonSerializer, 401, 404)
@endpoint("GET", "get_club_season", "A season's table", TAG)
def season_detail(request, id, season_id):
    """Every tournament of the club finished within its days counts (not a knockout
    ended without its champion); the players ranked by points, tournaments won, best
    place, then rubbers won."""
    club = readable(request, id)
    season = club.seasons.filter(pk=row_id(season_id)).first()
    if season is None:
        raise NotFound(_("There is no such season of this club."))
    return Response(SeasonSerializer(boards.season_table(club, season)).data)


# Live -----------------------------------------------------------------------------------


def _stream(request, club, still_readable):
    def now():
        if not still_readable():
            return None
        version = Club.objects.filter(pk=club.pk).values_list("version", flat=True).first()
        return None if version is None else {"version": version}

    return stream(request, topic(club.pk), now)


@streams("club_events", "A club's live changes")
def club_events(request, id):
    """Every change to the club's roster, ratings or seasons, with the club's version."""
    club = readable(request, id)
    user = reader(request)
    return _stream(
        request, club, lambda: Club.objects.readable_by(user).filter(pk=club.pk).exists()
    )


@limits.guarded(too_many)
@streams("club_watch_events", "A club's live changes, by its watch link", refusals=(400, 404))
@anyone()
def watch_events(request, watch_token):
    """The board's stream: no sign-in, the watch token is enough."""
    club = Club.objects.filter(watch_token=watch_token).first()
    if club is None:
        raise NotFound(club_link_gone())
    return _stream(request, club, lambda: True)

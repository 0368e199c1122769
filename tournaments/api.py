"""The tournament endpoints of API.md ("Tournaments"): open one, read it, draw its
rounds, record walkovers and negras, end it; the projector's read-only view and the
tables' links; and the live streams of both.

Thin views: a body read by a serializer of ``serializers``, one of the tournament's
own methods (which check every rule and refuse in the pages' words), and the board
(``board.read``) as the answer.
"""

from django.db import transaction
from django.urls import reverse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.decorators import api_view
from rest_framework.response import Response

from matches import conditional, limits, links, live
from matches.api.base import (
    IF_NONE_MATCH,
    VARY,
    answers,
    anyone,
    endpoint,
    errors,
    row_id,
    too_many,
    valid,
)
from matches.api.events import reader, stream, streams
from matches.models import Match, NotFound, nothing_here

from . import board as boards
from .models import Table, Tournament, topic, tournament_link_gone
from .serializers import (
    NegraSerializer,
    NegraStartedSerializer,
    PairsSerializer,
    RoundRefusedSerializer,
    TableSerializer,
    TournamentCreateSerializer,
    TournamentSerializer,
    WalkoverSerializer,
)

TAG = "tournaments"


def organised(request, id) -> Tournament:
    """Tournament ``id``, for its organiser; the same 404 for anyone else."""
    tournament = Tournament.objects.organised_by(request.user).filter(pk=row_id(id)).first()
    if tournament is None:
        raise NotFound(nothing_here())
    return tournament


def answer(request, tournament, status_code=status.HTTP_200_OK, *, watching=False):
    """The board of ``tournament`` as JSON, with its ETag and its event stream."""
    read = boards.read(tournament)
    if watching:
        events = reverse("api-tournament-watch-events", args=[tournament.watch_token])
    else:
        events = reverse("api-tournament-events", args=[tournament.pk])
    context = {
        "request": request,
        "organiser": not watching,
        "events": links.absolute(request, events),
    }
    response = Response(TournamentSerializer(read, context=context).data, status=status_code)
    return conditional.validators(response, etag(read.version, watching), vary=VARY)


def etag(version, watching):
    return conditional.etag(version, "watch" if watching else conditional.HOST)


@answers(201, TournamentSerializer, 400, 401)
@endpoint("POST", "start_tournament", "Open a tournament", TAG, request=TournamentCreateSerializer)
def tournaments(request):
    """The caller is its organiser, and hosts every rubber of it. It is registering
    until its first round is drawn."""
    data = valid(TournamentCreateSerializer, request)
    tournament = Tournament.objects.open(request.user, **data)
    return answer(request, tournament, status.HTTP_201_CREATED)


@answers(200, TournamentSerializer, 401, 404, not_modified=True)
@endpoint("GET", "get_tournament", "A tournament", TAG, parameters=[IF_NONE_MATCH])
def tournament_detail(request, id):
    """Everything about it, for its organiser: pairs, rounds and series, standings,
    the champion, the watch token and each table's link."""
    tournament = organised(request, id)
    unchanged = conditional.not_modified(
        request, etag(boards.version(tournament.pk), False), vary=VARY
    )
    return unchanged or answer(request, tournament)


@answers(200, TournamentSerializer, 400, 401, 404, 409)
@endpoint("PUT", "set_tournament_pairs", "Change the pairs", TAG, request=PairsSerializer)
def pairs(request, id):
    """Until the first round is drawn (then 409)."""
    tournament = organised(request, id)
    tournament.set_pairs(request.user, valid(PairsSerializer, request)["pairs"])
    return answer(request, tournament)


@extend_schema(
    responses={
        201: TournamentSerializer,
        **errors(401, 404),
        409: OpenApiResponse(
            RoundRefusedSerializer,
            description="A round is unfinished or a table still playing (``in_the_way`` "
            "names them), or no round is left.",
        ),
    }
)
@endpoint("POST", "start_round", "Draw the next round", TAG)
def rounds(request, id):
    """Drawn, its series put on the tables (the rest wait for a free one), the first
    rubber of each series on a table started. 409 while a round is unfinished or a table
    still playing (the refusal names each, with its rubber), or when no round is left."""
    tournament = organised(request, id)
    tournament.start_round(request.user)
    return answer(request, tournament, status.HTTP_201_CREATED)


@extend_schema(
    methods=["POST"],
    operation_id="record_walkover",
    summary="Record a walkover",
    description="The series is won by ``winner``, mocas_to_win to nil; a rubber in play "
    "for it is ended as a walkover. 409 once a rubber of it has been won.",
    tags=[TAG],
    request=WalkoverSerializer,
    responses={200: TournamentSerializer, **errors(400, 401, 404, 409)},
)
@extend_schema(
    methods=["DELETE"],
    operation_id="undo_walkover",
    summary="Take back a walkover",
    description="The series is to be played again: the rubber the walkover ended is back "
    "in play at its table (a series that had none waits for a free table). 409 once the "
    "table has moved on: another rubber started there, the next round or a negra.",
    tags=[TAG],
    request=None,
    responses={200: TournamentSerializer, **errors(401, 404, 409)},
)
@api_view(["POST", "DELETE"])
@transaction.atomic
def walkover(request, id, series_id):
    tournament = organised(request, id)
    if request.method == "DELETE":
        tournament.undo_walkover(request.user, row_id(series_id))
    else:
        data = valid(WalkoverSerializer, request)
        tournament.walkover(request.user, row_id(series_id), data["winner"])
    return answer(request, tournament)


@answers(201, NegraStartedSerializer, 400, 401, 404, 409)
@endpoint("POST", "start_negra", "Play a negra", TAG, request=NegraSerializer)
def negra(request, id):
    """A deciding rubber between two pairs that share a rank, once the round robin's
    rounds are finished, on the first free table: its winner goes ahead."""
    tournament = organised(request, id)
    match = tournament.play_negra(request.user, valid(NegraSerializer, request)["pairs"])
    return Response({"match": match.pk}, status=status.HTTP_201_CREATED)


@answers(200, TournamentSerializer, 401, 404)
@endpoint("POST", "end_tournament", "End the tournament", TAG)
def end(request, id):
    """No round is drawn after this; it is finished."""
    tournament = organised(request, id)
    tournament.end(request.user)
    return answer(request, tournament)


@limits.guarded(too_many)
@answers(200, TournamentSerializer, 404, not_modified=True)
@endpoint("GET", "watch_tournament", "Follow a tournament", TAG, parameters=[IF_NONE_MATCH])
@anyone()
def watch(request, watch_token):
    """The projector's view: no sign-in, and no tokens or table links in it."""
    tournament = Tournament.objects.filter(watch_token=watch_token).first()
    if tournament is None:
        raise NotFound(tournament_link_gone())
    unchanged = conditional.not_modified(
        request, etag(boards.version(tournament.pk), True), vary=VARY
    )
    return unchanged or answer(request, tournament, watching=True)


@limits.guarded(too_many)
@answers(200, TableSerializer, 404)
@endpoint("GET", "get_table", "A tournament's table", TAG)
@anyone()
def table(request, table_token):
    """What a table's QR code opens: the rubber in play there now, or null."""
    table = Table.objects.filter(token=table_token).select_related("tournament").first()
    if table is None:
        raise NotFound(tournament_link_gone())
    match = (
        Match.objects.filter(night=table.night_id, status=Match.IN_PLAY)
        .order_by("-created", "-id")
        .values_list("pk", flat=True)
        .first()
    )
    return Response({"tournament": table.tournament_id, "table": table.number, "match": match})


# Live -----------------------------------------------------------------------------------


def _stream(request, tournament, still_readable):
    nights = list(tournament.tables.values_list("night", flat=True))

    def now():
        if not still_readable():
            return None
        return {"version": boards.version(tournament.pk)}

    return stream(request, topic(tournament.pk), now, *(live.night_topic(n) for n in nights))


@streams("tournament_events", "A tournament's live changes")
def tournament_events(request, id):
    """Every change to the tournament or to any rubber at its tables, with the
    tournament's version, for its organiser."""
    tournament = organised(request, id)
    user = reader(request)
    return _stream(
        request,
        tournament,
        lambda: Tournament.objects.organised_by(user).filter(pk=tournament.pk).exists(),
    )


@limits.guarded(too_many)
@streams(
    "tournament_watch_events",
    "A tournament's live changes, by its watch link",
    refusals=(400, 404),
)
@anyone()
def watch_events(request, watch_token):
    """The projector's stream: no sign-in, the watch token is enough."""
    tournament = Tournament.objects.filter(watch_token=watch_token).first()
    if tournament is None:
        raise NotFound(tournament_link_gone())
    return _stream(request, tournament, lambda: True)

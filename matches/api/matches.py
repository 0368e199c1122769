"""Matches: starting one, a person's list, one sheet, the watch link, renewing the
links, the history, the next rubber, and a night with its tally."""

from django.db import transaction
from django.db.models import Prefetch
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.decorators import api_view
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response

from .. import conditional, limits, links, rosters, values
from ..models import Match, Night, NotFound, nothing_here, watch_link_gone
from ..summaries import history as read_history
from ..summaries import read_night, summary
from .base import (
    IF_NONE_MATCH,
    VARY,
    act,
    answers,
    anyone,
    endpoint,
    errors,
    etag,
    row_id,
    sheet_answer,
    too_many,
    valid,
    visible_match,
)
from .bodies import MATCH_START, MatchCreateSerializer, MatchFilterSerializer, RematchSerializer
from .readings import (
    EventSerializer,
    MatchPageSerializer,
    MatchSerializer,
    MatchSummarySerializer,
    NightSerializer,
)


@extend_schema(
    methods=["GET"],
    operation_id="list_matches",
    summary="My matches",
    description="The matches the caller hosted or sat in, newest first.",
    parameters=[MatchFilterSerializer],
    responses={200: MatchPageSerializer, **errors(400, 401, 404)},
    tags=["matches"],
)
@extend_schema(
    methods=["POST"],
    operation_id="start_match",
    summary="Start a match",
    description="The caller is the host; with host_seat they also hold that seat.",
    request=MATCH_START,
    responses={201: MatchSerializer, **errors(400, 401, 403)},
    tags=["matches"],
)
@api_view(["GET", "POST"])
def matches(request):
    if request.method == "POST":
        return _start(request)
    filters = MatchFilterSerializer(data=request.query_params)
    filters.is_valid(raise_exception=True)
    given = {name: value for name, value in filters.validated_data.items() if name != "page"}
    queryset = Match.objects.played_by(request.user).filtered(**given).select_related("host")
    paginator = PageNumberPagination()
    page = paginator.paginate_queryset(queryset.prefetch_related("seats"), request)
    lines = [summary(match) for match in page]
    return paginator.get_paginated_response(MatchSummarySerializer(lines, many=True).data)


@transaction.atomic  # the match and its answer are one (api.base.endpoint)
def _start(request):
    data = valid(MatchCreateSerializer, request)
    night = None
    if data["night"] is not None:
        night = Night.objects.visible_to(request.user).filter(pk=data["night"]).first()
        if night is None:
            raise values.InvalidInput(_("There is no such night of yours."))
    seats, players = data["seats"], None
    if data["club"] is not None:
        seats, players = rosters.keeper().seat(request.user, data["club"], data["players"])
    elif seats is None:
        raise values.InvalidInput(_("Name the four seats."))
    match = Match.objects.start(
        request.user,
        seats,
        players=players,
        host_seat=data["host_seat"],
        direction=data["direction"],
        first_dealer=data["first_dealer"],
        redeal_rule=data["redeal"],
        bandeira_at_120=data.get("bandeira_at_120"),
        night=night,
        night_name=data["night_name"],
        place=data["place"],
    )
    return sheet_answer(request, match.pk, status.HTTP_201_CREATED, changed=match)


@answers(200, MatchSerializer, 401, 404, not_modified=True)
@endpoint("GET", "get_match", "A match's sheet", "matches", parameters=[IF_NONE_MATCH])
def match_detail(request, id):
    """The whole sheet. The ETag carries the version: send it back in If-None-Match
    and an unchanged sheet answers 304 with no body."""
    match = visible_match(request, id)
    tag = etag(match.version, match.is_host(request.user))
    unchanged = conditional.not_modified(request, tag, vary=VARY)
    if unchanged is not None:
        return unchanged
    return sheet_answer(request, match.pk)


@limits.guarded(too_many)
@answers(200, MatchSerializer, 404, not_modified=True)
@endpoint("GET", "watch_match", "Follow a match read-only", "matches", parameters=[IF_NONE_MATCH])
@anyone()
def watch(request, watch_token):
    """No sign-in: the watch link's token is enough. Never shows the tokens. The link
    follows its night: once the next rubber has started, it shows that one (its ETag
    names the rubber too, so a new rubber is never a 304)."""
    newest = Match.objects.newest_rubber(watch_token=watch_token)
    if newest is None:
        raise NotFound(watch_link_gone())
    rubber, version, _night_version = newest
    tag = conditional.etag(version, conditional.screen(rubber))
    unchanged = conditional.not_modified(request, tag, vary=VARY)
    if unchanged is not None:
        return unchanged
    response = sheet_answer(request, rubber, watch_token=watch_token)
    return conditional.validators(response, tag, vary=VARY)


@answers(200, MatchSerializer, 401, 403, 404)
@endpoint("POST", "renew_links", "Renew the links", "matches")
def renew_links(request, id):
    """New join and watch tokens (host only); the old links stop working."""
    return act(request, id, lambda match: match.renew_links(request.user))


@answers(200, EventSerializer(many=True), 401, 404)
@endpoint("GET", "match_history", "The match's history", "playing")
def history(request, id):
    """Every change, oldest first: who, when, the values before and after."""
    match = visible_match(request, id)
    match = Match.objects.select_related("host").prefetch_related("seats").get(pk=match.pk)
    return Response(EventSerializer(read_history(match), many=True).data)


@answers(201, MatchSerializer, 400, 401, 403, 404, 409)
@endpoint("POST", "rematch", "Start the next rubber", "playing", RematchSerializer)
def rematch(request, id):
    """The host starts the next match of the same night, with the same pairs (seats
    null) or with the players moved."""
    match = visible_match(request, id)
    data = valid(RematchSerializer, request)
    version = data["version"] or conditional.seen_version(request)
    following = match.rematch(request.user, seats=data["seats"], version=version)
    return sheet_answer(request, following.pk, status.HTTP_201_CREATED, changed=following)


@answers(200, NightSerializer, 401, 404)
@endpoint("GET", "get_night", "A night and its tally", "nights")
def night(request, id):
    """The night's rubbers in order, and per pair and per player the rubbers won,
    games, bandeiras, shutouts, chapéus and rubbers ended early."""
    rubbers = Match.objects.select_related("host").prefetch_related("seats")
    night = (
        Night.objects.visible_to(request.user)
        .filter(pk=row_id(id))
        .prefetch_related(Prefetch("matches", queryset=rubbers))
        .first()
    )
    if night is None:
        raise NotFound(nothing_here())
    events = links.absolute(request, reverse("api-night-events", args=[night.pk]))
    return Response(NightSerializer(read_night(night), context={"events": events}).data)

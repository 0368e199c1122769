"""Seats: taking a free one with the join link, the host freeing one or handing out a
link for one, and asking for a held seat back (from a new browser, a cleared phone)."""

from django.urls import reverse
from drf_spectacular.utils import OpenApiParameter
from rest_framework import status
from rest_framework.response import Response

from .. import limits, links, values
from ..models import Match, NotFound, join_link_gone, no_such_seat_request, seat_link_gone
from ..summaries import seat_request as read_seat_request
from .base import (
    act,
    answers,
    endpoint,
    row_id,
    sheet_answer,
    too_many,
    valid,
    visible_match,
)
from .bodies import (
    JoinSerializer,
    Nothing,
    SeatAnswerSerializer,
    SeatAskSerializer,
    SeatClaimSerializer,
)
from .readings import MatchSerializer, SeatLinkSerializer, SeatRequestSerializer

SEAT = OpenApiParameter(
    "seat", str, OpenApiParameter.PATH, enum=list(values.SEATS), description="The seat."
)


def _by_join_link(id, token):
    """The match ``id``, for someone holding its join link's token. A missing match and
    a wrong token get the same answer, so that ids cannot be probed for the matches
    that exist."""
    match = Match.objects.select_related("night").filter(pk=row_id(id, join_link_gone())).first()
    if match is None or not match.night.join_token_is(token):
        raise NotFound(join_link_gone())
    return match


@limits.guarded(too_many)
@answers(200, MatchSerializer, 400, 401, 403, 404, 409, 429)
@endpoint("POST", "join_match", "Take a free seat", "matches", JoinSerializer)
def join(request, id):
    """With the join link's token; the caller takes the seat."""
    data = valid(JoinSerializer, request)
    match = _by_join_link(id, data["token"])
    match.join(request.user, token=data["token"], position=data["seat"], name=data["name"])
    return sheet_answer(request, match.pk)


@answers(200, MatchSerializer, 400, 401, 403, 404, 409)
@endpoint("POST", "free_seat", "Free a seat", "seats", parameters=[SEAT])
def free_seat(request, id, seat):
    """The host frees a held seat: its player loses it, and anyone with the join link
    may take it again (its player from a new browser, say). In the history."""
    return act(request, id, lambda match: match.free_seat(request.user, seat))


@answers(200, SeatLinkSerializer, 400, 401, 403, 404, 409)
@endpoint("POST", "make_seat_link", "Make a link for a seat", "seats", parameters=[SEAT])
def seat_link(request, id, seat):
    """The host makes a link for one seat (a new one replaces the old): whoever opens
    it takes that seat in one tap, in place of whoever holds it, and spends it."""
    match = visible_match(request, id)
    valid(Nothing, request)
    made = match.make_seat_link(request.user, seat)
    path = reverse("seat_link", args=[match.pk, made.position, made.link_token])
    return Response(
        {"seat": made.position, "link_token": made.link_token, "url": links.absolute(request, path)}
    )


@limits.guarded(too_many)
@answers(200, MatchSerializer, 400, 401, 403, 404, 409, 429)
@endpoint(
    "POST",
    "claim_seat",
    "Take a seat by its link",
    "seats",
    SeatClaimSerializer,
    parameters=[SEAT],
)
def claim_seat(request, id, seat):
    """With the token of the host's link for this seat: the caller takes it, in place
    of whoever holds it, and the link is spent."""
    data = valid(SeatClaimSerializer, request)
    match = Match.objects.prefetch_related("seats").filter(pk=row_id(id, seat_link_gone())).first()
    # A missing match and a wrong token get the same answer, as for the join link.
    held = match.seat_of(request.user) if match else None
    mine = held is not None and held.position == seat
    if match is None or not (mine or match.seat_link_is(seat, data["token"])):
        raise NotFound(seat_link_gone())
    match.take_seat_by_link(request.user, seat, data["token"])
    return sheet_answer(request, match.pk)


@limits.guarded(too_many)
@answers(201, SeatRequestSerializer, 400, 401, 403, 404, 409, 429)
@endpoint("POST", "ask_for_seat", "Ask for a seat back", "seats", SeatAskSerializer)
def seat_requests(request, id):
    """With the join link's token, anyone may ask for a held seat back (a new
    browser, a cleared phone); the host or a member approves it or turns it down.
    One open request a person: asking again for the same seat gives the same one."""
    data = valid(SeatAskSerializer, request)
    match = _by_join_link(id, data["token"])
    asked = match.ask_for_seat(request.user, token=data["token"], position=data["seat"])
    return Response(
        SeatRequestSerializer(read_seat_request(asked, match)).data,
        status=status.HTTP_201_CREATED,
    )


@answers(200, MatchSerializer, 400, 401, 403, 404, 409)
@endpoint("POST", "answer_seat_request", "Answer a request for a seat", "seats",
          SeatAnswerSerializer)  # fmt: skip
def seat_request(request, id, request_id):
    """The host or a member: approve (the asker takes the seat; whoever held it loses
    it) or turn it down. Either way it is in the history."""
    return act(
        request,
        id,
        lambda match, approve, version: match.answer_seat_request(
            request.user, row_id(request_id, no_such_seat_request()), approve, version=version
        ),
        SeatAnswerSerializer,
    )

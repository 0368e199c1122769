"""The REST API: thin views over the same model methods as the pages.

Each view reads its input with a serializer, calls the model, and answers with
the match's new state. The models check every rule and permission and raise a
``values.Refusal``; ``exception_handler`` turns it into the 4xx of API.md with
the same message the page shows.
"""

from dataclasses import asdict
from itertools import islice

from django.contrib.auth import authenticate
from django.db.models import Prefetch
from django.http import JsonResponse
from django.urls import reverse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions, status
from rest_framework.authtoken.models import Token
from rest_framework.decorators import (
    api_view,
    authentication_classes,
    permission_classes,
    throttle_classes,
)
from rest_framework.pagination import PageNumberPagination
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from . import conditional, limits, links, rules, values
from . import serializers as s
from .models import Match, Night, NotFound, User, explain
from .sheet import read

# Errors ----------------------------------------------------------------------------


def exception_handler(exc, context):
    """Every refusal as ``{"detail": sentence}``; field errors keep their messages too.

    Anything else (a database outage, say) is left to Django's middleware, as DRF's
    own handler leaves it: ``outage`` answers an outage with a 503."""
    response = _refusal(exc, context)
    if response is not None:
        # Field errors follow the body's shape: a body of a million fields would get
        # a million messages back, so only the first few of each are kept.
        most = MOST_ERRORS if isinstance(exc, exceptions.ValidationError) else None
        response.data = _echoable(response.data, most)
    return response


# A message may echo what the client sent (DRF's '"x" is not a valid choice.'): at
# most this many characters of it, so a megabyte sent is not a megabyte answered.
LONGEST_MESSAGE = 300
MOST_ERRORS = 10


def _echoable(data, most=None):
    """The answer with every text cut short, any lone surrogate (which JSON can carry
    and the renderer cannot encode) replaced, and with ``most`` entries a level."""
    if isinstance(data, str):
        if len(data) > LONGEST_MESSAGE:
            data = data[: LONGEST_MESSAGE - 1] + "…"
        return data.encode("utf-8", "replace").decode()
    if isinstance(data, dict):
        kept = islice(data.items(), most)
        return {_echoable(key): _echoable(value, most) for key, value in kept}
    if isinstance(data, list):
        return [_echoable(value, most) for value in data[:most]]
    return data


def _refusal(exc, context):
    if isinstance(exc, values.Refusal):
        body = {"detail": explain(exc), **exc.data}
        if "next" in body:  # where the table went: the next rubber, and its link
            body["next_url"] = links.absolute(
                context["request"], reverse("api-match", args=[body["next"]])
            )
        return Response(body, status=exc.status)
    response = drf_exception_handler(exc, context)
    if isinstance(exc, exceptions.Throttled):
        response.data = {"detail": limits.too_many(exc.wait)}
    if response is not None and isinstance(exc, exceptions.ValidationError):
        errors = response.data if isinstance(response.data, dict) else {"body": response.data}
        response.data = {"detail": _first_error(errors), "errors": errors}
    return response


def _first_error(errors, path=()):
    """The first field message as a sentence, e.g. "seats.a1: This field is required."."""
    if isinstance(errors, dict):
        for key, value in errors.items():
            inner = path if key in ("non_field_errors", "body") else (*path, str(key))
            return _first_error(value, inner)
    if isinstance(errors, list) and errors:
        if all(isinstance(item, str) for item in errors):
            message = str(errors[0])
            if getattr(errors[0], "code", None) == "rule":
                return message  # the rule's sentence names its field, as on the pages
            return f"{'.'.join(path)}: {message}" if path else message
        for index, item in enumerate(errors):
            if item:
                return _first_error(item, (*path, str(index)))
    return gettext("The request was not valid.")


@csrf_exempt  # it changes nothing, and must not answer a stray POST with the CSRF page
def not_found(request, *args, **kwargs):
    """Any other path under /api/: a JSON 404 like the API's own."""
    return JsonResponse({"detail": gettext("There is no such page in the API.")}, status=404)


ERRORS = {
    400: OpenApiResponse(s.ValidationErrorSerializer, description="Bad input."),
    401: OpenApiResponse(s.ErrorSerializer, description="Not signed in."),
    403: OpenApiResponse(s.ErrorSerializer, description="Not allowed."),
    404: OpenApiResponse(s.ErrorSerializer, description="No such thing, or not visible to you."),
    409: OpenApiResponse(s.ErrorSerializer, description="The sheet changed under you."),
    429: OpenApiResponse(s.ErrorSerializer, description="Too many attempts: try again later."),
}
NOT_MODIFIED = OpenApiResponse(description="Not modified: the sheet is still at this version.")
IF_NONE_MATCH = OpenApiParameter(
    "If-None-Match",
    str,
    OpenApiParameter.HEADER,
    required=False,
    description="The ETag of the sheet you have: 304 while it is unchanged.",
)


def errors(*codes):
    return {code: ERRORS[code] for code in codes}


def endpoint(method, operation_id, summary, tag, request=None, parameters=None):
    """An API view for one HTTP method, as the OpenAPI schema describes it (its
    docstring is the description)."""

    def decorator(view):
        described = extend_schema(
            operation_id=operation_id,
            summary=summary,
            tags=[tag],
            request=request,
            parameters=parameters,
        )
        return described(api_view([method])(view))

    return decorator


def answers(status_code, serializer, *refusals, not_modified=False):
    """What a view answers, and the refusals it may give."""
    responses = {status_code: serializer, **errors(*refusals)}
    if not_modified:
        responses[304] = NOT_MODIFIED
    return extend_schema(responses=responses)


def anyone(throttle=None):
    """A view anyone may call, signed in or not; ``throttle`` limits their attempts."""

    def decorator(view):
        view = authentication_classes([])(permission_classes([AllowAny])(view))
        return throttle_classes([throttle])(view) if throttle else view

    return decorator


# Reading matches -------------------------------------------------------------------


NO_MATCH = _("There is no such match, or you can't see it.")
JOIN_LINK_GONE = _("This join link is not valid any more: ask the host for the new one.")


def _id(value, refusal=NO_MATCH):
    """A path id that can name a row; bigger numbers name nothing (and would
    overflow the database's bigint)."""
    if value > s.MAX_ID:
        raise NotFound(refusal)
    return value


def _visible_match(request, id):
    match = Match.objects.visible_to(request.user).filter(pk=_id(id)).first()
    if match is None:
        raise NotFound(NO_MATCH)
    return match


def _valid(serializer_class, request):
    """The body, read and checked by ``serializer_class``; a refusal is a 400."""
    serializer = serializer_class(data=request.data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


# Each person's sheet is their own (Nós, the host's tokens): no shared cache keeps it.
VARY = ("Authorization", "Cookie")


def _sheet(request, match, status=status.HTTP_200_OK, watching=False):
    """The sheet as this caller sees it (``sheet.read``), with its ETag."""
    sheet = read(match, request.user, watching=watching)
    response = Response(s.MatchSerializer(sheet).data, status=status)
    return conditional.validators(response, _etag(match, sheet.hosting), vary=VARY)


def _etag(match, hosting):
    # The host's body holds the tokens, so it is a different representation.
    return conditional.etag(f"{match.version}{'-host' if hosting else ''}")


def _act(request, id, change, body=s.Nothing, status=status.HTTP_200_OK):
    """Read the body with ``body``, run ``change(match, **data)`` (one of the match's
    own methods) and answer the sheet read again. A refusal raises, and
    ``exception_handler`` answers it; a stranger gets the 404 before any of that."""
    match = _visible_match(request, id)
    data = _valid(body, request)
    if "version" in data and data["version"] is None:
        data["version"] = conditional.seen_version(request)
    change(match, **data)
    return _sheet(request, Match.objects.for_sheet().get(pk=match.pk), status)


# Accounts ---------------------------------------------------------------------------


@answers(201, s.GuestTokenSerializer, 400, 429)
@endpoint("POST", "guest", "Create a guest account", "accounts", s.GuestSerializer)
@anyone(limits.GuestThrottle)
def guest(request):
    """A guest account with only a display name, and its API token."""
    user = User.create_guest(_valid(s.GuestSerializer, request)["name"])
    token = Token.objects.create(user=user)
    return Response(
        {"token": token.key, "user": {"id": user.pk, "name": user.name}},
        status=status.HTTP_201_CREATED,
    )


@answers(200, s.TokenSerializer, 400, 429)
@endpoint("POST", "token", "Get an API token", "accounts", s.LoginSerializer)
@anyone(limits.LoginThrottle)
def token(request):
    """The token for an account with a password."""
    user = authenticate(request._request, **_valid(s.LoginSerializer, request))
    if user is None:
        raise values.InvalidInput(_("Wrong username or password."))
    key, _created = Token.objects.get_or_create(user=user)
    return Response({"token": key.key})


# The calculator -----------------------------------------------------------------------


@answers(200, s.CalculationSerializer, 400)
@endpoint("POST", "calculate", "Points or cards to games", "calculator", s.CalculatorSerializer)
@anyone()
def calculator(request):
    """Either the points or the cards of one side; no sign-in needed."""
    data = _valid(s.CalculatorSerializer, request)
    calculation = rules.calculate(
        points=data.get("points"), cards=data.get("cards"), every_trick=data["every_trick"]
    )
    # The calculation is plain numbers already; its serializer only describes them.
    return Response(asdict(calculation))


# Matches -------------------------------------------------------------------------------


@extend_schema(
    methods=["GET"],
    operation_id="list_matches",
    summary="My matches",
    description="The matches the caller hosted or sat in, newest first.",
    parameters=[s.MatchFilterSerializer],
    responses={200: s.MatchPageSerializer, **errors(400, 401, 404)},
    tags=["matches"],
)
@extend_schema(
    methods=["POST"],
    operation_id="start_match",
    summary="Start a match",
    description="The caller is the host; with host_seat they also hold that seat.",
    request=s.MatchCreateSerializer,
    responses={201: s.MatchSerializer, **errors(400, 401, 403)},
    tags=["matches"],
)
@api_view(["GET", "POST"])
def matches(request):
    if request.method == "POST":
        return _start(request)
    filters = s.MatchFilterSerializer(data=request.query_params)
    filters.is_valid(raise_exception=True)
    given = {name: value for name, value in filters.validated_data.items() if name != "page"}
    queryset = Match.objects.played_by(request.user).filtered(**given).select_related("host")
    paginator = PageNumberPagination()
    page = paginator.paginate_queryset(queryset.prefetch_related("seats"), request)
    return paginator.get_paginated_response(s.MatchSummarySerializer(page, many=True).data)


def _start(request):
    data = _valid(s.MatchCreateSerializer, request)
    night = None
    if data["night"] is not None:
        night = Night.objects.visible_to(request.user).filter(pk=data["night"]).first()
        if night is None:
            raise values.InvalidInput(_("There is no such night of yours."))
    match = Match.objects.start(
        request.user,
        data["seats"],
        host_seat=data["host_seat"],
        direction=data["direction"],
        first_dealer=data["first_dealer"],
        redeal_rule=data["redeal"],
        night=night,
        night_name=data["night_name"],
        place=data["place"],
    )
    return _sheet(request, Match.objects.for_sheet().get(pk=match.pk), status.HTTP_201_CREATED)


@answers(200, s.MatchSerializer, 401, 404, not_modified=True)
@endpoint("GET", "get_match", "A match's sheet", "matches", parameters=[IF_NONE_MATCH])
def match_detail(request, id):
    """The whole sheet. The ETag carries the version: send it back in If-None-Match
    and an unchanged sheet answers 304 with no body."""
    match = _visible_match(request, id)
    unchanged = conditional.not_modified(
        request, _etag(match, match.is_host(request.user)), vary=VARY
    )
    if unchanged is not None:
        return unchanged
    return _sheet(request, Match.objects.for_sheet().get(pk=match.pk))


def _by_join_link(id, token):
    """The match ``id``, for someone holding its join link's token. A missing match and
    a wrong token get the same answer, so that ids cannot be probed for the matches
    that exist."""
    match = Match.objects.select_related("night").filter(pk=_id(id, JOIN_LINK_GONE)).first()
    if match is None or not match.night.join_token_is(token):
        raise NotFound(JOIN_LINK_GONE)
    return match


@answers(200, s.MatchSerializer, 400, 401, 403, 404, 409)
@endpoint("POST", "join_match", "Take a free seat", "matches", s.JoinSerializer)
def join(request, id):
    """With the join link's token; the caller takes the seat."""
    data = _valid(s.JoinSerializer, request)
    match = _by_join_link(id, data["token"])
    match.join(request.user, token=data["token"], position=data["seat"], name=data["name"])
    return _sheet(request, Match.objects.for_sheet().get(pk=match.pk))


@answers(200, s.MatchSerializer, 404, not_modified=True)
@endpoint("GET", "watch_match", "Follow a match read-only", "matches", parameters=[IF_NONE_MATCH])
@anyone()
def watch(request, watch_token):
    """No sign-in: the watch link's token is enough. Never shows the tokens. The link
    follows its night: once the next rubber has started, it shows that one (its ETag
    names the rubber too, so a new rubber is never a 304)."""
    newest = Match.objects.newest_rubber(watch_token=watch_token)
    if newest is None:
        raise NotFound(_("This watch link is not valid: ask the host for the new one."))
    tag = conditional.etag(f"{newest[1]}-{conditional.watching(newest[0])}")
    unchanged = conditional.not_modified(request, tag, vary=VARY)
    if unchanged is not None:
        return unchanged
    response = _sheet(request, Match.objects.for_sheet().get(pk=newest[0]), watching=True)
    return conditional.validators(response, tag, vary=VARY)


@answers(200, s.MatchSerializer, 401, 403, 404)
@endpoint("POST", "renew_links", "Renew the links", "matches")
def renew_links(request, id):
    """New join and watch tokens (host only); the old links stop working."""
    return _act(request, id, lambda match: match.renew_links(request.user))


# Seats: getting back in from another browser -----------------------------------------


SEAT_LINK_GONE = _("This link for a seat is not valid any more: ask the host for a new one.")


SEAT = OpenApiParameter(
    "seat", str, OpenApiParameter.PATH, enum=list(values.SEATS), description="The seat."
)


@answers(200, s.MatchSerializer, 400, 401, 403, 404, 409)
@endpoint("POST", "free_seat", "Free a seat", "seats", parameters=[SEAT])
def free_seat(request, id, seat):
    """The host frees a held seat: its player loses it, and anyone with the join link
    may take it again (its player from a new browser, say). In the history."""
    return _act(request, id, lambda match: match.free_seat(request.user, seat))


@answers(200, s.SeatLinkSerializer, 400, 401, 403, 404)
@endpoint("POST", "make_seat_link", "Make a link for a seat", "seats", parameters=[SEAT])
def seat_link(request, id, seat):
    """The host makes a link for one seat (a new one replaces the old): whoever opens
    it takes that seat in one tap, in place of whoever holds it, and spends it."""
    match = _visible_match(request, id)
    _valid(s.Nothing, request)
    made = match.make_seat_link(request.user, seat)
    path = reverse("seat_link", args=[match.pk, made.position, made.link_token])
    return Response(
        {"seat": made.position, "link_token": made.link_token, "url": links.absolute(request, path)}
    )


@answers(200, s.MatchSerializer, 400, 401, 403, 404, 409)
@endpoint(
    "POST",
    "claim_seat",
    "Take a seat by its link",
    "seats",
    s.SeatClaimSerializer,
    parameters=[SEAT],
)
def claim_seat(request, id, seat):
    """With the token of the host's link for this seat: the caller takes it, in place
    of whoever holds it, and the link is spent."""
    data = _valid(s.SeatClaimSerializer, request)
    match = Match.objects.prefetch_related("seats").filter(pk=_id(id, SEAT_LINK_GONE)).first()
    # A missing match and a wrong token get the same answer, as for the join link.
    held = match.seat_of(request.user) if match else None
    mine = held is not None and held.position == seat
    if match is None or not (mine or match.seat_link_is(seat, data["token"])):
        raise NotFound(SEAT_LINK_GONE)
    match.take_seat_by_link(request.user, seat, data["token"])
    return _sheet(request, Match.objects.for_sheet().get(pk=match.pk))


@answers(201, s.SeatRequestSerializer, 400, 401, 403, 404, 409)
@endpoint("POST", "ask_for_seat", "Ask for a seat back", "seats", s.SeatAskSerializer)
def seat_requests(request, id):
    """With the join link's token, anyone may ask for a held seat back (a new
    browser, a cleared phone); the host or a member approves it or turns it down.
    One open request a person: asking again for the same seat gives the same one."""
    data = _valid(s.SeatAskSerializer, request)
    match = _by_join_link(id, data["token"])
    asked = match.ask_for_seat(request.user, token=data["token"], position=data["seat"])
    return Response(
        s.SeatRequestSerializer(
            s.seat_request_reading(asked, match.seat_at(asked.position).name)
        ).data,
        status=status.HTTP_201_CREATED,
    )


@answers(200, s.MatchSerializer, 400, 401, 403, 404, 409)
@endpoint("POST", "answer_seat_request", "Answer a request for a seat", "seats",
          s.SeatAnswerSerializer)  # fmt: skip
def seat_request(request, id, request_id):
    """The host or a member: approve (the asker takes the seat; whoever held it loses
    it) or turn it down. Either way it is in the history."""
    no_request = _("There is no such request for a seat in this match.")
    return _act(
        request,
        id,
        lambda match, approve: match.answer_seat_request(
            request.user, _id(request_id, no_request), approve
        ),
        s.SeatAnswerSerializer,
    )


# Playing ------------------------------------------------------------------------------


@answers(201, s.MatchSerializer, 400, 401, 403, 404, 409)
@endpoint("POST", "enter_games", "Enter a deal's games", "playing", s.EntrySerializer)
def entries(request, id):
    """A member enters their own side's column, the host either side's."""
    return _act(
        request,
        id,
        lambda match, **data: match.record(request.user, **data),
        s.EntrySerializer,
        status.HTTP_201_CREATED,
    )


@answers(200, s.MatchSerializer, 400, 401, 403, 404, 409)
@endpoint("POST", "undo_entry", "Undo the latest entry", "playing", s.UndoSerializer)
def undo(request, id):
    """Its author or the host, while nothing has been entered after it."""
    return _act(
        request, id, lambda match, **data: match.undo(request.user, **data), s.UndoSerializer
    )


@answers(200, s.MatchSerializer, 400, 401, 403, 404, 409)
@endpoint("POST", "redeal", "Record a redeal", "playing", s.RedealSerializer)
def redeal(request, id):
    """The current deal was dealt again (a weak hand called, a misdeal): nothing is
    scored, and the deal passes to the next dealer in the table's direction. A member
    or the host, while neither cell of the deal is filled; undone by undo like an
    entry."""
    return _act(
        request, id, lambda match, **data: match.redeal(request.user, **data), s.RedealSerializer
    )


@answers(200, s.MatchSerializer, 400, 401, 403, 404, 409)
@endpoint("PUT", "correct_deal", "Correct a deal", "playing", s.CorrectionSerializer)
def correct(request, id, number):
    """The host sets both cells of a deal at once, under the same rules."""
    return _act(
        request,
        id,
        lambda match, **data: match.correct(request.user, number=number, **data),
        s.CorrectionSerializer,
    )


@answers(201, s.NoteSerializer, 400, 401, 403, 404)
@endpoint("POST", "add_note", "Note a revoke", "playing", s.NoteCreateSerializer)
def notes(request, id):
    """Beside the sheet: a note never changes the tally."""
    match = _visible_match(request, id)
    note = match.add_note(request.user, **_valid(s.NoteCreateSerializer, request))
    sheet = read(Match.objects.for_sheet().get(pk=match.pk), request.user)
    written = next(view for view in sheet.notes if view.id == note.pk)
    return Response(s.NoteSerializer(s.note_reading(written)).data, status=status.HTTP_201_CREATED)


@answers(204, None, 401, 403, 404)
@endpoint("DELETE", "withdraw_note", "Withdraw a note", "playing")
def note(request, id, note_id):
    """Its author or the host; the note and its withdrawal stay in the history."""
    match = _visible_match(request, id)
    match.withdraw_note(request.user, _id(note_id, _("There is no such note in this match.")))
    return Response(status=status.HTTP_204_NO_CONTENT)


@answers(200, s.MatchSerializer, 400, 401, 403, 404, 409)
@endpoint("POST", "end_match", "End the match", "playing", s.Seen)
def end(request, id):
    """A member or the host ends a rubber before the target; nobody wins it."""
    return _act(request, id, lambda match, **data: match.end(request.user, **data), s.Seen)


@answers(200, s.EventSerializer(many=True), 401, 404)
@endpoint("GET", "match_history", "The match's history", "playing")
def history(request, id):
    """Every change, oldest first: who, when, the values before and after."""
    match = _visible_match(request, id)
    match = Match.objects.select_related("host").prefetch_related("seats").get(pk=match.pk)
    events = match.events.select_related("by").order_by("id")
    return Response(s.EventSerializer(events, many=True, context={"names": match.names()}).data)


@answers(201, s.MatchSerializer, 400, 401, 403, 404, 409)
@endpoint("POST", "rematch", "Start the next rubber", "playing", s.RematchSerializer)
def rematch(request, id):
    """The host starts the next match of the same night, with the same pairs (seats
    null) or with the players moved."""
    match = _visible_match(request, id)
    data = _valid(s.RematchSerializer, request)
    version = data["version"] or conditional.seen_version(request)
    following = match.rematch(request.user, seats=data["seats"], version=version)
    return _sheet(request, Match.objects.for_sheet().get(pk=following.pk), status.HTTP_201_CREATED)


# Nights --------------------------------------------------------------------------------


@answers(200, s.NightSerializer, 401, 404)
@endpoint("GET", "get_night", "A night and its tally", "nights")
def night(request, id):
    """The night's rubbers in order, and per pair and per player the rubbers won,
    games, bandeiras, shutouts, chapéus and rubbers ended early."""
    no_night = _("There is no such night, or you can't see it.")
    rubbers = Match.objects.select_related("host").prefetch_related("seats")
    night = (
        Night.objects.visible_to(request.user)
        .filter(pk=_id(id, no_night))
        .prefetch_related(Prefetch("matches", queryset=rubbers))
        .first()
    )
    if night is None:
        raise NotFound(no_night)
    return Response(s.NightSerializer(s.night_reading(night)).data)

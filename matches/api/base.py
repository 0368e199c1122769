"""What every endpoint shares: how a view is declared, how it refuses, and how it
reads its match and its body and answers with the sheet.

The models check every rule and permission and raise a ``values.Refusal``;
``exception_handler`` turns it into the 4xx of API.md with the same message the
page shows. A view reads its body with a serializer of ``bodies``, calls one of the
match's own methods (``act``) and answers with the sheet read again.
"""

import re
from itertools import islice

from django.db import transaction
from django.http import JsonResponse
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions, status
from rest_framework.decorators import (
    api_view,
    authentication_classes,
    permission_classes,
    throttle_classes,
)
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from .. import conditional, fragments, limits, links, outside, values
from ..converters import IdConverter
from ..models import Match, NotFound, explain, nothing_here
from ..sheet import read, view
from .bodies import Nothing, Seen
from .readings import ErrorSerializer, ValidationErrorSerializer, sheet_body

# Refusals --------------------------------------------------------------------------


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


# Declaring a view ------------------------------------------------------------------


ERRORS = {
    400: OpenApiResponse(ValidationErrorSerializer, description="Bad input."),
    401: OpenApiResponse(
        ErrorSerializer, description="Not signed in, or the token sent works no more."
    ),
    403: OpenApiResponse(ErrorSerializer, description="Not allowed."),
    404: OpenApiResponse(ErrorSerializer, description="No such thing, or not visible to you."),
    409: OpenApiResponse(ErrorSerializer, description="The sheet changed under you."),
    429: OpenApiResponse(ErrorSerializer, description="Too many attempts: try again later."),
}
NOT_MODIFIED = OpenApiResponse(description="Not modified: the sheet is still at this version.")
IF_NONE_MATCH = OpenApiParameter(
    "If-None-Match",
    str,
    OpenApiParameter.HEADER,
    required=False,
    description="The ETag of the sheet you have: 304 while it is unchanged.",
)
IF_MATCH = OpenApiParameter(
    "If-Match",
    str,
    OpenApiParameter.HEADER,
    required=False,
    description='The ETag of the sheet you acted on, in its quotes (e.g. "7"), instead of '
    '"version" in the body: if the sheet changed since, 409 says what changed and nothing '
    "is done. Anything but one such ETag is refused (400).",
)


def too_many(request, message):
    """An address over a limit (``limits.guarded``), answered before the view runs."""
    return outside.answer(request, message, status.HTTP_429_TOO_MANY_REQUESTS)


def errors(*codes):
    return {code: ERRORS[code] for code in codes}


def endpoint(method, operation_id, summary, tag, request=None, parameters=None):
    """An API view for one HTTP method, as the OpenAPI schema describes it (its
    docstring is the description). A write and its answer are one transaction: if the
    answer cannot be read (the database went away meanwhile), the change is rolled back
    with it, so a 5xx always means that nothing changed and a retry is safe."""
    if isinstance(request, type) and issubclass(request, Seen):
        parameters = [*(parameters or []), IF_MATCH]  # the version seen, as a header

    def decorator(view):
        described = extend_schema(
            operation_id=operation_id,
            summary=summary,
            tags=[tag],
            request=request,
            parameters=parameters,
        )
        if method != "GET":
            view = transaction.atomic(view)
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


# Reading a request -----------------------------------------------------------------

# A row's id as the pages' paths read it (``converters.IdConverter``): a longer one
# names no row (and would overflow the database's bigint).
ROW_ID = re.compile(IdConverter.regex)


def row_id(value, refusal=None):
    """A path's id, read as the pages' ``id`` converter reads it; ``refusal`` (by
    default, that there is nothing here) for one that can name no row."""
    if not ROW_ID.fullmatch(str(value)):
        raise NotFound(refusal or nothing_here())
    return IdConverter().to_python(str(value))


def visible_match(request, id):
    """Match ``id``, for its host and members; the same 404 for anyone else as for a
    match that is not there."""
    match = Match.objects.visible_to(request.user).filter(pk=row_id(id)).first()
    if match is None:
        raise NotFound(nothing_here())
    return match


def valid(body, request):
    """The request's body, read and checked by the serializer ``body``; a refusal is a 400."""
    serializer = body(data=request.data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


# Answering with the sheet ----------------------------------------------------------

# Each person's sheet is their own (Nós, the host's tokens): no shared cache keeps it.
VARY = ("Authorization", "Cookie")


def sheet_answer(request, pk, status=status.HTTP_200_OK, *, watch_token=None, changed=None):
    """Match ``pk``'s sheet as this caller sees it (``sheet.read``), with its ETag and
    its event stream; with ``watch_token``, as that watch link shows it to anyone.

    Read as of one moment (``one_sheet``); with ``changed``, the match a change was
    just made to, read again as the answer to that change in its own transaction
    (``endpoint``), which locked the match's row (or made it): nothing else comes in."""
    watching = watch_token is not None
    if changed is not None:
        # Kept for the other phones' fetches of this version.
        sheet = view(fragments.keep_changed(changed.read_again()), request.user)
    else:
        match = Match.objects.one_sheet(pk=pk, acting=not watching)
        sheet = read(match, request.user, watching=watching)
    if watching:
        events = reverse("api-watch-events", args=[watch_token])
    else:
        events = reverse("api-match-events", args=[pk])
    response = Response(sheet_body(sheet, links.absolute(request, events)), status=status)
    return conditional.validators(response, etag(sheet.version, sheet.hosting), vary=VARY)


def etag(version, hosting):
    # The host's body holds the tokens, so it is a different representation.
    return conditional.etag(version, conditional.HOST if hosting else "")


def act(request, id, change, body=Nothing, status=status.HTTP_200_OK):
    """Read the body with ``body``, run ``change(match, **data)`` (one of the match's
    own methods) and answer the sheet read again. A refusal raises, and
    ``exception_handler`` answers it; a stranger gets the 404 before any of that."""
    match = visible_match(request, id)
    data = valid(body, request)
    if "version" in data and data["version"] is None:
        data["version"] = conditional.seen_version(request)
    change(match, **data)
    return sheet_answer(request, match.pk, status, changed=match)

"""The event streams of API.md's "Live changes": a sheet's, a night's, a watch link's.

Each is for the people who may read what it describes, found as the JSON of that thing
finds them: the match's host and members, the night's, anyone with the watch link. It
sends ``change`` with the new version after every change (``live`` hears of them), a
heartbeat every ``live.heartbeat_every()`` seconds while nothing changes, and, when the version
the client last saw (Last-Event-ID, or ``since`` on a first connection) is behind, the
latest version at once. A stream checks its reader again whenever who sits at the table
changes, and ends after about ``LIFETIME`` seconds: the browser reconnects within a
second, is checked again, and misses nothing.

The view answers like any other (a sync view, its refusals in JSON); what it answers is
a stream whose body is asynchronous, which the server sends from its event loop for as
long as it lasts, holding no thread (scoresheet/asgi.py). A server that cannot do that
(runserver, a plain WSGI server) gets 204: no stream here, and the pages poll instead.
"""

import asyncio
import contextlib
import copy
import random
import threading
from collections import Counter

from django.conf import settings
from django.http import StreamingHttpResponse
from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.decorators import content_negotiation_class
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.response import Response

from .. import limits, live, values
from ..models import Match, Night, NotFound, nothing_here, watch_link_gone
from .base import anyone, endpoint, errors, row_id, too_many, visible_match

LIFETIME = 600.0  # s a stream lasts at most (give or take a tenth, so they don't end in step)


class Refusals(BaseContentNegotiation):
    """A stream's refusals are JSON whatever the client accepts (an EventSource sends
    ``Accept: text/event-stream``); the stream itself is no DRF Response."""

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type

    def select_parser(self, request, parsers):
        return parsers[0] if parsers else None


SINCE = OpenApiParameter(
    "since",
    int,
    required=False,
    description="The version you have (the page's): if the stream is past it, it sends "
    "the latest version at once. A reconnect's Last-Event-ID header says the same.",
)
LAST_EVENT_ID = OpenApiParameter(
    "Last-Event-ID",
    str,
    OpenApiParameter.HEADER,
    required=False,
    description="The id of the last event received: the version it carried.",
)


EVENTS = OpenApiExample(
    "A change, then an idle moment",
    value='retry: 1000\n\nid: 8\nevent: change\ndata: {"version": 8}\n\n'
    ': still here\nevent: ping\ndata: {"version": 8}\n\n',
)


def streams(operation_id, summary, *, refusals=(400, 401, 404)):
    """An event stream's endpoint, as the schema describes it: its body is a stream of
    events that lasts minutes, no one value (``schema.event_streams``), to be read with
    an EventSource or another Server-Sent Events client, not as a whole."""

    def decorator(view):
        view = content_negotiation_class(Refusals)(view)
        described = extend_schema(
            parameters=[SINCE, LAST_EVENT_ID],
            responses={
                (200, "text/event-stream"): OpenApiResponse(
                    OpenApiTypes.STR,
                    description='Server-Sent Events, for about ten minutes: "change" with '
                    '{"version": N} (and its id N) after every change; ": still here" and '
                    '"ping" every 15 s while nothing changes. Read it as a stream (an '
                    "EventSource): it has no end to wait for.",
                    examples=[EVENTS],
                ),
                204: OpenApiResponse(
                    description="This server cannot hold a stream open: read the thing "
                    "again from time to time instead."
                ),
                **errors(*refusals),
            },
        )
        return described(endpoint("GET", operation_id, summary, "live")(view))

    return decorator


@streams("match_events", "A match's live changes")
def match_events(request, id):
    """The match's changes as they happen, for its host and members."""
    match = visible_match(request, id)
    user = reader(request)

    def now():
        version = Match.objects.visible_to(user).version(pk=match.pk)
        return None if version is None else {"version": version}

    return stream(request, live.match_topic(match.pk), now)


@streams("night_events", "A night's live changes")
def night_events(request, id):
    """Every change to any rubber of the night, with the night's version (the sum of its
    rubbers' versions) and its newest rubber, for the night's host and members."""
    night = Night.objects.visible_to(request.user).filter(pk=row_id(id)).first()
    if night is None:
        raise NotFound(nothing_here())
    user = reader(request)

    def now():
        if not Night.objects.visible_to(user).filter(pk=night.pk).exists():
            return None
        newest = Match.objects.filter(night=night).order_by("-created", "-id").first()
        return {"version": Match.objects.night_version(night.pk), "rubber": newest.pk}

    return stream(request, live.night_topic(night.pk), now)


@limits.guarded(too_many)
@streams("watch_events", "A watch link's live changes", refusals=(400, 404))
@anyone()
def watch_events(request, watch_token):
    """What the watch link shows, as it changes: the night's version and its newest
    rubber, which the link follows. Ends when the link is renewed."""
    newest = Match.objects.newest_rubber(watch_token=watch_token)
    if newest is None:
        raise NotFound(watch_link_gone())
    night = Match.objects.filter(pk=newest[0]).values_list("night", flat=True).get()

    def now():
        newest = Match.objects.newest_rubber(watch_token=watch_token)
        return None if newest is None else {"version": newest[2], "rubber": newest[0]}

    return stream(request, live.night_topic(night), now)


def reader(request):
    """Who reads a stream, as the stream keeps them for as long as it lasts: their account
    itself. ``request.user`` is a lazy wrapper that holds the whole request, and every
    object the request made would stay alive with every open stream."""
    return copy.copy(request.user)  # a SimpleLazyObject's copy is of what it wraps


class OpenStreams:
    """The streams this process holds open, by the person and the address reading them:
    past ``settings.LIVE_STREAMS_PER_PERSON`` (or ``..._PER_ADDRESS``) open at once, one
    more is refused (429). Each stream counts itself from its start to its end."""

    def __init__(self):
        self.guard = threading.Lock()
        self.open = Counter()

    def refused(self, request) -> str | None:
        """Why one more stream of this request's person or address is refused, or None."""
        person, address = self.keys(request)
        with self.guard:
            if person and self.open[person] >= settings.LIVE_STREAMS_PER_PERSON:
                return gettext("You have too many live sheets open: close some and try again.")
            if self.open[address] >= settings.LIVE_STREAMS_PER_ADDRESS:
                return gettext("Too many live sheets are open from your address: try again later.")
        return None

    @staticmethod
    def keys(request):
        user = request.user
        person = f"u{user.pk}" if user.is_authenticated else None
        return person, f"a{limits.AttemptThrottle().get_ident(request)}"

    @contextlib.contextmanager
    def held(self, keys):
        keys = [key for key in keys if key]
        with self.guard:
            self.open.update(keys)
        try:
            yield
        finally:
            with self.guard:
                self.open.subtract(keys)
                for key in keys:
                    if self.open[key] <= 0:
                        del self.open[key]


open_streams = OpenStreams()


def stream(request, topic, now, *more):
    """The answer of a stream of ``topic`` (and of ``more`` topics: a tournament's
    hears each of its tables too): ``now()`` reads (in a thread) what the stream says
    at this moment, {"version": N, ...}, or None once the reader may no longer read it."""
    since = seen(request)
    if not live.can_stream(request):
        return Response(status=204)
    refusal = open_streams.refused(request)
    if refusal is not None:
        return Response({"detail": refusal}, status=429, headers={"Retry-After": "5"})
    response = StreamingHttpResponse(
        events(
            (topic, *more), since, now, reads_every_change=topic[0] != "match",
            held=open_streams.held(open_streams.keys(request)),
        ),
        content_type="text/event-stream",
    )  # fmt: skip
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx: pass each event on as it comes
    return response


def seen(request):
    """The version the client has: its Last-Event-ID on a reconnect (a browser sends
    none, never an empty one, before its first event), else ``since``; None without
    either. Either that is not a version is refused (400), even when the other is."""
    since = request.query_params.get("since")
    since = None if since is None else values.read_version(since)
    last = request.headers.get("Last-Event-ID")
    return values.read_version(last) if last else since


async def events(topics, since, now, *, reads_every_change, held):
    """The stream itself. A sheet's stream sends the version each notice carries; a
    night's reads its own (``reads_every_change``), as does any stream once seats change.
    ``held`` counts it among the open streams for as long as it lasts."""
    with held:
        async for part in _events(topics, since, now, reads_every_change=reads_every_change):
            yield part


async def _events(topics, since, now, *, reads_every_change):
    hub = live.hub
    hub.start(Match.objects.versions)
    listener = hub.subscribe(*topics)  # before the first read: no change falls between
    loop = asyncio.get_running_loop()
    ends = loop.time() + LIFETIME * random.uniform(0.9, 1.1)
    beat = live.heartbeat_every()
    try:
        yield live.retry()
        said = await hub.read(now)
        if said is None:
            return
        listener.know(said["version"])
        if since is not None and since < said["version"]:
            yield live.event("change", said, id=said["version"])
        else:
            yield live.heartbeat(said)
        while (left := ends - loop.time()) > 0:
            if not await listener.wait(min(beat, left)):
                if left > beat:
                    yield live.heartbeat(said)
                continue
            if listener.take_check() or reads_every_change:
                latest = await hub.read(now)
                if latest is None:
                    return
                listener.know(latest["version"])
            else:
                latest = {**said, "version": listener.version}
            if latest["version"] > said["version"]:
                said = latest
                yield live.event("change", said, id=said["version"])
    finally:
        hub.unsubscribe(listener)

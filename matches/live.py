"""Live changes: every open event stream of a sheet hears of each change within moments.

A change commits, then one notice goes out (``announce``, called by ``Match._commit``
through ``transaction.on_commit``): on PostgreSQL a ``NOTIFY``, which reaches every
server process of every instance; each process ``LISTEN``s on one connection of its own
and fans the notices out in memory to the streams it holds (``Hub``). SQLite has no
NOTIFY: there the notice goes straight to this process's hub, and the embedded database
is served by one process (bin/serve runs one on SQLite). Nothing else has to run.

A notice says which match changed, its night and its new version. A stream listens to
a topic, a sheet's (``match <id>``) or a night's (``night <id>``, which its watch link
follows), and its own code (``api/events.py``) decides what to send: a stream carries
versions, never what the sheet shows, so the one reading of a sheet stays the one
reading. Between processes, a notice of an entry or a redeal also carries the sheet as
read by that change, so the process whose phones fetch it next need not read it again.
A notice can be lost (the listening connection drops and comes back): then
every ``RESYNC`` seconds one query per process reads the versions of every sheet and
night it holds streams for, and a stream behind is told at once.
"""

import asyncio
import base64
import functools
import hashlib
import json
import logging
import random
import zlib
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor

import django
from django.conf import settings
from django.core import signing
from django.db import close_old_connections, connection, transaction

from . import fragments

CHANNEL = "squarescores"
# In a request's environ: its server sends an asynchronous body (a stream's) from its
# event loop, holding no thread (scoresheet/asgi.py sets it).
STREAMS = "squarescores.streams"
RESYNC = 30.0  # s between the catch-up reads of what this process's streams follow
LISTEN_RETRY = (0.5, 10.0)  # s: the first wait to listen again, and the longest

log = logging.getLogger(__name__)


def heartbeat_every():
    """Seconds between heartbeats on an idle stream (settings.LIVE_HEARTBEAT_MS)."""
    return settings.LIVE_HEARTBEAT_MS / 1000


def match_topic(match_id):
    return ("match", match_id)


def night_topic(night_id):
    return ("night", night_id)


# Announcing a change ------------------------------------------------------------------


def announce(match, *, seats=False):
    """After the transaction under way commits, tell every stream of ``match`` and of
    its night that it is at its new version. ``seats``: who sits at the table changed,
    so a stream checks that its reader may still read it.

    On PostgreSQL the notice also carries the sheet as the change left it, when the
    change read it whole (an entry, a redeal: ``Match.whole_sheet``): the other server
    processes, whose phones fetch that version next, have it from the notice instead
    of reading it from the database (``sheet_in``)."""
    change = {"match": match.pk, "night": match.night_id, "version": match.version, "seats": seats}
    transaction.on_commit(lambda: _send(json.dumps({**change, **_sheet_of(match, change)})))


def announce_topic(topic, version):
    """After the transaction under way commits, tell every stream of ``topic`` (one of
    an app's own, a tournament's say) that it is at ``version``: such a stream reads
    for itself what changed."""
    notice = json.dumps({"topic": list(topic), "version": version})
    transaction.on_commit(lambda: _send(notice))


# The sheet in a notice: the match as read for its sheet, pickled, compressed and signed
# with the SECRET_KEY (only the app's own processes make one), under a salt that names
# the shape of what is pickled, so a process of another release ignores it. PostgreSQL
# takes a payload under 8000 bytes: a longer sheet is read from the database as before.
LARGEST_NOTICE = 7800


@functools.cache
def _sheet_salt():
    from .models import Deal, Event, Match, Night, RevokeNote, Seat, SeatRequest, User

    shapes = [
        f"{model._meta.label}:{','.join(field.attname for field in model._meta.concrete_fields)}"
        for model in (Match, Night, User, Seat, Deal, RevokeNote, Event, SeatRequest)
    ]
    digest = hashlib.sha256(";".join([django.__version__, *shapes]).encode()).hexdigest()
    return f"matches.live.sheet:{digest[:16]}"


def _sheet_of(match, change) -> dict:
    """{"sheet": ...}: ``match`` as the change it announces left it, read whole, for the
    other processes (PostgreSQL only: on SQLite every stream is in this one); or {}.
    The match and the version it is of are signed with it. The reading is kept in this
    process as it is pickled for the notice, once (``fragments.keep_reading``): the
    change's own answer keeps it too, and finds it kept."""
    sheet = match.whole_sheet()
    if connection.vendor != "postgresql" or sheet is None or sheet.version != change["version"]:
        return {}
    packed = base64.b64encode(zlib.compress(fragments.keep_reading(sheet), 1)).decode()
    signed = signing.Signer(salt=_sheet_salt()).sign(f"{sheet.pk}.{sheet.version}.{packed}")
    return {"sheet": signed} if len(signed) < LARGEST_NOTICE - 200 else {}


def sheet_in(signed) -> tuple[int, int, bytes] | None:
    """``(match id, version, the match pickled)`` from a notice's sheet (``_sheet_of``),
    or None if it is not one this release of the app signed. Kept as it comes
    (``fragments.keep_pickled_reading``), it is unpickled only by a fetch that reads it."""
    try:
        value = signing.Signer(salt=_sheet_salt()).unsign(signed)
    except signing.BadSignature:
        return None
    pk, version, packed = value.split(".", 2)
    return int(pk), int(version), zlib.decompress(base64.b64decode(packed))


def _send(notice):
    if connection.vendor != "postgresql":
        hub.deliver_threadsafe(notice)
        return
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_notify(%s, %s)", [CHANNEL, notice])
    except Exception:  # the change is in: the streams catch up at the next resync
        log.exception("A change could not be announced; streams catch up within %ss", RESYNC)


# One process's streams ----------------------------------------------------------------


class Listener:
    """One stream's place in the hub: what it listens to, and the newest it heard."""

    def __init__(self, topics):
        self.topics = topics
        self.version = None  # the newest version heard (a night's: see ``heard``)
        self.check = False  # something changed that the stream must read for itself
        self.woken = asyncio.Event()

    def know(self, version) -> bool:
        """The newest version, as the stream read it for itself: whether it was news."""
        if version is not None and (self.version is None or version > self.version):
            self.version = version
            return True
        return False

    def heard(self, version=None, *, check=False):
        """A notice or a resync: wakes the stream only if there is something to do, a
        version newer than any it heard or read, or a ``check``. (A resync reads every
        sheet a process follows, nearly all of them unchanged: waking each of thousands
        of streams for nothing held the loop up for tens of milliseconds.)"""
        if self.know(version) or check:
            self.check = self.check or check
            self.woken.set()

    async def wait(self, timeout) -> bool:
        """Until something is heard (True) or ``timeout`` seconds pass (False). (No
        task of its own, as wait_for would make: a thousand open streams wait at once.)"""
        try:
            async with asyncio.timeout(timeout):
                await self.woken.wait()
        except TimeoutError:
            return False
        self.woken.clear()
        return True

    def take_check(self) -> bool:
        check, self.check = self.check, False
        return check


class Hub:
    """This process's open streams by topic, and what tells them of changes: the
    listening connection on PostgreSQL, and the resync on any database.

    It lives on the server's event loop (``start``); streams subscribe there, and a
    notice from another thread (SQLite's, after a commit) is handed over to the loop.
    Database reads run in threads of its own, off the loop."""

    def __init__(self):
        self.loop = None
        self.listeners = defaultdict(set)
        self.tasks = []
        self.executor = None
        self.versions = None

    def start(self, versions):
        """Begin on the running loop, with the first stream: the resync, which reads
        with ``versions(match ids, night ids)`` -> ({id: version}, {id: version}), and
        the listening connection on PostgreSQL."""
        if self.loop is not None:
            return
        self.loop = asyncio.get_running_loop()
        self.versions = versions
        self.executor = ThreadPoolExecutor(max_workers=2, thread_name_prefix="live")
        self.tasks.append(self.loop.create_task(self._resync_forever()))
        if connection.vendor == "postgresql":
            self.tasks.append(self.loop.create_task(self._listen_forever()))

    async def stop(self):
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        self.tasks = []
        if self.executor is not None:
            self.executor.shutdown(wait=False)
        self.loop = self.executor = None

    @property
    def running(self) -> bool:
        return self.loop is not None

    def subscribe(self, *topics) -> Listener:
        """A listener of every one of ``topics`` (a tournament's stream hears its own
        and each of its tables' nights)."""
        listener = Listener(topics)
        for topic in topics:
            self.listeners[topic].add(listener)
        return listener

    def unsubscribe(self, listener):
        for topic in listener.topics:
            streams = self.listeners.get(topic)
            if streams is not None:
                streams.discard(listener)
                if not streams:
                    del self.listeners[topic]

    async def read(self, function, *args):
        """``function(*args)``, which reads the database, in one of the hub's threads."""
        return await self.loop.run_in_executor(self.executor, _with_connection, function, *args)

    # Hearing of changes

    def deliver(self, notice):
        """One notice, on the loop: every stream of its match, and of its night."""
        try:
            change = json.loads(notice)
            if "topic" in change:
                for listener in self.listeners.get(tuple(change["topic"]), ()):
                    listener.heard(check=True)
                return
            match, night, version = change["match"], change["night"], change["version"]
            seats = bool(change.get("seats"))
        except (ValueError, KeyError, TypeError):
            log.warning("A notice that says nothing: %r", notice)
            return
        streams = self.listeners.get(match_topic(match), ())
        if streams and "sheet" in change and not fragments.reading_kept(match, version):
            self._keep_sheet(change["sheet"])
        for listener in streams:
            listener.heard(version, check=seats)
        for listener in self.listeners.get(night_topic(night), ()):
            listener.heard(check=True)  # a night's version is the stream's to read

    def _keep_sheet(self, signed):
        """Keep the sheet a notice carries, for this process's phones of that match,
        which fetch it next (``fragments.reading_at``), as it came: pickled (this runs on
        the loop, which unpickling a sheet would hold up for every stream)."""
        carried = sheet_in(signed)
        if carried is None:  # another release's, during a deployment (or not ours at all)
            log.info("A notice with a sheet this release did not sign: read from the database")
        else:
            fragments.keep_pickled_reading(*carried)

    def deliver_threadsafe(self, notice):
        loop = self.loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self.deliver, notice)

    def catch_up(self, matches, nights):
        """The versions read by a resync: {match id: version}, {night id: version}."""
        for match, version in matches.items():
            for listener in self.listeners.get(match_topic(match), ()):
                listener.heard(version)
        for night, version in nights.items():
            for listener in self.listeners.get(night_topic(night), ()):
                # A stream of several topics (a tournament's, of many nights) counts its
                # own version: it reads it again, and says nothing unless it moved.
                many = len(listener.topics) > 1
                if many or listener.version is None or version > listener.version:
                    listener.heard(check=True)

    async def _resync_forever(self):
        while True:
            await asyncio.sleep(RESYNC * random.uniform(0.9, 1.1))
            matches = [key for kind, key in self.listeners if kind == "match"]
            nights = [key for kind, key in self.listeners if kind == "night"]
            if not (matches or nights):
                continue
            try:
                versions = await self.read(self.versions, matches, nights)
            except Exception:
                log.exception("The streams' resync could not read the versions")
                continue
            self.catch_up(*versions)

    async def _listen_forever(self):
        """LISTEN on a connection of the hub's own, for as long as the server runs;
        after a drop, listen again (waiting longer each time), then tell every stream
        to read for itself what it may have missed."""
        import psycopg

        wait = LISTEN_RETRY[0]
        while True:
            try:
                params = await self.read(_listen_params)
                async with await psycopg.AsyncConnection.connect(
                    **params, autocommit=True
                ) as listening:
                    await listening.execute(f"LISTEN {CHANNEL}")
                    wait = LISTEN_RETRY[0]
                    for listeners in list(self.listeners.values()):
                        for listener in listeners:
                            listener.heard(check=True)
                    while True:
                        # Every so often, a query: a connection gone quiet is found out.
                        async for notice in listening.notifies(timeout=RESYNC):
                            self.deliver(notice.payload)
                        await listening.execute("SELECT 1")
            except asyncio.CancelledError:
                raise
            except Exception as problem:
                log.warning("Not listening for changes (%s); again in %.1f s", problem, wait)
                await asyncio.sleep(wait)
                wait = min(wait * 2, LISTEN_RETRY[1])


hub = Hub()


def _with_connection(function, *args):
    """Run a database read in one of the hub's threads: a connection that broke or
    aged is replaced first, as a request's would be."""
    close_old_connections()
    return function(*args)


def _listen_params():
    """The connection parameters of the default database, for psycopg itself."""
    params = connection.get_connection_params()
    for django_only in ("cursor_factory", "context", "prepare_threshold"):
        params.pop(django_only, None)
    return params


def can_stream(request) -> bool:
    """Whether the server of ``request`` can hold a stream open: ours (scoresheet/asgi.py),
    or Django's own ASGI handler (whose requests carry their ASGI ``scope``)."""
    return bool(request.META.get(STREAMS)) or hasattr(request, "scope")


# What goes on the wire ----------------------------------------------------------------

RETRY_MS = 1000  # how soon a browser reconnects after a stream ends


def event(name, data, *, id=None) -> bytes:
    """One Server-Sent Event: its name, its id (what Last-Event-ID sends back), its data."""
    lines = [f"id: {id}"] if id is not None else []
    lines += [f"event: {name}", f"data: {json.dumps(data)}"]
    return ("\n".join(lines) + "\n\n").encode()


def heartbeat(data) -> bytes:
    """What an idle stream sends every ``heartbeat_every()`` seconds: a comment line, which every
    proxy passes, and a ``ping`` a browser can see (it never moves Last-Event-ID)."""
    return b": still here\n" + event("ping", data)


def retry() -> bytes:
    return f"retry: {RETRY_MS}\n\n".encode()

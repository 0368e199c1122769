"""Live changes: every open event stream of a sheet hears of each change within moments.

A change commits, then one notice goes out (``announce``, which listens to the models'
``signals.sheet_changed``): on PostgreSQL a ``NOTIFY``, which reaches every server
process of every instance; each process ``LISTEN``s on one connection of its own and
fans the notices out in memory to the streams it holds (``Hub``). SQLite has no NOTIFY:
there the notice goes straight to this process's hub, and the embedded database is
served by one process (bin/serve runs one on SQLite). Nothing else has to run.

A notice is a hint, in JSON: which match changed, its night and its new version (or
another app's topic), nothing a stranger should not read. A stream believes a version
only once the database shows it: the hub reads the versions of the matches its notices
name, and tells the streams behind them (``Hub.confirm``), so a forged, stale or
garbled notice costs a read and changes nothing. A stream carries versions, never what
the sheet shows, so the one reading of a sheet stays the one reading. A notice can be
lost (the listening connection drops and comes back): then every ``RESYNC`` seconds one
query per process reads the versions of every sheet and night it holds streams for, and
a stream behind is told at once.
"""

import asyncio
import json
import logging
import random
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor

from django.conf import settings
from django.db import close_old_connections, connection, transaction

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


def announce(sender, match, seats=False, **kwargs):
    """``signals.sheet_changed``: once the transaction under way commits, tell every
    stream of ``match`` and of its night that it changed. ``seats``: who sits at the
    table may have changed, so a stream checks that its reader may still read it.

    This process's own streams believe it at once: it committed that version itself."""
    notice = {"match": match.pk, "night": match.night_id, "version": match.version}
    if seats:
        notice["seats"] = True

    def committed():
        hub.committed_threadsafe(match.pk, match.version, seats)
        _send(json.dumps(notice))

    transaction.on_commit(committed)


def announce_topic(sender, topic, version, **kwargs):
    """``signals.topic_changed``: once the transaction under way commits, tell every
    stream of ``topic`` (one of an app's own, a tournament's say) that it changed: such
    a stream reads for itself what did."""
    notice = json.dumps({"topic": list(topic), "version": version})
    transaction.on_commit(lambda: _send(notice))


def _send(notice):
    if connection.vendor != "postgresql":
        hub.deliver_threadsafe(notice)
        return
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_notify(%s, %s)", [CHANNEL, notice])
    except Exception:  # the change is in: the streams catch up at the next resync
        log.exception("A change could not be announced; streams catch up within %ss", RESYNC)


def read_notice(notice) -> dict | None:
    """A notice as ``announce`` or ``announce_topic`` wrote it, its ids and version whole
    numbers; None for anything else."""
    try:
        said = json.loads(notice)
    except ValueError:
        return None
    if not isinstance(said, dict):
        return None
    if "topic" in said:
        topic = said["topic"]
        valid = isinstance(topic, list) and len(topic) == 2 and isinstance(topic[0], str)
        return {"topic": (topic[0], topic[1])} if valid and _whole(topic[1]) else None
    numbers = [said.get(name) for name in ("match", "night", "version")]
    if not all(_whole(number) for number in numbers) or not isinstance(
        said.get("seats", False), bool
    ):
        return None
    return {
        **dict(zip(("match", "night", "version"), numbers, strict=True)),
        "seats": said.get("seats", False),
    }


def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


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
        """A version the database shows, or a ``check``: wakes the stream only if there
        is something to do, a version newer than any it heard or read, or the check (a
        resync reads every sheet a process follows, nearly all of them unchanged)."""
        if self.know(version) or check:
            self.check = self.check or check
            self.woken.set()

    async def wait(self, timeout) -> bool:
        """Until something is heard (True) or ``timeout`` seconds pass (False), with no
        task of its own, as wait_for would make: thousands of streams wait at once."""
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
        self.unconfirmed = {}  # match id -> whether its streams check their readers too
        self.confirming = None  # the task reading them

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
        tasks = [*self.tasks, *([self.confirming] if self.confirming else [])]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self.tasks, self.unconfirmed, self.confirming = [], {}, None
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
        """One notice, on the loop. The streams of its night, or of its topic, read for
        themselves what changed; those of its match are told the version the database
        shows (``confirm``), unless each of them has it already."""
        change = read_notice(notice)
        if change is None:
            log.warning("A notice that is not one of ours: %r", notice[:200])
            return
        if "topic" in change:
            for listener in self.listeners.get(change["topic"], ()):
                listener.heard(check=True)
            return
        for listener in self.listeners.get(night_topic(change["night"]), ()):
            listener.heard(check=True)  # a night's version is the stream's to read
        match = change["match"]
        streams = self.listeners.get(match_topic(match), ())
        # Each stream has the version already (this process's own change, say): nothing
        # to read. A stream told of it had its reader checked then, or read it itself.
        known = all(listener.version is not None and listener.version >= change["version"]
                    for listener in streams)  # fmt: skip
        if streams and not known:
            self.unconfirmed[match] = self.unconfirmed.get(match, False) or change["seats"]
            if self.confirming is None or self.confirming.done():
                self.confirming = self.loop.create_task(self.confirm())

    async def confirm(self):
        """Read the versions of the matches notices named (all those heard meanwhile,
        in one read) and tell their streams; a notice of seats has them check too."""
        while self.unconfirmed:
            named, self.unconfirmed = self.unconfirmed, {}
            try:
                versions, _nights = await self.read(self.versions, list(named), [])
            except Exception:
                log.exception("The versions of the changes heard could not be read")
                return  # the resync catches up
            for match, check in named.items():
                version = versions.get(match)
                for listener in self.listeners.get(match_topic(match), ()):
                    # A match gone: its streams read for themselves, and end.
                    listener.heard(version, check=check or version is None)

    def committed(self, match, version, seats):
        """On the loop: a change this process committed, at ``version``."""
        for listener in self.listeners.get(match_topic(match), ()):
            listener.heard(version, check=seats)

    def committed_threadsafe(self, match, version, seats):
        loop = self.loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self.committed, match, version, seats)

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

"""One step of the tables mix with push: every phone holds its sheet's event stream, and
fetches the sheet only when the stream tells of a change, as the pages do.

Before the step, every phone opens its stream (the URL in the page's sse-connect), on a
connection of its own, and keeps it for the whole step; its fetches go on its keep-alive
connection. Every ENTRY_EVERY seconds a table (--tables-entry-every), one phone of the
side whose turn it is enters 0 games through the API (ties, so the rubber never ends),
as in the poll mix (bench/play.py). Each phone that hears of a change it does not show
fetches the sheet with the ETag it holds, as static/app.js does: the phone that tapped
has its change from its answer, and one told of a change while its tap is on its way
asks only after the answer, if still behind.

Timed by kind: fetch-200, fetch-304, entry, and the delivery (from the entry sent to
the event heard, on each phone: the push's own latency); and how late the client's own
event loop runs, which every one of those times holds. Counted: streams that fail or
end before the step does. The server's memory is read before the streams open and with
them open: what a stream costs.
"""

import asyncio
import json
import random
import time

from bench.client import Connection, Failed, fetch_sheet, handed_back, set_aside
from bench.cpu import cores, cpu_now, rss_now
from bench.play import ENTRY_EVERY, enter
from bench.report import DELIVERY_LIMIT_MS

# How often the client looks at how late its own event loop runs: a loop held up by its
# thousands of streams would add its delay to every time it takes, the server's blame.
LAG_EVERY = 0.01  # s


class Stream:
    """One phone's event stream: a connection of its own, read event by event."""

    def __init__(self, port, phone):
        self.port, self.phone = port, phone
        self.reader = self.writer = None

    async def open(self, timeout=30.0):
        self.reader, self.writer = await asyncio.wait_for(
            asyncio.open_connection("127.0.0.1", self.port, local_addr=(self.phone.address, 0)),
            timeout,
        )
        head = (
            f"GET {self.phone.events} HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: {self.phone.cookie}"
            "\r\nAccept: text/event-stream\r\n\r\n"
        )
        self.writer.write(head.encode())
        await self.writer.drain()
        answer = await asyncio.wait_for(self.reader.readuntil(b"\r\n\r\n"), timeout)
        status = int(answer.split(b" ", 2)[1])
        if status != 200:
            raise Failed(f"the stream answered {status}")

    async def events(self):
        """Each event as (name, data): the chunked body's lines, grouped by blank lines."""
        fields = {}
        buffer = b""
        while True:
            size = await self.reader.readuntil(b"\r\n")
            size = int(size.split(b";")[0], 16)
            chunk = await self.reader.readexactly(size + 2)
            if size == 0:
                return
            buffer += chunk[:-2]
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                if not line:
                    if "event" in fields:
                        yield fields["event"], json.loads(fields.get("data", "null"))
                    fields = {}
                elif not line.startswith(b":"):
                    name, _colon, value = line.decode().partition(":")
                    fields[name] = value.removeprefix(" ")

    def close(self):
        if self.writer is not None:
            self.writer.close()


async def open_streams(port, tables, concurrency=32):
    """Every phone's stream, open and heard from (its first event), before the step."""
    limit = asyncio.Semaphore(concurrency)
    streams = {}

    async def open_one(phone):
        async with limit:
            stream = Stream(port, phone)
            await stream.open()
            streams[id(phone)] = stream

    await asyncio.gather(*(open_one(phone) for table in tables for phone in table.phones))
    return streams


async def play(port, tables, warmup, duration, seed, servers=(), entry_every=ENTRY_EVERY):
    """Every table plays for warmup + duration seconds on open streams, an entry every
    ``entry_every`` seconds a table; what started in the last ``duration`` seconds is
    measured."""
    rng = random.Random(seed)
    loop = asyncio.get_running_loop()
    counters = {"connections": 0, "reconnects": 0}
    rss_before = rss_now(servers[:1])
    streams = await open_streams(port, tables)
    rss_open = rss_now(servers[:1])
    connections = {
        id(phone): Connection(port, counters, phone.address) for t in tables for phone in t.phones
    }
    latencies = {"fetch-200": [], "fetch-304": [], "entry": []}
    delivery = []
    problems = {}
    measured = {"bad": 0, "failed": 0, "streams_lost": 0, "changes": 0, "fetching": 0}
    begin = loop.time() + 0.2
    start, end = begin + warmup, begin + warmup + duration
    sent = {}  # table -> (version before its entry, when the entry was sent)

    def problem(what):
        problems[what] = problems.get(what, 0) + 1

    acting = {}  # phone -> the newest version told of while its tap is on its way

    def shows(phone):
        """The version the phone's sheet is at: its ETag's (0 before it has one)."""
        return int(phone.etag.strip('"').split("-", 1)[0]) if phone.etag else 0

    async def fetch(phone, counted):
        measured["fetching"] += 1
        try:
            kind, status, took = await fetch_sheet(connections[id(phone)], phone, problem, "fetch")
        finally:
            measured["fetching"] -= 1
        if counted:
            if kind:
                latencies[kind].append(took)
            else:
                measured["bad" if status else "failed"] += 1

    async def listen(phone):
        stream = streams[id(phone)]
        try:
            async for name, data in stream.events():
                if name != "change":
                    continue
                now = loop.time()
                counted = now >= start
                entry = sent.get(phone.table.match)
                if counted and entry and data["version"] > entry[0]:
                    delivery.append(time.perf_counter() - entry[1])
                if phone in acting:
                    acting[phone] = max(acting[phone], data["version"])
                elif data["version"] > shows(phone):
                    await fetch(phone, counted)
        except (OSError, asyncio.IncompleteReadError, ValueError) as failure:
            if loop.time() < end:
                problem(f"stream: {type(failure).__name__}")
        if loop.time() < end:
            measured["streams_lost"] += 1

    async def table_loop(table):
        when = begin + rng.uniform(0, entry_every)
        while when < end:
            await asyncio.sleep(max(0.0, when - loop.time()))

            def leaving(began, phone, table=table):
                sent[table.match] = (table.version, began)
                acting[phone] = 0

            status, took, phone, match = await enter(
                port, table, connections, rng, problem, sent=leaving
            )
            told = acting.pop(phone, 0)
            if match is not None:
                table.version = match["version"]
                # The page morphs in the sheet its tap answered, with its ETag.
                phone.etag = '"{}-{}'.format(match["version"], phone.etag.split("-", 1)[1])
            if told > shows(phone):
                await fetch(phone, when >= start)
            if when >= start:
                if status == 201:
                    latencies["entry"].append(took)
                    measured["changes"] += 1
                else:
                    measured["bad" if status else "failed"] += 1
            when += entry_every

    cpu = {}

    async def cpu_meter():
        await asyncio.sleep(max(0.0, start - loop.time()))
        cpu["start"] = cpu_now(servers)
        await asyncio.sleep(max(0.0, end - loop.time()))
        cpu["end"] = cpu_now(servers)

    lag = []  # s: how late this client's loop woke for a timer, over the measured seconds

    async def lag_meter():
        await asyncio.sleep(max(0.0, start - loop.time()))
        while (asked := loop.time()) < end:
            await asyncio.sleep(LAG_EVERY)
            lag.append(loop.time() - asked - LAG_EVERY)

    listeners = [asyncio.ensure_future(listen(phone)) for table in tables for phone in table.phones]
    try:
        await asyncio.gather(
            cpu_meter(), lag_meter(), set_aside(begin), *(table_loop(table) for table in tables)
        )
        # The step's last changes heard, and every fetch they caused answered, before the
        # streams close: thousands closing at once hold the server's event loops for a
        # few hundred ms, and with them the fetches still under way, which are timed.
        await asyncio.sleep(DELIVERY_LIMIT_MS / 1000)
        while measured["fetching"]:
            await asyncio.sleep(0.01)
        for stream in streams.values():
            stream.close()
        await asyncio.gather(*listeners, return_exceptions=True)
        for connection in connections.values():
            connection.close()
    finally:
        handed_back()
    streams_open = len(streams)
    return {
        "mix": "push",
        "tables": len(tables),
        "seconds": duration,
        "latencies": latencies,
        "delivery": delivery,
        "streams": streams_open,
        "streams_lost": measured["streams_lost"],
        "changes": measured["changes"],
        "client_lag": lag,
        "bad": measured["bad"],
        "failed": measured["failed"],
        "problems": problems,
        "rss_before": rss_before,
        "rss_open": rss_open,
        **cores(cpu["start"], cpu["end"]),  # in cores
        **counters,
    }

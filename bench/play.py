"""One step of the tables mix: every table plays for a while, and what it cost is timed.

Each phone polls its sheet every POLL_EVERY seconds with the ETag it holds (304 while
nothing changed, the new fragment and ETag after a change), and every ENTRY_EVERY
seconds a table (--tables-entry-every) one phone of the side whose turn it is enters 0
games through the API: ties, deal after deal, so the rubber never ends. Phones and
tables start at random offsets so they never act in step. Every request is timed by kind
(poll-304, poll-200, entry); what went wrong is counted, warm-up included.
"""

import asyncio
import json
import random
import time
import uuid

from bench.client import Connection, Failed, fetch_sheet, handed_back, set_aside
from bench.cpu import cores, cpu_now

POLL_EVERY = 2.0  # s, as the sheet polls (SHEET_POLL_MS, 2000 by default)
ENTRY_EVERY = 30.0  # s per table


async def play(port, tables, warmup, duration, seed, servers=(), entry_every=ENTRY_EVERY):
    """Every table plays for warmup + duration seconds, an entry every ``entry_every``
    seconds a table; what started in the last ``duration`` seconds is measured."""
    rng = random.Random(seed)
    loop = asyncio.get_running_loop()
    counters = {"connections": 0, "reconnects": 0}
    connections = {
        id(phone): Connection(port, counters, phone.address) for t in tables for phone in t.phones
    }
    latencies = {"poll-304": [], "poll-200": [], "entry": []}
    problems = {}  # what went wrong (status or failure) -> how many, measured or not
    measured = {"polls": 0, "bad": 0, "failed": 0, "late": []}
    begin = loop.time() + 0.2
    start, end = begin + warmup, begin + warmup + duration

    def problem(what):
        problems[what] = problems.get(what, 0) + 1

    async def phone_loop(phone):
        connection = connections[id(phone)]
        tick = begin + rng.uniform(0, POLL_EVERY)  # phones don't poll in step
        while tick < end:
            await asyncio.sleep(max(0.0, tick - loop.time()))
            counted = tick >= start

            def sending(counted=counted, tick=tick):
                if counted:
                    measured["polls"] += 1
                    measured["late"].append(loop.time() - tick)

            kind, status, took = await fetch_sheet(connection, phone, problem, "poll", sending)
            if counted:
                if kind:
                    latencies[kind].append(took)
                else:
                    measured["bad" if status else "failed"] += 1
                    latencies.setdefault("failed", []).append(took)
            tick += POLL_EVERY
            while tick < loop.time():  # a poll still going at the next tick: htmx drops it
                tick += POLL_EVERY

    async def table_loop(table):
        when = begin + rng.uniform(0, entry_every)  # tables don't enter in step
        while when < end:
            await asyncio.sleep(max(0.0, when - loop.time()))
            status, took, _phone, _match = await enter(port, table, connections, rng, problem)
            if when >= start:
                if status == 201:
                    latencies["entry"].append(took)
                else:
                    measured["bad" if status else "failed"] += 1
                    latencies.setdefault("failed", []).append(took)
            when += entry_every

    tasks = [phone_loop(phone) for table in tables for phone in table.phones]
    tasks += [table_loop(table) for table in tables]
    cpu = {}

    async def cpu_meter():  # who used the CPUs over the measured seconds
        await asyncio.sleep(max(0.0, start - loop.time()))
        cpu["start"] = cpu_now(servers)
        await asyncio.sleep(max(0.0, end - loop.time()))
        cpu["end"] = cpu_now(servers)

    try:
        await asyncio.gather(cpu_meter(), set_aside(begin), *tasks)
        for connection in connections.values():
            connection.close()
    finally:
        handed_back()
    return {
        "tables": len(tables),
        "seconds": duration,
        "latencies": latencies,
        "polls": measured["polls"],
        "late": measured["late"],
        "bad": measured["bad"],
        "failed": measured["failed"],
        "problems": problems,
        **cores(cpu["start"], cpu["end"]),  # in cores
        **counters,
    }


async def enter(port, table, connections, rng, problem, sent=None):
    """One phone of the side whose turn it is enters 0 games: ties, 0 for side a, then 0
    for side b. A deal a minute, so a table reaches the sheet's most deals
    (rules.MAX_DEALS, 99) only after some 100 minutes. (status or None, seconds, the
    phone, the match as answered or None); ``sent(began, phone)`` is told when it leaves. After
    a refusal or no answer, the table's step is read again."""
    side = "ab"[table.step % 2]
    phone = rng.choice([phone for phone in table.phones if phone.side == side])
    connection = connections[id(phone)]
    body = json.dumps({"deal": table.step // 2 + 1, "side": side, "games": 0}).encode()
    headers = {
        "Authorization": f"Token {phone.token}",
        "Content-Type": "application/json",
        # A fresh key with every tap, as the phones send (the same on a resend).
        "Idempotency-Key": uuid.uuid4().hex,
    }
    path = f"/api/matches/{table.match}/entries/"
    async with connection.lock:
        began = time.perf_counter()
        if sent is not None:
            sent(began, phone)
        try:
            status, _headers, answer = await connection.request("POST", path, headers, body)
        except Failed as failure:
            status, answer = None, b""
            problem(f"entry: {failure}")
        took = time.perf_counter() - began
    if status == 201:
        match = json.loads(answer)
        table.step = entered(match)
        return status, took, phone, match
    if status is not None:
        problem(f"entry: {status} {answer[:120]!r}")
    await resync(port, table, phone)
    return status, took, phone, None


def entered(match):
    """How many cells of the sheet are filled, from the API's view of the match."""
    return sum((deal["a"] is not None) + (deal["b"] is not None) for deal in match["deals"])


async def resync(port, table, phone):
    """After a refused or lost entry, where the table's sheet really is (not measured, and
    on a connection of its own: the phone's may be polling meanwhile)."""
    connection = Connection(port, {"connections": 0, "reconnects": 0}, phone.address)
    try:
        status, _headers, answer = await connection.request(
            "GET", f"/api/matches/{table.match}/", {"Authorization": f"Token {phone.token}"}
        )
    except Failed:
        return
    finally:
        connection.close()
    if status == 200:
        table.step = entered(json.loads(answer))

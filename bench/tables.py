"""The tables mix: how many real tables does the server hold?

Real tables instead of one kind of request at a time: each table is a match with four
seated phones, and every 30 s or so one of them makes an entry. With push (the pages'
way, bench/push.py plays a step), each phone holds its sheet's event stream and fetches
the sheet when it hears of a change; with polls (``--mix poll``, bench/play.py), each
phone polls every 2 s and fetches the new fragment after a change. The number of tables
steps up, then is bisected, within --tables-budget seconds; the most tables held is the
result. Held is judged here (``judge``).
"""

import asyncio
import time

from bench import play, push, report
from bench.client import Unplayable, open_phones
from bench.cpu import rss_now
from bench.data import prepare_tables
from bench.play import POLL_EVERY
from bench.report import DELIVERY_LIMIT_MS, percentile


def search(port, args, threads, servers):
    """Step the number of tables up (doubling) until p99 or errors give, then bisect,
    within --tables-budget seconds all told; report the most tables held."""
    began = time.monotonic()
    tables = []
    results = {}
    held = failed = None
    count = args.tables_start
    trial = 0
    report.tables_plan(args)
    played = push.play if args.mix == "push" else play.play
    baseline = rss_now(servers[:1])  # the server's memory before any table opened
    making = 0.05  # s to make and open a table, measured as it goes
    stop = "max"
    while count and count not in results:
        # A step costs its warm-up and measure, a pause, and making the tables it adds.
        cost = args.tables_warmup + args.tables_duration + 1 + making * max(0, count - len(tables))
        if results and time.monotonic() - began + cost > args.tables_budget:
            print(f"(stopped by --tables-budget {args.tables_budget:g} s; next would be {count})")
            stop = "budget"
            break
        step_began = time.monotonic()
        added = count - len(tables)
        if added > 0:
            add_tables(port, tables, added)
            making = (time.monotonic() - step_began) / added
        ready = time.monotonic()
        trial += 1
        result = asyncio.run(
            played(
                port,
                tables[:count],
                args.tables_warmup,
                args.tables_duration,
                trial,
                servers,
                entry_every=args.tables_entry_every,
            )
        )
        result["rss_baseline"] = baseline
        judge(result, args.tables_p99)
        results[count] = result
        report.tables_step(count, ready - step_began, result)
        time.sleep(1)  # let the server finish what a step that fell behind left queued
        if result["held"]:
            held = count
        else:
            failed = count
        if failed is None:
            # Double while far from the limit, then step more carefully: each table
            # tried costs its making, and an overshoot costs a step.
            factor = 2 if result["p99_ms"] < 0.4 * args.tables_p99 else 1.25
            count = min(max(count + 1, round(count * factor)), args.tables_max)
        else:
            low = held or 0
            if failed - low <= max(args.tables_resolution, low // 10):
                break
            count = (low + failed) // 2
    report.tables_result(results, held, failed, stop, args, threads, time.monotonic() - began)
    return held


def add_tables(port, tables, added):
    """``added`` more tables, made in the database and their phones opened on the server
    (not measured: a step times only its play)."""
    from django.db import connections

    tables.extend(prepare_tables(added, len(tables)))
    connections.close_all()
    try:
        asyncio.run(open_phones(port, tables))
    except Unplayable as problem:
        raise SystemExit(f"tables: {problem}") from None


def judge(result, limit_ms):
    """Held: p99 of all requests under the limit, no error, and the client kept up (with
    polls, it sent them on time; with push, every stream stayed open and every change
    was heard within DELIVERY_LIMIT_MS)."""
    every = [x for values in result["latencies"].values() for x in values]
    result["p50_ms"] = percentile(every, 50)
    result["p99_ms"] = percentile(every, 99)
    result["errors"] = result["bad"] + result["failed"]
    reasons = []
    if not result["p99_ms"] < limit_ms:
        reasons.append(f"p99 {result['p99_ms']:.0f} ms")
    if result["errors"]:
        reasons.append(f"{result['errors']} errors")
    if result.get("mix") == "push":
        result["delivery_p99_ms"] = percentile(result["delivery"], 99)
        if result["streams_lost"]:
            reasons.append(f"{result['streams_lost']} streams lost")
        if not result["delivery_p99_ms"] < DELIVERY_LIMIT_MS:
            reasons.append(f"delivery p99 {result['delivery_p99_ms']:.0f} ms")
    else:
        ideal = 4 * result["tables"] / POLL_EVERY
        result["poll_rate"] = result["polls"] / result["seconds"]
        result["ideal_rate"] = ideal
        if result["poll_rate"] < 0.9 * ideal:
            reasons.append(f"client behind: {result['poll_rate']:.0f} of {ideal:.0f} polls/s")
    result["held"] = not reasons
    result["verdict"] = "held" if not reasons else "NOT held: " + ", ".join(reasons)
    if result["other_cpu"] > 0.2:  # e.g. tests running beside the bench
        result["verdict"] += f" (others busy: {result['other_cpu']:.2f} cores)"
    return result

"""How much does each kind of request cost, next to the least a request can cost?
And how many real tables do 2 workers hold?

Starts the production server, bin/serve (gunicorn, 2 workers, production settings), on
PostgreSQL, prepares a match, and loads from 127.0.0.1, one target after the other, for
a few seconds each:

    control     GET  /bench/ok/                 a bare HttpResponse("ok"), bench setup only
    poll        GET  /matches/<id>/sheet/       the phone's poll, nothing changed: 304
    fragment    GET  /matches/<id>/sheet/       the poll after a change: the sheet fragment
    entry       POST /api/matches/<id>/entries/ a deal's games, with an API token
    write       POST /bench/write/<id>/         the least an entry can cost, bench setup only
    calculator  POST /api/calculator/           cards to games

and prints requests/s, p50 and p99 for each, and its throughput as a ratio to
the control measured in the same run (the control runs before and after each
target; the mean of the two is the reference). Absolute numbers depend on the
machine; the ratios are the result. Goals: poll >= 0.4, fragment >= 0.15,
calculator >= 0.5; the entry has none, its cost is reported beside the least entry's.

The least entry (write) goes through the API's own stack, token and JSON body, and does
in one transaction what no entry can do without: it locks the match's row, bumps its
version and writes an event, then announces the change (a NOTIFY); it checks no rule,
writes no deal, and reads and answers no sheet. It has no goal: its ratio is the most an
entry could reach on this machine, and the bench says how near the entry comes to it.

The fragment is asked for again and again by one phone with a stale ETag: after its
first render it comes from the kept fragments (matches/fragments.py), as it does for
a second phone of the same person or every watch screen of a link. With --servers the
runs go first on gunicorn's threaded WSGI workers (bin/serve before it held streams)
and on Django's own ASGI handler under bin/serve's uvicorn workers, then on bin/serve,
each ratio against its own control, and the tables too (polling on the first two,
which hold no streams): what the switch costs or gains.

Then the tables mix: a table is a match with four seated phones (Ana hosts, three
join), each with its own session and API token. Each phone loads the sheet page
once, takes the poll URL from the element that polls (hx-trigger "every ...") and the
event stream from its sse-connect, and fetches the sheet once for its ETag. With push
(the default, the pages' way: bench/push.py), each phone holds its stream open and
fetches the sheet with If-None-Match when it hears of a change; with --mix poll (the
fallback: bench/play.py), each polls every 2 s (304 while nothing changed; after a
change, 200 and the new ETag). Every 30 s a table (--tables-entry-every; tables start at
random offsets) one phone of the side whose turn it is enters 0 games through the API,
with a fresh Idempotency-Key as the phones send: ties, deal after deal, so the rubber
never ends.
An asyncio client keeps one keep-alive connection a phone (and its stream), each phone
connecting from a loopback address of its own (127.1.0.1 onwards), and times every
request by kind. The number of tables steps up and is then bisected, each step 5
s of warm-up and 20 s measured, within --tables-budget seconds (180), and the bench
reports the most tables held: p99 of all requests under 100 ms, no answer other than
2xx/304 and none missing, and the client keeping up (with push: no stream lost and
every change heard on the phones within 500 ms at p99; with polls: within 10% of the
ideal poll rate, 4 phones x tables / 2 s), so that a client falling behind is never
taken for a server keeping up. It prints, for that step, requests/s, p50 and p99 by
kind, the server's memory with the streams open, and the CPU the client, the server,
its busiest worker (whose Python runs on one core at a time) and the rest of the
machine used (with push, the server's a change too, and how late the client's own event
loop ran: a delay every time it took holds).

    .venv/bin/python bench/load.py                 # its own PostgreSQL cluster
    .venv/bin/python bench/load.py --only tables   # the tables mix alone
    .venv/bin/python bench/load.py --servers --only poll fragment entry calculator
    .venv/bin/python bench/load.py --servers --only tables --mix poll
    DATABASE_URL=postgres://... .venv/bin/python bench/load.py --duration 10

The load comes from wrk (apt-get install wrk) when it is installed, else from
a Python generator (threads, keep-alive connections), which costs the machine
more CPU of its own and so flatters the ratios: prefer wrk. Every run is bounded
(--duration seconds per target) and talks to 127.0.0.1 only. With DATABASE_URL
the bench migrates that database and adds its rows to it: give it a scratch one.

Where things are: this file reads the command line and runs the parts in order;
bench/stack.py starts PostgreSQL and the server; bench/data.py writes the rows the load
needs; bench/ratios.py runs the targets against the control, with the load generators of
bench/generators.py (wrk, Python); bench/tables.py searches for the most tables held,
each step played by bench/push.py (or bench/play.py) over the asyncio client of
bench/client.py (CPU and memory measured by bench/cpu.py); bench/report.py prints the
results; bench/asgi.py is Django's own ASGI handler, for --servers.
"""

import argparse
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a script: the project's packages, bench's included

from bench import ratios, stack, tables  # noqa: E402
from bench.data import prepare_ratios  # noqa: E402
from bench.play import ENTRY_EVERY  # noqa: E402
from bench.ratios import TARGETS  # noqa: E402


def parser():
    """The command line; ``arguments()`` reads it."""
    command_line = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    command_line.add_argument("--duration", type=int, default=3, help="seconds per run")
    command_line.add_argument("--warmup", type=int, default=1, help="seconds before each")
    command_line.add_argument(
        "--rounds", type=int, default=3, help="each target's median is reported"
    )
    command_line.add_argument("--connections", type=int, default=8)
    command_line.add_argument("--threads", type=int, default=2, help="gunicorn threads per worker")
    command_line.add_argument("--tool", choices=("wrk", "python"), default=None)
    command_line.add_argument(
        "--servers",
        action="store_true",
        help="the runs on gunicorn's threaded WSGI workers and Django's ASGI handler too, "
        "then on bin/serve, one after the other in this run (their tables poll)",
    )
    command_line.add_argument(
        "--only",
        nargs="*",
        choices=[*TARGETS, "tables"],
        help="run only these targets (the ratio targets with the control), or tables",
    )
    group = command_line.add_argument_group("the tables mix")
    group.add_argument(
        "--mix",
        choices=("push", "poll"),
        default="push",
        help="phones that hold their sheet's event stream (push, the pages' way), or that "
        "poll every 2 s (poll, the fallback)",
    )
    group.add_argument("--tables-duration", type=float, default=20, help="seconds measured a step")
    group.add_argument("--tables-warmup", type=float, default=5, help="seconds before each")
    group.add_argument(
        "--tables-budget", type=float, default=180, help="seconds for the whole search, at most"
    )
    group.add_argument("--tables-start", type=int, default=100, help="tables in the first step")
    group.add_argument(
        "--tables-entry-every",
        type=float,
        default=ENTRY_EVERY,
        help="seconds between a table's entries",
    )
    group.add_argument("--tables-max", type=int, default=3200, help="tables tried at most")
    group.add_argument(
        "--tables-resolution",
        type=int,
        default=5,
        help="bisect until held and not held are this close (or 10%%)",
    )
    group.add_argument("--tables-p99", type=float, default=100, help="the p99 limit, ms")
    return command_line


def arguments(argv=None):
    """The options read from ``argv`` (the command line's by default); without --tool,
    wrk when it is installed, else the Python generator."""
    args = parser().parse_args(argv)
    if args.tool is None:
        args.tool = "wrk" if shutil.which("wrk") else "python"
    return args


def main(argv=None):
    args = arguments(argv)
    chosen = [name for name in args.only or TARGETS if name != "tables"]
    playing = not args.only or "tables" in args.only
    others = [kind for kind in stack.SERVERS if kind != "bin/serve"] if args.servers else []
    with stack.database() as database:
        for kind in [*others, "bin/serve"]:
            if chosen:
                per_connection = max(20, 20 * args.duration)  # a few deals a match at most
                data = prepare_ratios(args.connections, per_connection, args.rounds + 1)
            with stack.gunicorn(database, args.threads, kind) as server:
                if others:
                    print(f"\n{kind}:")
                if chosen:
                    ratios.run(server, args, data, chosen)
                if playing:
                    # The other servers hold no streams: their tables poll.
                    mix = args.mix if kind == "bin/serve" else "poll"
                    played = argparse.Namespace(**{**vars(args), "mix": mix})
                    servers = stack.server_pids(server, database)
                    tables.search(server.port, played, args.threads, servers)


if __name__ == "__main__":
    main()

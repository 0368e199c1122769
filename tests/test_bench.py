"""The benchmarks stay runnable: every bench module imports, and bench/load.py's command
line keeps the options README.md's "Benchmark" section documents, with their defaults.

Nothing here starts the app's server: the benches themselves run, small, in
test_bench_pages.py, test_bench_load.py and test_bench_lighthouse.py. The client is
checked here against a stand-in that answers as the sheet's pages do.
"""

import importlib
import os
import signal
import subprocess
import sys
import time

import pytest

MODULES = [
    "bench.load",
    "bench.stack",
    "bench.data",
    "bench.ratios",
    "bench.generators",
    "bench.client",
    "bench.play",
    "bench.cpu",
    "bench.tables",
    "bench.report",
    "bench.pages",
    "bench.lighthouse",
    "bench.ratings",
    "bench.clubs",
    "bench.settings",
    "bench.urls",
]


@pytest.mark.parametrize("name", MODULES)
def test_each_bench_module_imports(name):
    importlib.import_module(name)


def test_the_documented_options_are_read():
    from bench.load import arguments

    command = [
        "--rounds", "1", "--duration", "2", "--only", "poll", "calculator",
        "--tables-budget", "20", "--tables-duration", "3", "--tables-start", "10",
        "--tool", "python",
    ]  # fmt: skip
    args = arguments(command)
    assert (args.rounds, args.duration, args.only) == (1, 2, ["poll", "calculator"])
    assert (args.tables_budget, args.tables_duration, args.tables_start) == (20, 3, 10)
    assert args.tool == "python"


def test_the_defaults_are_the_ones_documented():
    from bench.load import arguments

    args = arguments(["--tool", "wrk"])
    assert args.only is None  # every target, then the tables
    assert (args.rounds, args.duration, args.warmup) == (3, 3, 1)
    assert (args.connections, args.threads) == (8, 2)
    assert (args.tables_start, args.tables_warmup, args.tables_duration) == (100, 5, 20)
    assert (args.tables_budget, args.tables_p99, args.tables_max) == (180, 100, 3200)
    assert args.tables_entry_every == 30
    assert (args.mix, args.servers) == ("push", False)  # the pages' way, on bin/serve


def test_only_offers_every_target_and_the_tables():
    from bench.load import arguments

    for name in ["poll", "fragment", "entry", "write", "calculator", "tables"]:
        assert arguments(["--only", name]).only == [name]
    with pytest.raises(SystemExit):
        arguments(["--only", "nothing"])


def test_help_lists_every_option(capsys):
    from bench.load import parser

    with pytest.raises(SystemExit) as stopped:
        parser().parse_args(["--help"])
    assert stopped.value.code == 0
    shown = capsys.readouterr().out
    for option in [
        "--duration", "--warmup", "--rounds", "--connections", "--threads", "--tool", "--only",
        "--tables-duration", "--tables-warmup", "--tables-budget", "--tables-start",
        "--tables-max", "--tables-resolution", "--tables-p99", "--tables-entry-every",
    ]:  # fmt: skip
        assert option in shown


@pytest.mark.urls("bench.urls")
def test_the_least_entry_locks_bumps_writes_and_announces(
    match, ana, request, django_capture_on_commit_callbacks
):
    """What no entry can do without, through the API's own stack: the token and body
    read, the version bumped and an event written in one transaction, then the notice."""
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    from matches import signals
    from matches.models import Event

    sent = []

    def heard(sender, match, seats, **kwargs):
        sent.append((match.pk, match.night_id, match.version, seats))

    signals.sheet_changed.connect(heard)
    request.addfinalizer(lambda: signals.sheet_changed.disconnect(heard))
    client = APIClient(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=ana).key}")
    before, events = match.version, match.events.count()
    body = {"deal": 1, "side": "a", "games": 0}
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/bench/write/{match.pk}/", body, format="json")
    assert response.status_code == 201
    assert response.json() == {"version": before + 1}
    match.refresh_from_db()
    assert match.version == before + 1
    written = match.events.latest("pk")
    assert (written.action, written.by, written.after) == (Event.ENTRY, ana, body)
    assert match.events.count() == events + 1
    assert sent == [(match.pk, match.night_id, before + 1, False)]
    # Without the token: refused, and nothing changes.
    assert APIClient().post(f"/bench/write/{match.pk}/", body, format="json").status_code == 401
    match.refresh_from_db()
    assert (match.version, match.events.count()) == (before + 1, events + 1)
    # No such match: not found, and nothing written.
    total = Event.objects.count()
    assert client.post("/bench/write/999999/", body, format="json").status_code == 404
    assert Event.objects.count() == total


def test_the_ratios_set_the_entry_beside_the_least_entry(capsys):
    """Neither has a goal; the report says how near the entry comes to the least entry,
    and what each costs the machine."""
    from bench.report import ratios

    def rounds(rps):
        return [{"rps": rps, "p50_ms": 1.0, "p99_ms": 2.0, "control": 6000.0,
                 "ratio": rps / 6000, "errors": 0, "bad": 0}]  # fmt: skip

    control = {"rps": 6000.0, "p50_ms": 1.0, "p99_ms": 2.0}
    goals = {"entry": None, "write": None}
    ratios({"entry": rounds(240.0), "write": rounds(720.0)}, [control, control], goals, 2)
    shown = capsys.readouterr().out
    assert "no goal: its cost is what it reads and writes" in shown
    assert "no goal: the least an entry can cost" in shown
    assert "An entry runs at 0.33 of the least an entry can cost" in shown
    assert "which is 0.12 of the control" in shown
    assert "costs the machine 8.3 and 2.8 ms of a core (2 cores" in shown


def push_step_shown(capsys, **measured):
    """What the report prints of one push step that held, with ``measured`` in it."""
    from argparse import Namespace

    from bench.report import tables_result

    step = {
        "mix": "push", "tables": 100, "seconds": 20, "changes": 80, "server_cpu": 0.6,
        "client_cpu": 0.1, "other_cpu": 0.0, "busiest_worker_cpu": 0.35,
        "latencies": {"fetch-200": [12.0], "entry": [20.0]},
        "delivery": [15.0], "streams": 400, "streams_lost": 0, "bad": 0, "failed": 0,
        "problems": {}, "rss_baseline": 0, "rss_before": 0, "rss_open": 0, "connections": 400,
        "reconnects": 0, "verdict": "held", "client_lag": [0.001], **measured,
    }  # fmt: skip
    tables_result({100: step}, 100, None, "max", Namespace(tables_p99=100, tables_max=100), 2, 30)
    return capsys.readouterr().out


def test_a_push_step_reports_what_a_change_cost_the_server(capsys):
    """The figure two runs compare by, whatever their number of tables: the server's
    CPU over the measured seconds, shared among the changes made in them."""
    shown = push_step_shown(capsys, changes=80, server_cpu=0.6, seconds=20)
    assert "The server spent 150.0 ms of a core a change" in shown


def test_a_push_step_reports_its_busiest_worker(capsys):
    """A worker's Python runs on one core at a time: the busiest worker, not the
    machine, is full first, and the step says how near it came."""
    shown = push_step_shown(capsys, busiest_worker_cpu=0.82)
    assert "The busiest worker used 0.82 of a core" in shown


def test_the_cores_each_part_used_between_two_readings():
    from bench.cpu import Usage, cores

    start = Usage(
        at=10.0, client=1.0, server=5.0, machine=20.0, workers={11: 2.0, 12: 2.0, 13: 1.0}
    )
    # Worker 13 was replaced meanwhile (gunicorn restarts a worker that dies): left out.
    end = Usage(at=20.0, client=2.0, server=15.0, machine=35.0, workers={11: 6.0, 12: 9.0, 14: 3.0})
    assert cores(start, end) == pytest.approx(
        {"client_cpu": 0.1, "server_cpu": 1.0, "other_cpu": 0.4, "busiest_worker_cpu": 0.7}
    )


@pytest.mark.skipif(not os.path.exists("/proc/stat"), reason="reads Linux's /proc")
def test_the_workers_are_the_servers_children_with_their_own_cpu():
    """As gunicorn's workers are its children: a process that keeps a busy child, read
    twice; the child's CPU is counted as a worker's, and with the server's."""
    from bench.cpu import cores, cpu_now

    busy = "import time\nend = time.monotonic() + 30\nwhile time.monotonic() < end: pass"
    keeper = (
        "import subprocess, sys, time\n"
        f"subprocess.Popen([sys.executable, '-c', {busy!r}])\n"
        "time.sleep(30)"
    )
    server = subprocess.Popen([sys.executable, "-c", keeper])
    try:
        deadline = time.monotonic() + 10
        while not (start := cpu_now([server.pid])).workers and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)
        end = cpu_now([server.pid])
    finally:
        for pid in start.workers:
            os.kill(pid, signal.SIGKILL)
        server.kill()
        server.wait()
    assert len(start.workers) == 1, start
    used = cores(start, end)
    assert 0.2 < used["busiest_worker_cpu"] <= 1.05, used  # a core of its own at most
    assert used["server_cpu"] >= used["busiest_worker_cpu"] - 0.05, used


def test_a_push_step_reports_how_late_the_client_itself_ran(capsys):
    """Every time the client takes holds its own event loop's delay: shown beside them,
    so that a client held up by its thousands of streams is not taken for the server."""
    shown = push_step_shown(capsys, client_lag=[0.0005] * 197 + [0.004, 0.004, 0.009])
    assert "Client: its event loop p99 4.0 ms late (at most 9.0 ms)" in shown


def sheet_server(heard):
    """A stand-in for the server where a phone opens its sheet: each request's head, with
    the address it came from, goes into ``heard``; the sheet answers with an ETag, and
    anything else with the sheet page, which sets a CSRF cookie."""
    import asyncio

    async def answer(reader, writer):
        address = writer.get_extra_info("peername")[0]
        while not reader.at_eof():
            try:
                head = (await reader.readuntil(b"\r\n\r\n")).decode()
            except asyncio.IncompleteReadError:
                break
            heard.append((head, address))
            if " /matches/7/sheet/" in head:
                extra, body = 'ETag: "3-x"\r\n', "<div></div>"
            else:
                extra = "Set-Cookie: csrftoken=Secret7; Path=/; SameSite=Lax\r\n"
                body = '<div hx-get="/matches/7/sheet/" hx-trigger="every 2000ms"></div>'
            message = f"HTTP/1.1 200 OK\r\n{extra}Content-Length: {len(body)}\r\n\r\n{body}"
            writer.write(message.encode())
            await writer.drain()
        writer.close()

    return answer


def test_a_phone_keeps_the_cookies_its_sheet_page_sets():
    """As a browser does: the CSRF cookie set with the sheet page goes with every later
    request of the phone. Without it, each fetch made the phone a new CSRF secret and set
    it again, work a real phone never asks of the server."""
    import asyncio

    from bench.client import open_phones
    from bench.data import Phone, Table

    heard = []

    async def play():
        server = await asyncio.start_server(sheet_server(heard), "127.0.0.1", 0)
        table = Table(7, [])
        table.phones.append(Phone(table, "a1", "sessionid=s1", "token"))
        async with server:
            await open_phones(server.sockets[0].getsockname()[1], [table])
        return table.phones[0]

    phone = asyncio.run(play())
    assert phone.cookie == "sessionid=s1; csrftoken=Secret7"
    page, fetch = (head for head, _address in heard)
    assert "Cookie: sessionid=s1\r\n" in page
    assert "Cookie: sessionid=s1; csrftoken=Secret7\r\n" in fetch


def test_the_client_sets_aside_what_it_holds_once_a_step_is_under_way():
    """Its full collections walked its thousands of phones, streams and connections, or
    with those set aside, what the step made since. Each such walk held every phone at
    once, and what they had to send reached the server together, as no tables of phones
    send. So none comes until the step ends, and then everything goes back."""
    import asyncio
    import gc

    from bench.client import handed_back, set_aside

    held = [[] for _ in range(10_000)]
    thresholds = gc.get_threshold()

    async def step():
        await set_aside(asyncio.get_running_loop().time())
        return gc.get_freeze_count(), gc.get_threshold()

    try:
        set_aside_count, during = asyncio.run(step())
    finally:
        handed_back()
    assert set_aside_count >= len(held)
    assert during[:2] == thresholds[:2] and during[2] > 10**6  # the young still collected
    assert gc.get_freeze_count() == 0
    assert gc.get_threshold() == thresholds


def test_each_phone_connects_from_an_address_of_its_own():
    """As every real phone has its own. From 127.0.0.1 alone, the thousands of phones'
    connections and streams to the server's one port took most of that address's
    ephemeral ports, and the kernel's search for a free one cost the client a third of a
    core for seconds at a time, which the server's answers waited for."""
    import asyncio

    from bench.client import open_phones, phone_address
    from bench.data import Phone, Table
    from bench.push import Stream

    assert [phone_address(n) for n in (0, 1, 253, 254, 254 * 256)] == [
        "127.1.0.1",
        "127.1.0.2",
        "127.1.0.254",
        "127.1.1.1",
        "127.2.0.1",
    ]
    heard = []

    async def play():
        server = await asyncio.start_server(sheet_server(heard), "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        table = Table(7, [])
        for number, position in enumerate(("a1", "b1")):
            address = phone_address(number)
            table.phones.append(Phone(table, position, f"sessionid=s{number}", "t", address))
        async with server:
            await open_phones(port, [table])
            table.phones[1].events = "/api/matches/7/events/"
            stream = Stream(port, table.phones[1])
            await stream.open()
            stream.close()

    asyncio.run(play())
    assert sorted((head.split(" ")[1], address) for head, address in heard) == [
        ("/api/matches/7/events/", "127.1.0.2"),
        ("/matches/7/", "127.1.0.1"),
        ("/matches/7/", "127.1.0.2"),
        ("/matches/7/sheet/", "127.1.0.1"),
        ("/matches/7/sheet/", "127.1.0.2"),
    ]

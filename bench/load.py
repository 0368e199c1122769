"""How much does each kind of request cost, next to the least a request can cost?

Starts gunicorn (2 workers, production settings) on PostgreSQL, prepares a
match, and loads from 127.0.0.1, one target after the other, for a few seconds
each:

    control     GET  /bench/ok/                 a bare HttpResponse("ok"), bench setup only
    poll        GET  /matches/<id>/sheet/       the phone's poll, nothing changed: 304
    fragment    GET  /matches/<id>/sheet/       the poll after a change: the sheet fragment
    entry       POST /api/matches/<id>/entries/ a deal's games, with an API token
    calculator  POST /api/calculator/           cards to games

and prints requests/s, p50 and p99 for each, and its throughput as a ratio to
the control measured in the same run (the control runs first and last; its mean
is the reference). Absolute numbers depend on the machine; the ratios are the
result. Targets: poll >= 0.5, fragment >= 0.25, entry >= 0.15, calculator >= 0.5.

    .venv/bin/python bench/load.py                 # its own PostgreSQL cluster
    DATABASE_URL=postgres://... .venv/bin/python bench/load.py --duration 10

The load comes from wrk (apt-get install wrk) when it is installed, else from
a Python generator (threads, keep-alive connections), which costs the machine
more CPU of its own and so flatters the ratios: prefer wrk. Every run is bounded
(--duration seconds per target) and talks to 127.0.0.1 only. With DATABASE_URL
the bench migrates that database and adds its rows to it: give it a scratch one.
"""

import argparse
import http.client
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from html import unescape as html_unescape
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.servers import Cluster, Gunicorn, production_env  # noqa: E402

TARGETS = {"poll": 0.5, "fragment": 0.25, "entry": 0.15, "calculator": 0.5}
SEATS = {"a1": "Ana", "a2": "Rui", "b1": "Zé", "b2": "Maria"}
CARDS = {"cards": {"aces": 3, "sevens": 2, "kings": 1, "jacks": 2, "queens": 1}}


def arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=int, default=3, help="seconds per run")
    parser.add_argument("--warmup", type=int, default=1, help="seconds before each")
    parser.add_argument("--rounds", type=int, default=3, help="each target's median is reported")
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--threads", type=int, default=4, help="gunicorn threads per worker")
    parser.add_argument("--tool", choices=("wrk", "python"), default=None)
    parser.add_argument("--only", nargs="*", help="run only these targets (and the control)")
    args = parser.parse_args()
    if args.tool is None:
        args.tool = "wrk" if shutil.which("wrk") else "python"
    return args


# The data -------------------------------------------------------------------------------


def prepare(connections, per_connection, runs):
    """Ana hosts a match five deals in with a note (the sheet the phones poll) and, for
    the entries, enough empty matches that each connection has its own rotation."""
    from django.test import Client
    from rest_framework.authtoken.models import Token

    from matches.models import Match, User

    people = {}
    for username, name in (("ana", "Ana"), ("rui", "Rui"), ("ze", "Zé"), ("maria", "Maria")):
        people[username] = User.objects.create_user(username=f"{username}-{time.time_ns()}")
        people[username].display_name = name
        people[username].save()
    ana = people["ana"]
    sheet = Match.objects.start(ana, SEATS, host_seat="a1")
    for user, position in ((people["rui"], "a2"), (people["ze"], "b1"), (people["maria"], "b2")):
        sheet.join(user, token=sheet.join_token, position=position)
    # Won 1, won 2, a tie, then 2 (one game and the tie's extra): 3-2, deal 5 to come.
    for number, entries in enumerate([[("a", 1)], [("b", 2)], [("a", 0), ("b", 0)], [("a", 2)]]):
        for side, games in entries:
            sheet.record(ana, deal=number + 1, side=side, games=games)
    sheet.add_note(people["ze"], side="a", text="Rui revoked in deal 2: two games off")
    browser = Client()
    browser.force_login(ana)
    # Fresh matches for each run (warm-up and measured), a rotation for each connection.
    pools = [
        [
            [Match.objects.start(ana, SEATS, host_seat="a1").pk for _ in range(per_connection)]
            for _ in range(connections)
        ]
        for _ in range(runs)
    ]
    return {
        "sheet": sheet.pk,
        "cookie": f"sessionid={browser.cookies['sessionid'].value}",
        "token": Token.objects.create(user=ana).key,
        "pools": pools,
        "spare": Match.objects.start(ana, SEATS, host_seat="a1").pk,
    }


def one(port, method, path, headers=None, body=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request(
            method, path, body=body, headers={"Host": "127.0.0.1", **(headers or {})}
        )
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def targets(port, data):
    """Each target as (method, path, headers, body, the status it must answer)."""
    html = {"Cookie": data["cookie"], "HX-Request": "true"}
    status, _headers, page = one(
        port, "GET", f"/matches/{data['sheet']}/", {"Cookie": data["cookie"]}
    )
    assert status == 200, status
    # The poll URL exactly as the page gives it to htmx (it carries the viewer's signature).
    sheet = html_unescape(re.search(rb'hx-get="([^"]*/sheet/[^"]*)"', page).group(1).decode())
    status, headers, _body = one(port, "GET", sheet, html)
    assert status == 200, status
    etag = headers["ETag"]
    version, rest = etag.strip('"').split("-", 1)
    stale = f'"{int(version) - 1}-{rest}"'  # what a phone holds after someone's entry
    api = {"Authorization": f"Token {data['token']}", "Content-Type": "application/json"}
    return {
        "control": ("GET", "/bench/ok/", {}, None, 200),
        "poll": ("GET", sheet, {**html, "If-None-Match": etag}, None, 304),
        "fragment": ("GET", sheet, {**html, "If-None-Match": stale}, None, 200),
        "entry": ("POST", None, api, None, 201),
        "calculator": ("POST", "/api/calculator/", api, json.dumps(CARDS), 200),
    }


# Load: wrk ---------------------------------------------------------------------------

DONE = """
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH {"requests": %d, "seconds": %f, "p50_ms": %f, "p99_ms": %f, "errors": %d, "bad": %d}\\n',
    summary.requests, summary.duration / 1e6, latency:percentile(50) / 1000,
    latency:percentile(99) / 1000, e.connect + e.read + e.write + e.timeout, e.status))
end
"""

ENTRY = """
local pools = {%(pools)s}
local token = "%(token)s"
local n = 0
function setup(thread)
  n = n + 1
  thread:set("ids", table.concat(pools[n], ","))
end
function init(args)
  pool = {}
  for id in string.gmatch(ids, "%%d+") do table.insert(pool, {id = id, step = 0}) end
  cursor = 1
end
-- Ties, deal after deal: 0 for side a, then 0 for side b, each match in turn.
function request()
  local m = pool[cursor]
  local body = string.format('{"deal": %%d, "side": "%%s", "games": 0}',
    math.floor(m.step / 2) + 1, m.step %% 2 == 0 and "a" or "b")
  return wrk.format("POST", "/api/matches/" .. m.id .. "/entries/",
    {["Authorization"] = "Token " .. token, ["Content-Type"] = "application/json"}, body)
end
function response(status, headers, body)
  if status == 201 then pool[cursor].step = pool[cursor].step + 1 end
  cursor = cursor %% #pool + 1
end
"""


def lua_string(value):
    return json.dumps(value)  # a JSON string is a valid Lua string literal for our values


def run_wrk(port, name, target, data, seconds, connections):
    method, path, headers, body, _status = target
    if name == "entry":
        pools = ", ".join("{" + ", ".join(map(str, pool)) + "}" for pool in data["pools"].pop())
        script = ENTRY % {"pools": pools, "token": data["token"]} + DONE
        path = "/"
    else:
        lines = [f"wrk.method = {lua_string(method)}"]
        lines += [f"wrk.headers[{lua_string(k)}] = {lua_string(v)}" for k, v in headers.items()]
        if body:
            lines.append(f"wrk.body = {lua_string(body)}")
        script = "\n".join(lines) + DONE
    with tempfile.NamedTemporaryFile("w", suffix=".lua") as file:
        file.write(script)
        file.flush()
        command = [
            "wrk", "-t", str(connections), "-c", str(connections), "-d", f"{seconds}s",
            "--timeout", "10s", "-s", file.name, f"http://127.0.0.1:{port}{path}",
        ]  # fmt: skip
        result = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 60)
    line = next((x for x in result.stdout.splitlines() if x.startswith("BENCH ")), None)
    if line is None:
        raise RuntimeError(f"wrk said:\n{result.stdout}\n{result.stderr}")
    return json.loads(line.removeprefix("BENCH "))


# Load: Python --------------------------------------------------------------------------


def run_python(port, name, target, data, seconds, connections):
    method, path, headers, body, _status = target
    deadline = time.monotonic() + seconds
    latencies, errors, bad = [], [0], [0]
    lock = threading.Lock()
    pools = data["pools"].pop() if name == "entry" else None

    def work(index):
        pool = [[match, 0] for match in pools[index]] if pools else []
        cursor = 0
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        mine, my_errors, my_bad = [], 0, 0
        while time.monotonic() < deadline:
            my_path, my_body = path, body
            if name == "entry":
                match, step = pool[cursor]
                my_path = f"/api/matches/{match}/entries/"
                my_body = json.dumps({"deal": step // 2 + 1, "side": "ab"[step % 2], "games": 0})
            started = time.perf_counter()
            try:
                connection.request(method, my_path, body=my_body, headers=headers)
                response = connection.getresponse()
                response.read()
            except OSError:
                my_errors += 1
                connection.close()
                continue
            mine.append(time.perf_counter() - started)
            if response.status >= 400:
                my_bad += 1
            if name == "entry":
                if response.status == 201:
                    pool[cursor][1] += 1
                cursor = (cursor + 1) % len(pool)
        connection.close()
        with lock:
            latencies.extend(mine)
            errors[0] += my_errors
            bad[0] += my_bad

    started = time.monotonic()
    workers = [threading.Thread(target=work, args=(i,)) for i in range(connections)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=seconds + 30)
    elapsed = time.monotonic() - started
    latencies.sort()

    def percentile(p):
        return latencies[min(len(latencies) - 1, int(len(latencies) * p / 100))] * 1000

    return {
        "requests": len(latencies),
        "seconds": elapsed,
        "p50_ms": percentile(50),
        "p99_ms": percentile(99),
        "errors": errors[0],
        "bad": bad[0],
    }


# The run -----------------------------------------------------------------------------


def check(port, name, target, data):
    """One request first: each target must answer what it is meant to measure."""
    method, path, headers, body, status = target
    if name == "entry":
        path = f"/api/matches/{data['spare']}/entries/"
        body = json.dumps({"deal": 1, "side": "a", "games": 0})
    got, _headers, answer = one(port, method, path, headers, body)
    if got != status:
        raise SystemExit(f"{name}: expected {status}, got {got}: {answer[:300]!r}")


def main():
    args = arguments()
    cluster = None
    database = os.environ.get("DATABASE_URL")
    static = tempfile.mkdtemp(prefix="squarescores-bench-static-")
    server = None
    try:
        if not database:
            print("Starting a PostgreSQL cluster of its own ...", flush=True)
            cluster = Cluster()
            database = cluster.url
        env = production_env(
            database,
            DJANGO_SETTINGS_MODULE="bench.settings",
            BENCH_STATIC_ROOT=static,
            RATE_LIMIT_GUEST="",
            RATE_LIMIT_LOGIN="",
            LOG_LEVEL="ERROR",
        )
        os.environ.update(env)  # this process prepares the data with the server's settings
        import django
        from django.core.management import call_command

        django.setup()
        call_command("migrate", verbosity=0, interactive=False)
        call_command("collectstatic", verbosity=0, interactive=False)
        per_connection = max(20, 20 * args.duration)  # each match a few deals long at most
        data = prepare(args.connections, per_connection, args.rounds + 1)
        from django.db import connections

        connections.close_all()

        server = Gunicorn(database, workers=2, threads=args.threads, env=env).wait_ready()
        plan = targets(server.port, data)
        chosen = list(args.only or TARGETS)
        for name in ["control", *chosen]:
            check(server.port, name, plan[name], data)
        run = run_wrk if args.tool == "wrk" else run_python
        print(
            f"gunicorn: 2 workers x {args.threads} threads; load: {args.tool}, "
            f"{args.connections} connections, {args.duration:g} s a run "
            f"after {args.warmup:g} s of warm-up\n",
            flush=True,
        )

        def measure(name, warmup):
            if warmup:
                run(server.port, name, plan[name], data, warmup, args.connections)
            result = run(server.port, name, plan[name], data, args.duration, args.connections)
            result["rps"] = result["requests"] / result["seconds"]
            return result

        # The control runs before and after every target, and each target is set
        # against the mean of its two neighbours, so a machine that slows down (or
        # speeds up) during the run moves both sides of each ratio alike. The whole
        # cycle runs --rounds times, and each target reports its median round.
        controls = [measure("control", args.warmup)]
        rounds = {name: [] for name in chosen}
        for round_ in range(args.rounds):
            for name in chosen:
                result = measure(name, args.warmup if round_ == 0 else 0)
                controls.append(measure("control", 0))
                result["control"] = (controls[-2]["rps"] + controls[-1]["rps"]) / 2
                result["ratio"] = result["rps"] / result["control"]
                rounds[name].append(result)
        report(rounds, controls)
    finally:
        if server:
            server.stop()
        if cluster:
            cluster.stop()
        shutil.rmtree(static, ignore_errors=True)


def report(rounds, controls):
    print(f"{'target':<12}{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'control':>9}{'ratio':>8}"
          f"{'rounds':>15}{'goal':>7}  result")  # fmt: skip
    first = controls[0]
    print(f"{'control':<12}{first['rps']:>9.0f}{first['p50_ms']:>9.2f}{first['p99_ms']:>9.2f}")
    for name, results in rounds.items():
        ratios = sorted(result["ratio"] for result in results)
        median = sorted(results, key=lambda result: result["ratio"])[len(results) // 2]
        goal = TARGETS[name]
        verdict = "met" if median["ratio"] >= goal else "MISSED"
        errors = sum(result["errors"] for result in results)
        bad = sum(result["bad"] for result in results)
        if errors or bad:
            verdict += f" ({errors} errors, {bad} 4xx/5xx)"
        spread = f"{ratios[0]:.2f}-{ratios[-1]:.2f}"
        print(
            f"{name:<12}{median['rps']:>9.0f}{median['p50_ms']:>9.2f}{median['p99_ms']:>9.2f}"
            f"{median['control']:>9.0f}{median['ratio']:>8.2f}{spread:>15}{goal:>7}  {verdict}"
        )
    rates = [control["rps"] for control in controls]
    print(
        f"\nThe control ran {len(rates)} times, between {min(rates):.0f} and {max(rates):.0f} "
        "req/s. Each ratio is against the mean of the control runs just before and after "
        "it; the median round is shown, with the range over all rounds."
    )


if __name__ == "__main__":
    main()

"""How much does each kind of request cost, next to the least a request can cost?
And how many real tables do 2 workers hold?

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
result. Goals: poll >= 0.5, fragment >= 0.10, entry >= 0.10, calculator >= 0.5.

Then the tables mix: a table is a match with four seated phones (Ana hosts, three
join), each with its own session and API token. Each phone loads the sheet page
once, takes the poll URL from the element that polls (hx-trigger "every ..."), polls
it once for its ETag, then every 2 s with If-None-Match (304 while nothing changed;
after a change, 200 and the new ETag). Every 30 s a table (tables start at random
offsets) one phone of the side whose turn it is enters 0 games through the API, with
a fresh Idempotency-Key as the phones send: ties, deal after deal, so the rubber
never ends. An asyncio client keeps one keep-alive connection a phone and times
every request by kind (poll-304, poll-200, entry). The number of tables steps up and
is then bisected, each step 5 s of warm-up and 20 s measured, within --tables-budget
seconds (180), and the bench reports the most tables held: p99 of all requests under
100 ms, no answer other than 2xx/304 and none missing, and the client within 10% of
the ideal poll rate (4 phones x tables / 2 s), so that a client falling behind is
never taken for a server keeping up. It prints, for that step, requests/s, p50 and
p99 by kind, and the CPU the client, the server and the rest of the machine used.

    .venv/bin/python bench/load.py                 # its own PostgreSQL cluster
    .venv/bin/python bench/load.py --only tables   # the tables mix alone
    DATABASE_URL=postgres://... .venv/bin/python bench/load.py --duration 10

The load comes from wrk (apt-get install wrk) when it is installed, else from
a Python generator (threads, keep-alive connections), which costs the machine
more CPU of its own and so flatters the ratios: prefer wrk. Every run is bounded
(--duration seconds per target) and talks to 127.0.0.1 only. With DATABASE_URL
the bench migrates that database and adds its rows to it: give it a scratch one.
"""

import argparse
import asyncio
import http.client
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from html import unescape as html_unescape
from html.parser import HTMLParser
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.servers import Cluster, Gunicorn, production_env  # noqa: E402

TARGETS = {"poll": 0.5, "fragment": 0.10, "entry": 0.10, "calculator": 0.5}
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
    parser.add_argument(
        "--only",
        nargs="*",
        choices=[*TARGETS, "tables"],
        help="run only these targets (the ratio targets with the control), or tables",
    )
    tables = parser.add_argument_group("the tables mix")
    tables.add_argument("--tables-duration", type=float, default=20, help="seconds measured a step")
    tables.add_argument("--tables-warmup", type=float, default=5, help="seconds before each")
    tables.add_argument(
        "--tables-budget", type=float, default=180, help="seconds for the whole search, at most"
    )
    tables.add_argument("--tables-start", type=int, default=100, help="tables in the first step")
    tables.add_argument("--tables-max", type=int, default=3200, help="tables tried at most")
    tables.add_argument(
        "--tables-resolution",
        type=int,
        default=5,
        help="bisect until held and not held are this close (or 10%%)",
    )
    tables.add_argument("--tables-p99", type=float, default=100, help="the p99 limit, ms")
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


# The tables mix ----------------------------------------------------------------------
#
# Real tables instead of one kind of request at a time: each table is a match with four
# seated phones, each phone polls the sheet every 2 s, and every 30 s or so one of them
# makes an entry, after which all four polls fetch the new fragment. The bench looks for
# the most tables 2 workers hold with p99 under the limit.

POLL_EVERY = 2.0  # s, as the sheet polls (SHEET_POLL_MS, 2000 by default)
ENTRY_EVERY = 30.0  # s per table
PLAYERS = (("ana", "Ana", "a1"), ("rui", "Rui", "a2"), ("ze", "Zé", "b1"), ("maria", "Maria", "b2"))


class Phone:
    """One seated player's browser: its session, its API token, its poll URL and ETag."""

    def __init__(self, table, position, cookie, token):
        self.table, self.position = table, position
        self.side = position[0]
        self.cookie, self.token = cookie, token
        self.poll = self.etag = None


class Table:
    def __init__(self, match, phones):
        self.match = match
        self.phones = phones
        self.step = 0  # cells entered so far: deal step // 2 + 1, side a on even steps


def prepare_tables(count, first):
    """``count`` more tables: a match each with its own four players (Ana hosts, the others
    join), each player logged in (a session) and holding an API token."""
    from rest_framework.authtoken.models import Token

    from matches.models import Match, User

    stamp = time.time_ns()
    users = []
    for number in range(first, first + count):
        for username, name, _position in PLAYERS:
            user = User(username=f"table{number}-{username}-{stamp}", display_name=name)
            user.set_unusable_password()
            users.append(user)
    User.objects.bulk_create(users)
    tokens = Token.objects.bulk_create(Token(user=user, key=Token.generate_key()) for user in users)
    cookies = log_in(users)
    tables = []
    for index in range(count):
        seated = users[4 * index : 4 * index + 4]
        match = Match.objects.start(seated[0], SEATS, host_seat="a1")
        for user, (_username, _name, position) in zip(seated[1:], PLAYERS[1:], strict=True):
            match.join(user, token=match.join_token, position=position)
        table = Table(match.pk, [])
        for token, cookie, (_username, _name, position) in zip(
            tokens[4 * index : 4 * index + 4],
            cookies[4 * index : 4 * index + 4],
            PLAYERS,
            strict=True,
        ):
            table.phones.append(Phone(table, position, cookie, token.key))
        tables.append(table)
    return tables


def log_in(users):
    """A session cookie for each user: the session force_login() writes, all in one INSERT
    (force_login itself, one user at a time, when sessions are not in the database)."""
    from datetime import timedelta
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.test import Client
    from django.utils import timezone
    from django.utils.crypto import get_random_string

    store = import_module(settings.SESSION_ENGINE).SessionStore
    cookie = settings.SESSION_COOKIE_NAME
    if not hasattr(store, "get_model_class"):
        cookies = []
        for user in users:
            browser = Client()
            browser.force_login(user)
            cookies.append(f"{cookie}={browser.cookies[cookie].value}")
        return cookies
    backend = settings.AUTHENTICATION_BACKENDS[0]
    expires = timezone.now() + timedelta(seconds=settings.SESSION_COOKIE_AGE)
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"  # as the session backends' keys
    sessions = [
        store.get_model_class()(
            session_key=get_random_string(32, alphabet),
            session_data=store().encode(
                {
                    SESSION_KEY: str(user.pk),
                    BACKEND_SESSION_KEY: backend,
                    HASH_SESSION_KEY: user.get_session_auth_hash(),
                }
            ),
            expire_date=expires,
        )
        for user in users
    ]
    store.get_model_class().objects.bulk_create(sessions)
    return [f"{cookie}={session.session_key}" for session in sessions]


class PollFinder(HTMLParser):
    """The hx-get of the element that polls (hx-trigger "every ..."), unescaped."""

    def __init__(self):
        super().__init__()
        self.found = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if (
            self.found is None
            and "every" in (attrs.get("hx-trigger") or "")
            and attrs.get("hx-get")
        ):
            self.found = attrs["hx-get"]


class Failed(Exception):
    """A request that got no answer: the connection failed or it timed out."""


class Unplayable(Exception):
    """A phone cannot sit at its table: no sheet page, no poll URL in it, no ETag."""


class Connection:
    """One phone's keep-alive HTTP/1.1 connection, one request at a time.

    gunicorn closes a connection idle for its keep-alive time (2 s, the poll's own
    period), so a request on a reused connection that the server closed meanwhile is
    sent again once on a new connection, as browsers do; ``reconnects`` counts those.
    """

    def __init__(self, port, counters):
        self.port = port
        self.counters = counters
        self.reader = self.writer = None
        self.lock = asyncio.Lock()

    def close(self):
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None

    async def request(self, method, path, headers, body=b"", timeout=10.0):
        """(status, headers with lower-case names, body); raises Failed."""
        try:
            return await asyncio.wait_for(self._request(method, path, headers, body), timeout)
        except TimeoutError:  # before OSError, of which it is one
            self.close()
            raise Failed(f"no answer in {timeout:g} s") from None
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError) as e:
            self.close()
            raise Failed(f"{type(e).__name__}: {e}") from None

    async def _request(self, method, path, headers, body):
        lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1"]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        if body:
            lines.append(f"Content-Length: {len(body)}")
        message = ("\r\n".join(lines) + "\r\n\r\n").encode() + body
        for attempt in range(2):
            fresh = self.writer is None or self.reader.at_eof() or self.writer.is_closing()
            if fresh:
                self.close()
                self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
                self.counters["connections"] += 1
            try:
                self.writer.write(message)
                await self.writer.drain()
                head = await self.reader.readuntil(b"\r\n\r\n")
            except (ConnectionError, asyncio.IncompleteReadError):
                self.close()
                if fresh or attempt:
                    raise
                self.counters["reconnects"] += 1
                continue
            break
        status_line, *header_lines = head[:-4].decode("latin-1").split("\r\n")
        status = int(status_line.split(" ", 2)[1])
        answer = {}
        for line in header_lines:
            name, _colon, value = line.partition(":")
            answer[name.strip().lower()] = value.strip()
        if status == 304 or status < 200 or method == "HEAD":
            content = b""
        elif "content-length" in answer:
            content = await self.reader.readexactly(int(answer["content-length"]))
        elif answer.get("transfer-encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16)
                chunks.append(await self.reader.readexactly(size + 2))
                if size == 0:
                    break
            content = b"".join(chunk[:-2] for chunk in chunks)
        else:  # the body runs to the end of the connection
            content = await self.reader.read()
            self.close()
        if answer.get("connection", "").lower() == "close":
            self.close()
        return status, answer, content


def poll_headers(phone):
    headers = {"Cookie": phone.cookie, "HX-Request": "true"}
    if phone.etag:
        headers["If-None-Match"] = phone.etag
    return headers


async def open_phones(port, tables, concurrency=4):
    """Each new phone loads its sheet page once, finds the poll URL in it, and polls
    once without an ETag for the ETag it then holds (not measured)."""
    counters = {"connections": 0, "reconnects": 0}
    limit = asyncio.Semaphore(concurrency)

    async def open_one(phone):
        async with limit:
            connection = Connection(port, counters)
            try:
                page = f"/matches/{phone.table.match}/"
                status, _headers, body = await connection.request(
                    "GET", page, {"Cookie": phone.cookie}
                )
                if status != 200:
                    raise Unplayable(f"GET {page} answered {status}: {body[:300]!r}")
                finder = PollFinder()
                finder.feed(body.decode())
                if not finder.found:
                    raise Unplayable(
                        f"the sheet page GET {page} has no element with an hx-get and "
                        'an hx-trigger of "every ...": the poll URL cannot be found (did the '
                        "page's markup change? see PollFinder in bench/load.py)"
                    )
                phone.poll = finder.found
                status, headers, body = await connection.request(
                    "GET", phone.poll, poll_headers(phone)
                )
                if status != 200 or not headers.get("etag"):
                    raise Unplayable(
                        f"the first poll GET {phone.poll} answered {status} "
                        f"with ETag {headers.get('etag')!r}: {body[:300]!r}"
                    )
                phone.etag = headers["etag"]
            except Failed as failure:
                raise Unplayable(
                    f"opening a phone of match {phone.table.match}: {failure}"
                ) from None
            finally:
                connection.close()

    await asyncio.gather(
        *(open_one(phone) for table in tables for phone in table.phones if phone.poll is None)
    )


def cpu_now(servers):
    """CPU seconds so far: (this process, the server processes with all their
    descendants, the whole machine busy). Linux's /proc; zeros elsewhere."""
    try:
        with open("/proc/stat") as file:
            values = [int(x) for x in file.readline().split()[1:9]]
    except OSError:
        return 0.0, 0.0, 0.0
    tick = os.sysconf("SC_CLK_TCK")
    machine = sum(values) - values[3] - values[4]  # all but idle and iowait
    parents, used = {}, {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as file:
                    text = file.read()
            except OSError:  # gone meanwhile
                continue
            fields = text[text.rindex(")") + 2 :].split()
            parents[int(entry)] = int(fields[1])
            used[int(entry)] = int(fields[11]) + int(fields[12])  # utime + stime
    tree = {pid for pid in servers if pid in used}
    while True:
        more = {pid for pid, parent in parents.items() if parent in tree} - tree
        if not more:
            break
        tree |= more
    tree.discard(os.getpid())
    return used.get(os.getpid(), 0) / tick, sum(used[pid] for pid in tree) / tick, machine / tick


async def play(port, tables, warmup, duration, seed, servers=()):
    """Every table plays for warmup + duration seconds; what started in the last
    ``duration`` seconds is measured."""
    rng = random.Random(seed)
    loop = asyncio.get_running_loop()
    counters = {"connections": 0, "reconnects": 0}
    connections = {id(phone): Connection(port, counters) for t in tables for phone in t.phones}
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
            async with connection.lock:
                sent = time.perf_counter()
                if counted:
                    measured["polls"] += 1
                    measured["late"].append(loop.time() - tick)
                try:
                    status, headers, _body = await connection.request(
                        "GET", phone.poll, poll_headers(phone)
                    )
                except Failed as failure:
                    status, headers = None, {}
                    problem(f"poll: {failure}")
                took = time.perf_counter() - sent
            if status == 304:
                kind = "poll-304"
            elif status == 200 and headers.get("etag"):
                kind = "poll-200"
                phone.etag = headers["etag"]
            else:
                kind = None
                if status is not None:
                    problem(f"poll: {status}")
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
        when = begin + rng.uniform(0, ENTRY_EVERY)  # tables don't enter in step
        while when < end:
            await asyncio.sleep(max(0.0, when - loop.time()))
            # Ties: 0 for side a, then 0 for side b. A deal a minute, so a table reaches
            # the sheet's most deals (rules.MAX_DEALS, 99) only after some 100 minutes.
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
                sent = time.perf_counter()
                try:
                    status, _headers, answer = await connection.request("POST", path, headers, body)
                except Failed as failure:
                    status, answer = None, b""
                    problem(f"entry: {failure}")
                took = time.perf_counter() - sent
            if status == 201:
                table.step = entered(json.loads(answer))
            else:
                if status is not None:
                    problem(f"entry: {status} {answer[:120]!r}")
                await resync(port, table, phone)
            if when >= start:
                if status == 201:
                    latencies["entry"].append(took)
                else:
                    measured["bad" if status else "failed"] += 1
                    latencies.setdefault("failed", []).append(took)
            when += ENTRY_EVERY

    tasks = [phone_loop(phone) for table in tables for phone in table.phones]
    tasks += [table_loop(table) for table in tables]
    cpu = {}

    async def cpu_meter():  # who used the CPUs over the measured seconds
        await asyncio.sleep(max(0.0, start - loop.time()))
        cpu["start"] = time.perf_counter(), *cpu_now(servers)
        await asyncio.sleep(max(0.0, end - loop.time()))
        cpu["end"] = time.perf_counter(), *cpu_now(servers)

    await asyncio.gather(cpu_meter(), *tasks)
    for connection in connections.values():
        connection.close()
    wall = cpu["end"][0] - cpu["start"][0]
    (_begun, *first), (_ended, *last) = cpu["start"], cpu["end"]
    client, server, machine = ((b - a) / wall for a, b in zip(first, last, strict=True))
    return {
        "tables": len(tables),
        "seconds": duration,
        "latencies": latencies,
        "polls": measured["polls"],
        "late": measured["late"],
        "bad": measured["bad"],
        "failed": measured["failed"],
        "problems": problems,
        "client_cpu": client,  # in cores
        "server_cpu": server,
        "other_cpu": max(0.0, machine - client - server),  # the rest of the machine
        **counters,
    }


def entered(match):
    """How many cells of the sheet are filled, from the API's view of the match."""
    return sum((deal["a"] is not None) + (deal["b"] is not None) for deal in match["deals"])


async def resync(port, table, phone):
    """After a refused or lost entry, where the table's sheet really is (not measured, and
    on a connection of its own: the phone's may be polling meanwhile)."""
    connection = Connection(port, {"connections": 0, "reconnects": 0})
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


def percentile(values, p):
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p / 100))] * 1000


def judge(result, limit_ms):
    """Held: p99 of all requests under the limit, no error, and the client kept up."""
    every = [x for values in result["latencies"].values() for x in values]
    ideal = 4 * result["tables"] / POLL_EVERY
    result["poll_rate"] = result["polls"] / result["seconds"]
    result["ideal_rate"] = ideal
    result["p50_ms"] = percentile(every, 50)
    result["p99_ms"] = percentile(every, 99)
    result["errors"] = result["bad"] + result["failed"]
    reasons = []
    if not result["p99_ms"] < limit_ms:
        reasons.append(f"p99 {result['p99_ms']:.0f} ms")
    if result["errors"]:
        reasons.append(f"{result['errors']} errors")
    if result["poll_rate"] < 0.9 * ideal:
        reasons.append(f"client behind: {result['poll_rate']:.0f} of {ideal:.0f} polls/s")
    result["held"] = not reasons
    result["verdict"] = "held" if not reasons else "NOT held: " + ", ".join(reasons)
    if result["other_cpu"] > 0.2:  # e.g. tests running beside the bench
        result["verdict"] += f" (others busy: {result['other_cpu']:.2f} cores)"
    return result


def tables_mix(port, args, threads, servers):
    """Step the number of tables up (doubling) until p99 or errors give, then bisect,
    within --tables-budget seconds all told; report the most tables held."""
    began = time.monotonic()
    tables = []
    results = {}
    held = failed = None
    count = args.tables_start
    trial = 0
    print(
        f"\nTables: 4 phones a table polling every {POLL_EVERY:g} s, an entry every "
        f"{ENTRY_EVERY:g} s a table; {args.tables_warmup:g} s warm-up + "
        f"{args.tables_duration:g} s measured a step; held = p99 < {args.tables_p99:g} ms, "
        f"no errors, the client within 10% of the ideal poll rate; "
        f"search within {args.tables_budget:g} s\n",
        flush=True,
    )
    print(f"{'':>58}{'CPU (cores)':^20}")
    print(f"{'tables':>7}{'make s':>7}{'polls/s':>9}{'ideal':>7}{'req/s':>8}{'p50 ms':>8}"
          f"{'p99 ms':>8}{'errors':>7}{'client':>7}{'server':>7}{'others':>7}  result")  # fmt: skip
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
            tables += prepare_tables(added, len(tables))
            from django.db import connections

            connections.close_all()
            try:
                asyncio.run(open_phones(port, tables[:count]))
            except Unplayable as problem:
                raise SystemExit(f"tables: {problem}") from None
            making = (time.monotonic() - step_began) / added
        ready = time.monotonic()
        trial += 1
        result = asyncio.run(
            play(port, tables[:count], args.tables_warmup, args.tables_duration, trial, servers)
        )
        judge(result, args.tables_p99)
        results[count] = result
        total = sum(len(values) for values in result["latencies"].values())
        print(
            f"{count:>7}{ready - step_began:>7.0f}{result['poll_rate']:>9.0f}"
            f"{result['ideal_rate']:>7.0f}"
            f"{total / result['seconds']:>8.0f}{result['p50_ms']:>8.1f}{result['p99_ms']:>8.1f}"
            f"{result['errors']:>7}{result['client_cpu']:>7.2f}{result['server_cpu']:>7.2f}"
            f"{result['other_cpu']:>7.2f}  {result['verdict']}",
            flush=True,
        )
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
    report_tables(results, held, failed, stop, args, threads, time.monotonic() - began)
    return held


def report_tables(results, held, failed, stop, args, threads, seconds):
    print()
    if held is None:
        smallest = min(results)
        print(
            f"Tables held with p99 < {args.tables_p99:g} ms: none (2 workers x {threads} "
            f"threads); even {smallest} tables: {results[smallest]['verdict']}"
        )
        shown = smallest
    else:
        if failed:
            bound = f", {failed} not"
        elif stop == "budget":
            bound = ", more not tried within --tables-budget"
        else:
            bound = f", the most tried (--tables-max {args.tables_max})"
        print(
            f"Tables held with p99 < {args.tables_p99:g} ms: {held}{bound} "
            f"(2 workers x {threads} threads; steps {', '.join(map(str, results))}; "
            f"{seconds:.0f} s)"
        )
        shown = held
    result = results[shown]
    print(f"At {shown} tables, the {result['seconds']:g} s measured:")
    print(f"{'kind':<12}{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'requests':>10}")
    everything = []
    for kind, values in result["latencies"].items():
        everything += values
        print(
            f"{kind:<12}{len(values) / result['seconds']:>9.1f}{percentile(values, 50):>9.2f}"
            f"{percentile(values, 99):>9.2f}{len(values):>10}"
        )
    print(
        f"{'all':<12}{len(everything) / result['seconds']:>9.1f}{percentile(everything, 50):>9.2f}"
        f"{percentile(everything, 99):>9.2f}{len(everything):>10}"
    )
    late = percentile(result["late"], 99)
    print(
        f"Answers other than 2xx/304: {result['bad']}; requests with no answer: "
        f"{result['failed']}.\n"
        f"Client: {result['poll_rate']:.1f} polls/s sent of {result['ideal_rate']:.1f} ideal "
        f"({result['poll_rate'] / result['ideal_rate']:.0%}), p99 {late:.1f} ms late on its "
        f"schedule; {result['connections']} connections opened, {result['reconnects']} "
        "requests sent again on a new one when the server had closed an idle one.\n"
        f"CPU: server (gunicorn, and PostgreSQL when the bench started it) "
        f"{result['server_cpu']:.2f} cores, client {result['client_cpu']:.2f}, "
        f"the rest of the machine {result['other_cpu']:.2f}."
    )
    busy = max(step["other_cpu"] for step in results.values())
    if busy > 0.2:
        print(
            f"The machine was busy with other work (up to {busy:.2f} cores in a step): "
            "the tables held are fewer than on a quiet machine."
        )
    problems = {}
    for step in results.values():
        for what, how_many in step["problems"].items():
            problems[what] = problems.get(what, 0) + how_many
    if problems:
        print("What went wrong over all steps (warm-ups included):")
        for what, how_many in sorted(problems.items(), key=lambda item: -item[1])[:10]:
            print(f"  {how_many:>6}  {what}")


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
        chosen = [name for name in args.only or TARGETS if name != "tables"]
        if chosen:
            per_connection = max(20, 20 * args.duration)  # each match a few deals long at most
            data = prepare(args.connections, per_connection, args.rounds + 1)
        from django.db import connections

        connections.close_all()

        server = Gunicorn(database, workers=2, threads=args.threads, env=env).wait_ready()
        if chosen:
            ratios(server, args, data, chosen)
        if not args.only or "tables" in args.only:
            servers = [server.process.pid]  # gunicorn and its workers
            if cluster:  # and our PostgreSQL, its first line the postmaster's pid
                servers.append(int((cluster.data / "postmaster.pid").read_text().split()[0]))
            tables_mix(server.port, args, args.threads, servers)
    finally:
        if server:
            server.stop()
        if cluster:
            cluster.stop()
        shutil.rmtree(static, ignore_errors=True)


def ratios(server, args, data, chosen):
    """Each target against the control, interleaved, in rounds."""
    plan = targets(server.port, data)
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

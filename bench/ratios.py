"""The ratio runs: what each kind of request costs next to the least a request can cost.

Each target is loaded alone for --duration seconds, and its throughput is set against
the control's (a bare HttpResponse at /bench/ok/, bench/urls.py) measured in the same
run: absolute numbers depend on the machine, the ratios are the result. TARGETS holds
each target's goal.
"""

import json
import os
import re
from html import unescape as html_unescape

from bench import report
from bench.client import kept_cookies
from bench.generators import WALKS, run_python, run_wrk
from bench.stack import WORKERS
from tests.servers import exchange

# Each target's goal; the entry has none (its cost is reported, beside the least entry's:
# ``write``, bench/urls.py, what no entry can do without).
TARGETS = {"poll": 0.4, "fragment": 0.15, "entry": None, "write": None, "calculator": 0.5}
ENTRY = {"deal": 1, "side": "a", "games": 0}
CARDS = {"cards": {"aces": 3, "sevens": 2, "kings": 1, "jacks": 2, "queens": 1}}


def targets(port, data):
    """Each target as (method, path, headers, body, the status it must answer)."""
    page_path = f"/matches/{data['sheet']}/"
    status, headers, page = exchange(port, "GET", page_path, headers={"Cookie": data["cookie"]})
    assert status == 200, status
    # The phone's cookies as its browser keeps them after the page: the CSRF cookie too.
    cookie = kept_cookies(data["cookie"], headers.get_all("Set-Cookie") or [])
    html = {"Cookie": cookie, "HX-Request": "true"}
    # The poll URL exactly as the page gives it to htmx (it carries the viewer's signature).
    sheet = html_unescape(re.search(rb'hx-get="([^"]*/sheet/[^"]*)"', page).group(1).decode())
    status, headers, _body = exchange(port, "GET", sheet, headers=html)
    assert status == 200, status
    etag = headers["ETag"]
    version, rest = etag.strip('"').split("-", 1)
    stale = f'"{int(version) - 1}-{rest}"'  # what a phone holds after someone's entry
    api = {"Authorization": f"Token {data['token']}", "Content-Type": "application/json"}
    return {
        "control": ("GET", "/bench/ok/", {}, None, 200),
        "poll": ("GET", sheet, {**html, "If-None-Match": etag}, None, 304),
        "fragment": ("GET", sheet, {**html, "If-None-Match": stale}, None, 200),
        "entry": ("POST", None, api, json.dumps(ENTRY), 201),
        "write": ("POST", None, api, json.dumps(ENTRY), 201),
        "calculator": ("POST", "/api/calculator/", api, json.dumps(CARDS), 200),
    }


def check(port, name, target, data):
    """One request first: each target must answer what it is meant to measure."""
    method, path, headers, body, status = target
    payload = json.loads(body) if body else None
    if name in WALKS:  # an entry to the spare match, so that its pools stay untouched
        path = WALKS[name].format(data["spare"] if name == "entry" else data["writes"][0][0])
    got, _headers, answer = exchange(port, method, path, payload, headers)
    if got != status:
        raise SystemExit(f"{name}: expected {status}, got {got}: {answer[:300]!r}")


def run(server, args, data, chosen):
    """Each target against the control, interleaved, in rounds."""
    plan = targets(server.port, data)
    for name in ["control", *chosen]:
        check(server.port, name, plan[name], data)
    generate = run_wrk if args.tool == "wrk" else run_python
    print(
        f"gunicorn: {WORKERS} workers x {args.threads} threads; load: {args.tool}, "
        f"{args.connections} connections, {args.duration:g} s a run "
        f"after {args.warmup:g} s of warm-up\n",
        flush=True,
    )

    def measure(name, warmup):
        if warmup:
            generate(server.port, name, plan[name], data, warmup, args.connections)
        result = generate(server.port, name, plan[name], data, args.duration, args.connections)
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
    report.ratios(rounds, controls, TARGETS, os.cpu_count())

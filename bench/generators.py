"""The load generators of the ratio runs: wrk, and a Python one when wrk is missing.

Both take the same arguments, ``(port, name, target, data, seconds, connections)`` with
``target`` as ``bench/ratios.py`` makes it, keep ``connections`` keep-alive connections
busy for ``seconds``, and answer the same summary: requests, seconds, p50_ms, p99_ms,
errors (no answer) and bad (4xx/5xx). An entry cannot repeat one request (a cell takes
one entry), so each connection walks a pool of empty matches of its own, deal after
deal of ties; a run consumes one pool set of ``data["pools"]``. The bench's least entry
(``write``) walks pools too, ``data["writes"]``, the same in every run.

The Python generator costs the machine more CPU of its own than wrk, so it leaves the
server less and flatters the ratios: prefer wrk.
"""

import http.client
import json
import subprocess
import tempfile
import threading
import time

from bench.report import percentile

# The targets that post to a match of their own each time, walking pools of matches: an
# entry to each match in turn (a cell takes one entry, so each run walks fresh ones), and
# the bench's least entry, which may go to the same matches run after run.
WALKS = {"entry": "/api/matches/{}/entries/", "write": "/bench/write/{}/"}


def walked(name, data):
    """The pools, one a connection, that a run of target ``name`` walks."""
    return data["pools"].pop() if name == "entry" else data["writes"]


# wrk ---------------------------------------------------------------------------------

# Every script ends with this: wrk's summary as one line, in the Python generator's terms.
DONE = """
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH {"requests": %d, "seconds": %f, "p50_ms": %f, "p99_ms": %f, "errors": %d, "bad": %d}\\n',
    summary.requests, summary.duration / 1e6, latency:percentile(50) / 1000,
    latency:percentile(99) / 1000, e.connect + e.read + e.write + e.timeout, e.status))
end
"""

# The walks (WALKS): wrk's setup() hands each of its threads (one a connection) its pool.
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
  return wrk.format("POST", "%(prefix)s" .. m.id .. "%(suffix)s",
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
    """wrk with a thread a connection; a Lua script sets the request (or, for WALKS,
    walks the pools) and prints the summary as one JSON line that this reads back."""
    method, path, headers, body, _status = target
    if name in WALKS:
        pools = ", ".join("{" + ", ".join(map(str, pool)) + "}" for pool in walked(name, data))
        prefix, suffix = WALKS[name].split("{}")
        walk = {"pools": pools, "token": data["token"], "prefix": prefix, "suffix": suffix}
        script = ENTRY % walk + DONE
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


# Python ------------------------------------------------------------------------------


def run_python(port, name, target, data, seconds, connections):
    """A thread a connection, each on its own http.client connection."""
    method, path, headers, body, _status = target
    deadline = time.monotonic() + seconds
    latencies, errors, bad = [], [0], [0]
    lock = threading.Lock()
    pools = walked(name, data) if name in WALKS else None

    def work(index):
        pool = [[match, 0] for match in pools[index]] if pools else []
        cursor = 0
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        mine, my_errors, my_bad = [], 0, 0
        while time.monotonic() < deadline:
            my_path, my_body = path, body
            if pools:
                match, step = pool[cursor]
                my_path = WALKS[name].format(match)
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
            if pools:
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
    return {
        "requests": len(latencies),
        "seconds": elapsed,
        "p50_ms": percentile(latencies, 50),
        "p99_ms": percentile(latencies, 99),
        "errors": errors[0],
        "bad": bad[0],
    }

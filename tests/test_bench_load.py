"""bench/load.py runs end to end as README.md gives it, in a small form: its own
PostgreSQL cluster and bin/serve, every target for a second against the control, then
one short step of two tables; and with --servers, the same tables on each server. A bench
whose requests the app no longer answers as it expects fails here, not on the next
person to run it. How fast anything was is the bench's to judge, not the suite's."""

import os
import re
import signal
import subprocess
import sys

import pytest

from bench.ratios import TARGETS

from .servers import ROOT, postgresql_bin

# One step of two tables: a second of warm-up, two measured, an entry every half second.
ONE_STEP = [
    "--tables-start", "2", "--tables-max", "2", "--tables-warmup", "1",
    "--tables-duration", "2", "--tables-entry-every", "0.5",
]  # fmt: skip
SHORT = ["--rounds", "1", "--duration", "1", "--warmup", "0", "--connections", "2"]


def run_bench(*args, timeout):
    """bench/load.py with ``args``, on a cluster of its own (no DATABASE_URL): its output.
    Past ``timeout`` it is interrupted, so that it stops what it started on its way out."""
    if postgresql_bin() is None:
        pytest.skip("needs PostgreSQL's own programs (bin/test runs this on PostgreSQL)")
    bench = subprocess.Popen(
        [sys.executable, "bench/load.py", *args],
        cwd=ROOT,
        env={"PATH": os.environ.get("PATH", ""), "LANG": "C.UTF-8"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        out, err = bench.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        bench.send_signal(signal.SIGINT)
        try:
            out, err = bench.communicate(timeout=30)
        finally:
            bench.kill()
        pytest.fail(f"bench/load.py took over {timeout} s:\n{out}\n{err}")
    assert bench.returncode == 0, f"stdout:\n{out}\nstderr:\n{err}"
    assert "Traceback" not in err, err
    return out


def target_line(shown, name):
    """The ratio table's line of target ``name``."""
    return next(line for line in shown.splitlines() if re.match(rf"{name} +\d", line))


def test_every_target_runs_against_the_control_then_tables_hold_their_streams():
    shown = run_bench(*SHORT, *ONE_STEP, timeout=150)
    for name in ["control", *TARGETS]:
        line = target_line(shown, name)
        assert "errors" not in line and "4xx/5xx" not in line, line
    assert "An entry runs at" in shown
    assert "Answers other than 2xx/304: 0; requests with no answer: 0." in shown
    streams = re.search(r"Streams: (\d+) open, (\d+) lost; (\d+) changes heard (\d+) times", shown)
    assert streams, shown
    opened, lost, changes, heard = map(int, streams.groups())
    assert (opened, lost) == (8, 0), shown
    assert changes > 0 and heard > 0, shown
    assert "The server spent" in shown


def test_with_servers_each_server_takes_entries_and_polling_tables():
    """--servers: gunicorn's threaded workers, Django's ASGI handler, then bin/serve; the
    Python load generator, which the machines without wrk use."""
    shown = run_bench(
        "--servers", *SHORT, "--tool", "python", "--only", "entry", "tables",
        "--mix", "poll", *ONE_STEP, timeout=180,
    )  # fmt: skip
    parts = re.split(r"^(wsgi-gthread|django-asgi|bin/serve):$", shown, flags=re.MULTILINE)
    runs = dict(zip(parts[1::2], parts[2::2], strict=True))
    assert list(runs) == ["wsgi-gthread", "django-asgi", "bin/serve"], shown
    for server, part in runs.items():
        line = target_line(part, "entry")
        assert "errors" not in line and "4xx/5xx" not in line, (server, line)
        assert "Answers other than 2xx/304: 0; requests with no answer: 0." in part, part
        polls = re.search(r"Client: ([\d.]+) polls/s sent", part)
        assert polls and float(polls.group(1)) > 0, part

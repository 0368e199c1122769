"""bench/clubs.py --check runs end to end on the suite's PostgreSQL server: it builds a
club of 2,000 rubbers in a database of its own, finds the leaderboard's and a player's
record's queries flat as the club grows and within their budgets, corrects the club's
oldest rubber within its limit, and drops its database."""

import contextlib
import os
import subprocess
import sys

import psycopg
import pytest
from django.db import connection

from .servers import ROOT, database_url

PATTERN = "squarescores\\_clubs\\_bench\\_%"


def bench_databases(url):
    with psycopg.connect(url) as server:
        found = server.execute("SELECT datname FROM pg_database WHERE datname LIKE %s", [PATTERN])
        return {name for (name,) in found}


def test_the_clubs_bench_checks_flat_queries_and_a_quick_correction(db):
    if connection.vendor != "postgresql":
        pytest.skip("the bench runs on PostgreSQL (bin/test runs this on PostgreSQL)")
    url = database_url(connection.settings_dict)
    before = bench_databases(url)
    try:
        run = subprocess.run(
            [sys.executable, "bench/clubs.py", "--check"],
            cwd=ROOT,
            env={"PATH": os.environ.get("PATH", ""), "LANG": "C.UTF-8", "DATABASE_URL": url},
            capture_output=True,
            text=True,
            timeout=120,
        )
        left = bench_databases(url) - before
    finally:
        with (
            contextlib.suppress(psycopg.Error),
            psycopg.connect(url, autocommit=True) as server,
        ):
            for name in bench_databases(url) - before:
                server.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    said = f"stdout:\n{run.stdout}\nstderr:\n{run.stderr}"
    lines = run.stdout.splitlines()
    for size in ("500", "1,000", "2,000"):
        assert any(line.startswith(f"{size} rubbers: made in") for line in lines), said
    for reading in ("leaderboard", "record", "board.leaderboard"):
        assert any(line.startswith(f"{reading}  ") and line.endswith("×)") for line in lines), said
    assert any(line.startswith("correction of the oldest rubber at 2,000") for line in lines), said
    assert lines[-1].startswith("OK: the queries are flat and within budget"), said
    assert run.returncode == 0, said
    assert not left, f"the bench left {sorted(left)} behind"

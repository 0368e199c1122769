"""bench/clubs.py --check runs end to end on the suite's PostgreSQL server: it builds a
club of 2,000 rubbers in a database of its own, finds the leaderboard's and a player's
record's queries flat as the club grows and within their budgets, corrects the club's
oldest rubber within its limit, and drops its database."""

import pytest
from django.db import connection

from .servers import database_url, run_bench


def test_the_clubs_bench_checks_flat_queries_and_a_quick_correction(db):
    if connection.vendor != "postgresql":
        pytest.skip("the bench runs on PostgreSQL (bin/test runs this on PostgreSQL)")
    run, left = run_bench(
        database_url(connection.settings_dict),
        "bench/clubs.py", "--check",
        databases="squarescores\\_clubs\\_bench\\_%",
    )  # fmt: skip
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

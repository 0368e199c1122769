"""bench/pages.py runs end to end as README.md gives it, on a few hundred rubbers: it
builds its two databases on the suite's PostgreSQL server, times each page in both,
prints the ratios, and drops its databases, leaving nothing behind. A change to the
models that its rows no longer fit fails here, not on the next person to run it."""

import pytest
from django.db import connection

from .servers import database_url, run_bench

PAGES = ["history", "history, filtered", "night", "standings"]


def test_the_pages_bench_builds_times_and_drops_its_databases(db):
    if connection.vendor != "postgresql":
        pytest.skip("the bench runs on PostgreSQL (bin/test runs this on PostgreSQL)")
    run, left = run_bench(
        database_url(connection.settings_dict),
        "bench/pages.py", "--rubbers", "200", "--rounds", "1", "--repeats", "2",
        databases="squarescores\\_bench\\_%",
    )  # fmt: skip
    said = f"stdout:\n{run.stdout}\nstderr:\n{run.stderr}"
    lines = run.stdout.splitlines()
    assert "100 rubbers: 100 rubbers, 1,000 deals, 400 seats" in run.stdout, said
    assert "200 rubbers: 200 rubbers, 2,000 deals, 800 seats" in run.stdout, said
    for page in PAGES:
        assert any(line.startswith(f"{page}  ") and line.endswith("×") for line in lines), said
    # The verdict on the ratios is the bench's to give; here it must only get that far.
    assert lines[-1].startswith(("OK: every page within 2×", "FAIL: a page is")), said
    assert run.returncode == (0 if lines[-1].startswith("OK") else 1), said
    assert not left, f"the bench left {sorted(left)} behind"

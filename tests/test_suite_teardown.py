"""The suite drops its database at the end, though a thread that read it has ended."""

import os
import subprocess
import sys

from .servers import ROOT


def test_the_database_is_dropped_though_a_thread_that_read_it_has_ended():
    # Not one of this run's workers: its database is its own, named without a worker's.
    env = {name: value for name, value in os.environ.items() if not name.startswith("PYTEST_")}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "tests/teardown_probe.py"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 passed" in run.stdout, run.stdout
    assert "Error when trying to teardown test databases" not in run.stdout, run.stdout

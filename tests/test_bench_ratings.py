"""bench/ratings.py runs in its small form (--check): the simulated clubs rated through
clubs/ratings.py, and the goals of issue 45 met by the chosen tuning (ρ against win rates
where the best carry the weakest, forecasts no worse than a coin). No database."""

import os
import subprocess
import sys

from .servers import ROOT


def test_the_ratings_bench_meets_its_goals_in_its_small_form():
    run = subprocess.run(
        [sys.executable, "bench/ratings.py", "--check"],
        cwd=ROOT,
        env={"PATH": os.environ.get("PATH", ""), "LANG": "C.UTF-8"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    said = f"stdout:\n{run.stdout}\nstderr:\n{run.stderr}"
    assert run.returncode == 0, said
    assert "goals: met (20 seeds)" in run.stdout, said
    for club in ("carry", "random", "newcomers"):
        assert any(line.startswith(f"{club} ") for line in run.stdout.splitlines()), said

"""bench/lighthouse.py runs as docs/development.md gives it, in its small form (--check):
its own PostgreSQL cluster and bin/serve, the rows it writes, and the five pages opened,
signed in, in the Chromium that Lighthouse drives, each answering 200 with no console
error. Lighthouse itself is no dependency of the app's, and its scores are the bench's to
judge, not the suite's."""

import os
import subprocess
import sys

import pytest

from .servers import ROOT, postgresql_bin

PAGES = ["home", "night", "match", "tournament", "projector"]


def test_the_lighthouse_bench_opens_each_page_signed_in_without_console_errors():
    if postgresql_bin() is None:
        pytest.skip("needs PostgreSQL's own programs (bin/test runs this on PostgreSQL)")
    run = subprocess.run(
        [sys.executable, "bench/lighthouse.py", "--check"],
        cwd=ROOT,
        env={
            "PATH": os.environ.get("PATH", ""),
            "LANG": "C.UTF-8",
            "HOME": os.environ.get("HOME", "/root"),
        },
        capture_output=True,
        text=True,
        timeout=180,
    )
    said = f"stdout:\n{run.stdout}\nstderr:\n{run.stderr}"
    assert run.returncode == 0, said
    lines = run.stdout.splitlines()
    for page in PAGES:
        assert any(
            line.startswith(f"{page} ") and " 200  console errors: 0 " in line for line in lines
        ), said

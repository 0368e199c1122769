"""What a worker of bin/serve holds once it has started (scoresheet/asgi.py)."""

import subprocess
import sys

from .conftest import ROOT
from .servers import production_env

# What a worker makes while it starts: Django, DRF and the app's modules, every view,
# the compiled templates and the translations (about 110,000 objects when measured).
STARTUP = 80_000
# What the collector may still walk once the worker has started: the objects made
# after the freeze, by the few imports that come later.
LEFT_TO_WALK = 20_000

COUNT = """
import gc
import scoresheet.asgi
gc.collect()
print(gc.get_freeze_count(), len(gc.get_objects()))
"""


def test_a_started_worker_sets_what_it_loaded_aside_from_the_garbage_collector():
    # A full collection walks every object it tracks; walking the whole app held every
    # thread of a loaded worker for 60 to 100 ms, every few seconds.
    counted = subprocess.run(
        [sys.executable, "-c", COUNT],
        cwd=ROOT,
        env=production_env("sqlite:///:memory:"),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    frozen, tracked = map(int, counted.stdout.split())
    assert frozen > STARTUP
    assert tracked < LEFT_TO_WALK

"""How bin/serve runs the app (scoresheet/serving.py), as gunicorn reads it."""

import subprocess
import sys

from .servers import ROOT

# gunicorn reads bin/serve's settings, then calls a worker's hook once the worker has
# loaded the app: in a process of its own, since the hook changes the collector's.
WORKER = """
import gc
from gunicorn.app.base import Application

class Settings(Application):
    def init(self, parser, opts, args):
        return None

    def load(self):
        return None

    def load_config(self):
        self.load_config_from_module_name_or_filename("python:scoresheet.serving")

before = gc.get_threshold()
Settings().cfg.post_worker_init(None)
print(before, gc.get_threshold(), gc.get_freeze_count() > 0)
"""


def test_a_worker_sets_the_loaded_app_aside_from_the_collector_and_collects_rarer():
    """docs/decisions/0002-garbage-collector.md: full collections, which stop the whole
    worker, walk what is new only, and come rarer than Python's."""
    ran = subprocess.run(
        [sys.executable, "-c", WORKER], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.split() == ["(700,", "10,", "10)", "(5000,", "20,", "10)", "True"]

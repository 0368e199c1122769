"""The app's own settings, plus a bare control view at /bench/ok/ (bench/urls.py).

Only bench/load.py uses this module; the control view exists nowhere else.
"""

import os

from scoresheet.settings import *  # noqa: F403

ROOT_URLCONF = "bench.urls"
# collectstatic goes to the bench's own temporary folder, not the project's.
STATIC_ROOT = os.environ.get("BENCH_STATIC_ROOT", STATIC_ROOT)  # noqa: F405

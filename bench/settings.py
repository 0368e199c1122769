"""The app's own settings, plus a bare control view at /bench/ok/ (bench/urls.py).

Only bench/load.py uses this module; the control view exists nowhere else. The static
files are the ones the server's environment names (STATIC_ROOT, collected once by
tests/servers.py's production_env, as a deployment collects them).
"""

from scoresheet.settings import *  # noqa: F403

ROOT_URLCONF = "bench.urls"

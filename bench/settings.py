"""The app's own settings, plus the bench's two views (bench/urls.py): a bare control
view at /bench/ok/ and the least an entry can cost at /bench/write/<id>/.

Only bench/load.py uses this module; neither view exists anywhere else. The static
files are the ones the server's environment names (STATIC_ROOT, collected once by
tests/servers.py's production_env, as a deployment collects them).
"""

from scoresheet.settings import *  # noqa: F403

ROOT_URLCONF = "bench.urls"

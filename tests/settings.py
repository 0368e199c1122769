"""The suite's settings: the app's, for working on the code (DEBUG on, with the
development key), as a developer runs it; pytest-django turns DEBUG off for each test.
The servers the tests start have production settings of their own (tests/servers.py)."""

import os

os.environ.setdefault("DEBUG", "true")

from scoresheet.settings import *  # noqa: F403

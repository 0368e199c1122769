"""How bin/serve runs the app: gunicorn's settings (``gunicorn -c python:scoresheet.serving``)
and its worker, uvicorn's, running scoresheet/asgi.py.

gunicorn keeps the worker processes (starts them, restarts one that dies, reloads on
SIGHUP); each worker is an asyncio server (uvicorn, on uvloop and httptools) that holds
any number of connections, idle ones and event streams included, and answers each
request in Django's threads (scoresheet/asgi.py). Read from the environment:

    BIND             host:port to listen on (0.0.0.0:8000)
    WEB_CONCURRENCY  worker processes (2); always 1 on SQLite, whose changes reach
                     the streams of the process that made them only (matches/live.py)
    THREADS          Django's threads in each worker (2), read by scoresheet/asgi.py
"""

import gc
import os
import sys

import dj_database_url
from uvicorn_worker import UvicornWorker


def _workers():
    asked = os.environ.get("WEB_CONCURRENCY")
    url = os.environ.get("DATABASE_URL") or "sqlite://"
    if dj_database_url.parse(url)["ENGINE"] != "django.db.backends.sqlite3":
        return int(asked or 2)
    if asked and int(asked) > 1:
        print(
            f"bin/serve: {asked} workers asked for, 1 started: on SQLite a change is heard "
            "live only in the process that made it (set DATABASE_URL for PostgreSQL)",
            file=sys.stderr,
        )
    return 1


class Worker(UvicornWorker):
    """uvicorn under gunicorn, whose open streams end a few seconds into a shutdown
    (the phones reconnect to the next worker at once) instead of holding it up."""

    CONFIG_KWARGS = {
        **UvicornWorker.CONFIG_KWARGS,
        "timeout_graceful_shutdown": 3,
        "server_header": False,
    }


# A worker's collections, rarer than Python's (700, 10, 10): a full one stops every
# thread of the worker while it walks the open streams, and fell among requests every ten
# seconds or so under load (docs/decisions/0002-garbage-collector.md).
COLLECTIONS = (5000, 20, 10)


def post_worker_init(worker):
    """Once a worker has loaded the app: set all of it aside from the collector, which
    would walk it again in every full collection, and make collections rarer."""
    gc.freeze()
    gc.set_threshold(*COLLECTIONS)


bind = os.environ.get("BIND", "0.0.0.0:8000")
workers = _workers()
worker_class = "scoresheet.serving.Worker"
timeout = 30
graceful_timeout = 10
keepalive = 5  # s an idle keep-alive connection stays open
control_socket_disable = True

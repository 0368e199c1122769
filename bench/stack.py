"""The servers the bench loads, started the way the tests start them (tests/servers.py).

PostgreSQL is a throwaway cluster of the bench's own unless DATABASE_URL names a scratch
database. The app runs as production runs it, ``bin/serve`` (gunicorn) with production
settings and its static files collected, except for three things: the bench's settings
(bench/settings.py, which add the control view and the least entry), no rate limits
(every request of the load comes from one address) and only errors logged (a log line a
request costs time).

This process sets itself up on the server's very settings before the server starts: it
writes the rows the load needs, and the sessions and signed poll URLs it makes must be
the ones the server accepts (the same SECRET_KEY).
"""

import contextlib
import importlib.util
import os
import sys
from dataclasses import dataclass

from tests.servers import Cluster, Gunicorn, Server, production_env

WORKERS = 2  # gunicorn worker processes, the deployment's default (bin/serve)


@dataclass
class Database:
    url: str
    env: dict  # the server's environment, this process's too
    cluster: Cluster | None  # None when DATABASE_URL named the database


@contextlib.contextmanager
def database():
    """A migrated database, and Django set up in this process on the server's settings;
    the cluster, when the bench started one, is stopped on the way out."""
    cluster = None
    try:
        url = os.environ.get("DATABASE_URL")
        if not url:
            print("Starting a PostgreSQL cluster of its own ...", flush=True)
            cluster = Cluster()
            url = cluster.url
        env = production_env(
            url,
            DJANGO_SETTINGS_MODULE="bench.settings",
            RATE_LIMIT_GUEST="",
            RATE_LIMIT_LOGIN="",
            RATE_LIMIT_GUESS="",
            RATE_LIMIT_READS="",
            LOG_LEVEL="ERROR",
        )
        os.environ.update(env)  # this process prepares the data with the server's settings
        import django
        from django.core.management import call_command

        django.setup()
        call_command("migrate", verbosity=0, interactive=False)
        yield Database(url, env, cluster)
    finally:
        if cluster:
            cluster.stop()


# The servers --servers sets side by side, each 2 workers on the same app and settings:
# bin/serve's (uvicorn workers, Django's WSGI handler in threads: scoresheet/asgi.py),
# gunicorn's threaded WSGI workers as bin/serve ran before, Django's own ASGI handler
# under the same uvicorn workers, and a2wsgi's bridge under them where it is installed.
SERVERS = {
    "bin/serve": None,
    "wsgi-gthread": ["-k", "gthread", "--threads", "{threads}", "scoresheet.wsgi:application"],
    "django-asgi": ["-k", "uvicorn_worker.UvicornWorker", "bench.asgi:application"],
}
# a2wsgi's bridge, where a2wsgi is installed (it is no dependency of the app's); the
# module is bench/a2wsgi_bridge.py, so that bench/ on sys.path is no a2wsgi of its own.
if importlib.util.find_spec("a2wsgi") is not None:
    SERVERS["a2wsgi"] = ["-k", "uvicorn_worker.UvicornWorker", "bench.a2wsgi_bridge:application"]


class Other(Server):
    """gunicorn with another worker and application than bin/serve's, same settings."""

    def __init__(self, args, env):
        super().__init__(
            [sys.executable, "-m", "gunicorn", "-b", "127.0.0.1:{port}", "-w", str(WORKERS),
             "--keep-alive", "5", *args],
            env,
        )  # fmt: skip


@contextlib.contextmanager
def gunicorn(database, threads, kind="bin/serve"):
    """bin/serve (or another of SERVERS) on a free port of 127.0.0.1, ready to answer;
    stopped on the way out."""
    from django.db import connections

    connections.close_all()  # the rows are written: the database is the server's now
    if SERVERS[kind] is None:
        server = Gunicorn(database.url, workers=WORKERS, threads=threads, env=database.env)
    else:
        args = [arg.replace("{threads}", str(threads)) for arg in SERVERS[kind]]
        server = Other(args, {**database.env, "THREADS": str(threads)})
    try:
        yield server.wait_ready()
    finally:
        server.stop()


def server_pids(server, database):
    """The processes whose CPU is the server's: gunicorn (its workers are its children)
    and, when the bench started it, PostgreSQL (the postmaster's pid heads its pid file)."""
    pids = [server.process.pid]
    if database.cluster:
        pids.append(int((database.cluster.data / "postmaster.pid").read_text().split()[0]))
    return pids

"""The servers the bench loads, started the way the tests start them (tests/servers.py).

PostgreSQL is a throwaway cluster of the bench's own unless DATABASE_URL names a scratch
database. The app runs as production runs it, ``bin/serve`` (gunicorn) with production
settings and its static files collected, except for three things: the bench's settings
(bench/settings.py, which add the control view), no rate limits (every request of the
load comes from one address) and only errors logged (a log line a request costs time).

This process sets itself up on the server's very settings before the server starts: it
writes the rows the load needs, and the sessions and signed poll URLs it makes must be
the ones the server accepts (the same SECRET_KEY).
"""

import contextlib
import os
from dataclasses import dataclass

from tests.servers import Cluster, Gunicorn, production_env

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


@contextlib.contextmanager
def gunicorn(database, threads):
    """bin/serve on a free port of 127.0.0.1, ready to answer; stopped on the way out."""
    from django.db import connections

    connections.close_all()  # the rows are written: the database is the server's now
    server = Gunicorn(database.url, workers=WORKERS, threads=threads, env=database.env)
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

"""Real servers for the tests that need them: the app as ``bin/run`` starts it, the
production server (``bin/serve``) or runserver on 127.0.0.1, a fresh SQLite file, and a
PostgreSQL cluster of the test's own that it may restart.

Everything started here is stopped by the code that started it, and every
wait is bounded.
"""

import atexit
import contextlib
import ctypes
import functools
import http.client
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote, urlencode

import psycopg

ROOT = Path(__file__).resolve().parent.parent


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def database_url(settings_dict, *, named=None):
    """A DATABASE_URL naming the same PostgreSQL database as Django's settings_dict;
    with ``named``, its connections say so (PostgreSQL's application_name), for
    ``until_closed``."""
    url = "postgres://{user}:{password}@{host}:{port}/{name}".format(
        user=quote(settings_dict["USER"], safe=""),
        password=quote(settings_dict["PASSWORD"] or "", safe=""),
        host=settings_dict["HOST"] or "127.0.0.1",
        port=settings_dict["PORT"] or 5432,
        name=quote(settings_dict["NAME"], safe=""),
    )
    return f"{url}?{urlencode({'application_name': named})}" if named else url


def run_bench(url, *args, databases):
    """``bench/<args>`` run as the docs give it, on the PostgreSQL server of ``url``: its
    run, and the names of the databases it left behind (those whose names are LIKE
    ``databases``), which are dropped on the way out whatever happened."""

    def found():
        with psycopg.connect(url) as server:
            listed = server.execute(
                "SELECT datname FROM pg_database WHERE datname LIKE %s", [databases]
            )
            return {name for (name,) in listed}

    before = found()
    try:
        run = subprocess.run(
            [sys.executable, *args],
            cwd=ROOT,
            env={"PATH": os.environ.get("PATH", ""), "LANG": "C.UTF-8", "DATABASE_URL": url},
            capture_output=True,
            text=True,
            timeout=120,
        )
        left = found() - before
    finally:
        with contextlib.suppress(psycopg.Error), psycopg.connect(url, autocommit=True) as server:
            for name in found() - before:
                server.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    return run, left


def until_closed(connection, named, timeout=10.0):
    """Until PostgreSQL has ended every session called ``named`` on the database of
    ``connection`` (Django's), or ``timeout`` seconds. A stopped server's sessions end
    a moment after its processes do, and the suite drops its database at the end:
    PostgreSQL refuses while one is still open."""
    deadline = time.monotonic() + timeout
    with connection.cursor() as cursor:
        while True:
            # Within a transaction PostgreSQL answers from one snapshot of its sessions.
            cursor.execute("SELECT pg_stat_clear_snapshot()")
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity"
                " WHERE datname = current_database() AND application_name = %s",
                [named],
            )
            if cursor.fetchone()[0] == 0 or time.monotonic() > deadline:
                return
            time.sleep(0.05)


def production_env(database, **extra):
    """The environment of a production deployment, on plain HTTP at 127.0.0.1, with
    its static files collected (``collected_static``)."""
    return {
        "PATH": os.environ.get("PATH", ""),
        "LANG": "C.UTF-8",
        "DJANGO_SETTINGS_MODULE": "scoresheet.settings",
        "DEBUG": "false",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "false",
        "DATABASE_URL": database,
        "STATIC_ROOT": collected_static(),
        # Every client of a test's server is one address, 127.0.0.1: the limits meant
        # for an address of one table would count them all together.
        "RATE_LIMIT_READS": "",
        "RATE_LIMIT_GUESS": "",
        **extra,
    }


def development_env(database, **extra):
    """The environment of ``bin/run --debug``: the development settings (DEBUG on)."""
    return {
        "PATH": os.environ.get("PATH", ""),
        "LANG": "C.UTF-8",
        "DJANGO_SETTINGS_MODULE": "scoresheet.settings",
        "DEBUG": "true",
        "DATABASE_URL": database,
        **extra,
    }


@functools.cache
def collected_static():
    """The static files collected once, as a deployment does before it starts the
    server: a folder of this test run's own (removed when the run ends)."""
    folder = tempfile.mkdtemp(prefix="squarescores-static-")
    atexit.register(shutil.rmtree, folder, True)
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--no-input", "-v", "0"],
        cwd=ROOT,
        env={
            "PATH": os.environ.get("PATH", ""),
            "DEBUG": "false",
            "SECRET_KEY": secrets.token_urlsafe(50),
            "STATIC_ROOT": folder,
        },
        check=True,
        capture_output=True,
        timeout=120,
    )
    return folder


def sqlite_database(folder):
    """A fresh SQLite file in ``folder``, migrated as ``bin/run`` does: its DATABASE_URL."""
    url = f"sqlite:///{Path(folder).resolve() / 'db.sqlite3'}"
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--no-input", "-v", "0"],
        cwd=ROOT,
        env=development_env(url),
        check=True,
        capture_output=True,
        timeout=120,
    )
    return url


def _stop_with_the_tests():
    """In the server's process before it starts: it is told to stop if the test run
    dies without stopping it (killed by a timeout, say), so no server outlives it."""
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


class Server:
    """A server process on a free port of 127.0.0.1 (``{port}`` in its command or its
    environment); ``stop()`` ends it and every process it started."""

    name = "server"

    def __init__(self, command, env):
        self.port = free_port()
        log, self.log = tempfile.mkstemp(prefix=f"{self.name}-", suffix=".log")
        port = str(self.port)
        self.process = subprocess.Popen(
            [arg.replace("{port}", port) for arg in command],
            cwd=ROOT,
            env={name: value.replace("{port}", port) for name, value in env.items()},
            stdout=log,
            stderr=subprocess.STDOUT,
            # A group of its own: stopping it stops every process it started (gunicorn's
            # workers, runserver's reloaded child).
            start_new_session=True,
            preexec_fn=_stop_with_the_tests,
        )
        os.close(log)  # the server has its own copy

    def wait_ready(self, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} stopped:\n{self.output()}")
            try:
                status, _body = request(self.port, "GET", "/api/calculator/", timeout=2)
                if status == 405:
                    return self
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"{self.name} did not answer in {timeout}s:\n{self.output()}")

    def output(self):
        return Path(self.log).read_text(errors="replace")[-4000:]

    def stop(self):
        if self.process.poll() is None:
            self._signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._signal(signal.SIGKILL)
                self.process.wait(timeout=10)
        self._signal(signal.SIGKILL)  # whatever of the group outlived its leader
        os.unlink(self.log)

    def _signal(self, number):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, number)


class Gunicorn(Server):
    """One instance of the production server, ``bin/serve``, with production settings."""

    name = "gunicorn"

    def __init__(self, database, *, workers=2, threads=2, env=None):
        settings = {
            "BIND": "127.0.0.1:{port}",
            "WEB_CONCURRENCY": str(workers),
            "THREADS": str(threads),
            **(env or {}),
        }
        super().__init__(["bin/serve"], production_env(database, **settings))


class BinRun(Server):
    """The app as a person starts it: ``bin/run`` itself (its setup, its settings, its
    server), on ``database`` instead of its own SQLite file, on a port of its own.
    ``args`` go to bin/run (``--debug``, ``--lan``); ``env`` adds to the environment."""

    name = "bin-run"

    def __init__(self, database, *args, secret_key=None, env=None):
        self.secret_key = secret_key or secrets.token_urlsafe(50)
        self.static = tempfile.mkdtemp(prefix="squarescores-static-")
        environment = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": os.environ.get("HOME", "/root"),
            "LANG": "C.UTF-8",
            "DATABASE_URL": database,
            "SECRET_KEY": self.secret_key,
            "STATIC_ROOT": self.static,
            **(env or {}),
        }
        super().__init__(["bin/run", "--port", "{port}", *args], environment)
        self.url = f"http://127.0.0.1:{self.port}"

    def wait_ready(self, timeout=90):
        # bin/run sets up, migrates and collects the static files before it serves.
        return super().wait_ready(timeout)

    def stop(self):
        super().stop()
        shutil.rmtree(self.static, ignore_errors=True)


class Runserver(Server):
    """``manage.py runserver`` as ``bin/run`` starts it (development settings, a thread
    per request), without the autoreloader's second process."""

    name = "runserver"

    def __init__(self, database, *, env=None):
        command = [sys.executable, "manage.py", "runserver", "127.0.0.1:{port}", "--noreload"]
        super().__init__(command, development_env(database, **(env or {})))


def exchange(port, method, path, body=None, headers=None, timeout=10):
    """One request on its own connection, ``body`` sent as JSON: (status, headers, raw body),
    the headers read by any case of their names, as HTTP means them."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        headers = {"Host": "127.0.0.1", **(headers or {})}
        payload = None
        if body is not None:
            payload = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        connection.request(method, path, body=payload, headers=headers)
        response = connection.getresponse()
        return response.status, response.headers, response.read()
    finally:
        connection.close()


def request(port, method, path, body=None, token=None, timeout=10, headers=None):
    """One request on its own connection: (status, parsed JSON body or None)."""
    headers = {**(headers or {}), **({"Authorization": f"Token {token}"} if token else {})}
    status, answered, raw = exchange(port, method, path, body, headers, timeout)
    kind = answered.get("Content-Type", "")
    return status, json.loads(raw) if raw and "json" in kind else None


# A PostgreSQL cluster of our own ---------------------------------------------------


def postgresql_bin():
    for candidate in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (candidate / "initdb").exists():
            return candidate
    found = shutil.which("initdb")
    return Path(found).parent if found else None


class Cluster:
    """A throwaway PostgreSQL cluster in a temporary folder, as bin/test makes one.

    As root, the cluster belongs to the postgres user (initdb refuses root).
    """

    def __init__(self):
        self.bin = postgresql_bin()
        if self.bin is None:
            raise RuntimeError("PostgreSQL's initdb is not installed")
        self.root = os.geteuid() == 0
        self.folder = Path(tempfile.mkdtemp(prefix="squarescores-pg-"))
        self.data = self.folder / "data"
        self.port = free_port()
        if self.root:
            shutil.chown(self.folder, "postgres")
        password = self.folder / "pw"
        password.write_text("app\n")
        password.chmod(0o644)
        self._run(
            "initdb", "-D", str(self.data), "-U", "app", f"--pwfile={password}",
            "--auth=scram-sha-256", "-E", "UTF8", "--locale=C.UTF-8",
        )  # fmt: skip
        self.start()
        subprocess.run(
            [
                str(self.bin / "createdb"),
                "-h",
                "127.0.0.1",
                "-p",
                str(self.port),
                "-U",
                "app",
                "app",
            ],
            env={**os.environ, "PGPASSWORD": "app"},
            check=True,
            capture_output=True,
            timeout=30,
        )
        self.url = f"postgres://app:app@127.0.0.1:{self.port}/app"

    def _run(self, program, *args, timeout=60):
        command = [str(self.bin / program), *args]
        if self.root:
            command = ["runuser", "-u", "postgres", "--", *command]
        return subprocess.run(command, check=True, capture_output=True, timeout=timeout)

    def _options(self):
        return (
            f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 "
            "-c fsync=off -c full_page_writes=off -c max_connections=200"
        )

    def start(self):
        self._run(
            "pg_ctl", "-D", str(self.data), "-l", str(self.folder / "log"), "-w",
            "-o", self._options(), "start",
        )  # fmt: skip

    def restart(self):
        """A fast restart: open connections are cut, as when the database server restarts."""
        self._run(
            "pg_ctl", "-D", str(self.data), "-l", str(self.folder / "log"), "-w",
            "-m", "fast", "-o", self._options(), "restart",
        )  # fmt: skip

    def stop(self):
        with contextlib.suppress(subprocess.CalledProcessError):
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "stop", timeout=30)
        shutil.rmtree(self.folder, ignore_errors=True)

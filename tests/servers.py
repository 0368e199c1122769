"""Real servers for the tests that need them: gunicorn or runserver on 127.0.0.1,
a fresh SQLite file, and a PostgreSQL cluster of the test's own that it may restart.

Everything started here is stopped by the code that started it, and every
wait is bounded.
"""

import contextlib
import http.client
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def database_url(settings_dict):
    """A DATABASE_URL naming the same PostgreSQL database as Django's settings_dict."""
    return "postgres://{user}:{password}@{host}:{port}/{name}".format(
        user=quote(settings_dict["USER"], safe=""),
        password=quote(settings_dict["PASSWORD"] or "", safe=""),
        host=settings_dict["HOST"] or "127.0.0.1",
        port=settings_dict["PORT"] or 5432,
        name=quote(settings_dict["NAME"], safe=""),
    )


def production_env(database, **extra):
    """The environment of a production deployment, on plain HTTP at 127.0.0.1."""
    return {
        "PATH": os.environ.get("PATH", ""),
        "LANG": "C.UTF-8",
        "DJANGO_SETTINGS_MODULE": "scoresheet.settings",
        "DEBUG": "false",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "false",
        "DATABASE_URL": database,
        **extra,
    }


def development_env(database, **extra):
    """The environment of ``bin/run``: the development settings (DEBUG on)."""
    return {
        "PATH": os.environ.get("PATH", ""),
        "LANG": "C.UTF-8",
        "DJANGO_SETTINGS_MODULE": "scoresheet.settings",
        "DATABASE_URL": database,
        **extra,
    }


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


class Server:
    """A server process on a free port of 127.0.0.1; ``stop()`` ends it (and its workers)."""

    name = "server"

    def __init__(self, command, env):
        self.port = free_port()
        log, self.log = tempfile.mkstemp(prefix=f"{self.name}-", suffix=".log")
        self.process = subprocess.Popen(
            [arg.format(port=self.port) for arg in command],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
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
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        os.unlink(self.log)


class Gunicorn(Server):
    """One gunicorn instance with the production settings."""

    name = "gunicorn"

    def __init__(self, database, *, workers=2, threads=4, env=None):
        command = [
            sys.executable, "-m", "gunicorn", "scoresheet.wsgi",
            "--bind", "127.0.0.1:{port}",
            "--workers", str(workers),
            "--threads", str(threads),
            "--worker-class", "gthread" if threads > 1 else "sync",
            "--timeout", "30",
            "--graceful-timeout", "2",
        ]  # fmt: skip
        super().__init__(command, production_env(database, **(env or {})))


class Runserver(Server):
    """``manage.py runserver`` as ``bin/run`` starts it (development settings, a thread
    per request), without the autoreloader's second process."""

    name = "runserver"

    def __init__(self, database, *, env=None):
        command = [sys.executable, "manage.py", "runserver", "127.0.0.1:{port}", "--noreload"]
        super().__init__(command, development_env(database, **(env or {})))


def exchange(port, method, path, body=None, headers=None, timeout=10):
    """One request on its own connection, ``body`` sent as JSON: (status, headers, raw body)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        headers = {"Host": "127.0.0.1", **(headers or {})}
        payload = None
        if body is not None:
            payload = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        connection.request(method, path, body=payload, headers=headers)
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
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
            "-c fsync=off -c full_page_writes=off"
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

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.django_db
def test_suite_runs_on_postgresql_when_database_url_is_set():
    """bin/test always sets DATABASE_URL to a real PostgreSQL; CI must not fall back to SQLite."""
    if not os.environ.get("DATABASE_URL"):
        pytest.skip("DATABASE_URL is not set: a local run on SQLite")
    assert connection.vendor == "postgresql"
    with connection.cursor() as cursor:
        cursor.execute("select version()")
        assert cursor.fetchone()[0].startswith("PostgreSQL")


@pytest.mark.django_db
def test_each_query_is_planned_once_a_connection_on_postgresql():
    """Server-side parameters, and a prepared statement from a query's second use."""
    if connection.vendor != "postgresql":
        pytest.skip("prepared statements are PostgreSQL's")
    if os.environ.get("DATABASE_PREPARED"):
        pytest.skip("DATABASE_PREPARED is set: not the default")
    from django.db.backends.postgresql.base import ServerBindingCursor

    connection.ensure_connection()
    assert connection.connection.prepare_threshold == 1
    assert connection.connection.cursor_factory is ServerBindingCursor


def database_options(**env):
    """The default database's OPTIONS, as scoresheet/settings.py reads them from ``env``."""
    code = (
        "import json; from scoresheet import settings; "
        "print(json.dumps(settings.DATABASES['default'].get('OPTIONS', {})))"
    )
    ours = ("DATABASE_PREPARED", "DATABASE_STATEMENT_TIMEOUT", "DATABASE_LOCK_TIMEOUT")
    answer = subprocess.run(
        [sys.executable, "-c", code],
        env={**{k: v for k, v in os.environ.items() if k not in ours}, **env},
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return json.loads(answer.stdout) if answer.returncode == 0 else answer.stderr


WAITS = "-c statement_timeout=30000 -c lock_timeout=10000"


def test_prepared_statements_can_be_turned_off_for_a_pooler():
    url = "postgres://app:app@127.0.0.1:5432/app"
    assert database_options(DATABASE_URL=url) == {
        "options": WAITS,
        "server_side_binding": True,
        "prepare_threshold": 1,
    }
    assert database_options(DATABASE_URL=url, DATABASE_PREPARED="false") == {"options": WAITS}
    assert "DATABASE_PREPARED must be true or false" in database_options(
        DATABASE_URL=url, DATABASE_PREPARED="maybe"
    )


@pytest.mark.django_db
def test_the_suite_waits_until_a_stopped_servers_sessions_are_closed():
    """What a server of the suite's database leaves open when it stops is waited for
    (``servers.until_closed``) before the suite drops the database, which PostgreSQL
    refuses while a session is open."""
    if connection.vendor != "postgresql":
        pytest.skip("sessions by name are PostgreSQL's")
    import threading
    import time

    import psycopg

    from .servers import until_closed

    params = {**connection.get_connection_params(), "application_name": "suite-closing"}
    for django_only in ("cursor_factory", "context", "prepare_threshold"):
        params.pop(django_only, None)
    lingering = psycopg.connect(**params)
    threading.Timer(0.3, lingering.close).start()
    began = time.monotonic()
    until_closed(connection, "suite-closing")
    assert time.monotonic() - began >= 0.25
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'suite-closing'"
        )
        assert cursor.fetchone()[0] == 0

    kept = psycopg.connect(**params)
    try:
        began = time.monotonic()
        until_closed(connection, "suite-closing", timeout=0.2)  # bounded: it goes on
        assert 0.2 <= time.monotonic() - began < 2
    finally:
        kept.close()


@pytest.fixture
def kept_connection():
    """A connection of its own to the suite's database, as a server's thread keeps one
    from request to request (the test's own is inside its transaction)."""
    if connection.vendor != "postgresql":
        pytest.skip("the health check checked here is the PostgreSQL backend's")
    from django.db import connections

    kept = connections.create_connection("default")
    kept.ensure_connection()
    yield kept
    kept.close()


@pytest.mark.django_db
def test_a_connection_the_server_ended_fails_its_health_check_and_is_replaced(
    kept_connection,
):
    """What a restart of the database does to every kept connection (test_faults.py
    restarts a whole cluster under a server)."""
    assert kept_connection.is_usable()
    ended = kept_connection.connection.info.backend_pid
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [ended])
        assert cursor.fetchone()[0]
    assert not kept_connection.is_usable()

    # As at the start of a request (close_old_connections): checked, closed, opened anew.
    kept_connection.health_check_done = False
    kept_connection.close_if_health_check_failed()
    with kept_connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        assert cursor.fetchone()[0] != ended


@pytest.mark.django_db
def test_a_connection_in_a_failed_transaction_fails_its_health_check(kept_connection):
    """As Django's own check finds it: nothing more can be done on it until a rollback."""
    from django.db import DatabaseError

    kept_connection.set_autocommit(False)
    with pytest.raises(DatabaseError), kept_connection.cursor() as cursor:
        cursor.execute("SELECT 1 / 0")
    assert not kept_connection.is_usable()
    kept_connection.rollback()
    assert kept_connection.is_usable()


def test_no_statement_or_lock_wait_outlasts_its_limit():
    url = "postgres://app:app@127.0.0.1:5432/app"
    limited = database_options(
        DATABASE_URL=url, DATABASE_STATEMENT_TIMEOUT="5", DATABASE_LOCK_TIMEOUT="0"
    )
    assert limited["options"] == "-c statement_timeout=5000 -c lock_timeout=0"

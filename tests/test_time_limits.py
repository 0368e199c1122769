"""A request has a time limit on the database too: a statement or a wait for a lock past
its limit (DATABASE_STATEMENT_TIMEOUT, DATABASE_LOCK_TIMEOUT) is answered 503, "try
again", and changes nothing, instead of holding a thread of the server."""

import time

import psycopg
import pytest
from django.db import connection
from rest_framework.authtoken.models import Token

from .conftest import sessions_ended
from .servers import Gunicorn, database_url, request

NAMED = "suite-time-limits"


@pytest.fixture(scope="module")
def impatient(django_db_setup, django_db_blocker):
    """bin/serve on the suite's PostgreSQL, waiting a second at most for a lock."""
    with django_db_blocker.unblock():
        if connection.vendor != "postgresql":
            pytest.skip("bin/serve on the suite's PostgreSQL (bin/test runs this on it)")
        database = database_url(connection.settings_dict, named=NAMED)
    server = Gunicorn(database, workers=1, threads=2, env={"DATABASE_LOCK_TIMEOUT": "1"})
    try:
        yield server.wait_ready().port
    finally:
        server.stop()
        sessions_ended(django_db_blocker, NAMED)


def test_a_change_waiting_too_long_for_its_lock_is_answered_503(impatient, transactional_db, match):
    token = Token.objects.create(user=match.host).key
    entry = {"deal": 1, "side": "a", "games": 1}
    path = f"/api/matches/{match.pk}/entries/"
    holding = psycopg.connect(database_url(connection.settings_dict))
    try:
        holding.execute("SELECT 1 FROM matches_match WHERE id = %s FOR UPDATE", [match.pk])
        began = time.monotonic()
        status, body = request(impatient, "POST", path, entry, token=token)
        waited = time.monotonic() - began
    finally:
        holding.rollback()
        holding.close()
    assert status == 503, body
    assert "try again" in body["detail"]
    assert 1 <= waited < 5
    assert not match.deals.exists()
    status, _body = request(impatient, "POST", path, entry, token=token)
    assert status == 201

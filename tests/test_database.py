import os

import pytest
from django.db import connection


@pytest.mark.django_db
def test_suite_runs_on_postgresql_when_database_url_is_set():
    """bin/test always sets DATABASE_URL to a real PostgreSQL; CI must not fall back to SQLite."""
    if not os.environ.get("DATABASE_URL"):
        pytest.skip("DATABASE_URL is not set: a local run on SQLite")
    assert connection.vendor == "postgresql"
    with connection.cursor() as cursor:
        cursor.execute("select version()")
        assert cursor.fetchone()[0].startswith("PostgreSQL")

"""The cast: host Ana, her partner Rui, opponents Zé and Maria, outsider Olga."""

import contextlib
import gc
import os
import subprocess
import sys

import pytest
from django.conf import settings
from django.core.signals import request_finished, request_started
from django.db import close_old_connections, connection
from django.test import Client
from django.utils import translation
from rest_framework.test import APIClient

from matches import fragments
from matches.models import Match, User

from .servers import (
    ROOT,
    BinRun,
    Cluster,
    Gunicorn,
    database_url,
    postgresql_bin,
    production_env,
    until_closed,
)

# Playwright's sync API runs an event loop in the test thread, beside live_server.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup):
    """The suite's database, dropped at the end once nothing holds it: a thread that read
    it and ended keeps its connection open until Python's cyclic collector frees it, as
    Django's connection objects refer to each other (tests/test_suite_teardown.py)."""
    yield
    gc.collect()


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """One headless Chromium for every browser test (pytest-playwright's ``browser``)."""
    return {
        "headless": True,
        **browser_type_launch_args,
        "executable_path": "/usr/bin/chromium",
        "args": CHROMIUM_ARGS,
    }


@pytest.fixture
def phone(new_context, app):
    """A phone at the table, on the app as ``bin/run`` serves it: a new 360×640 browser
    context and its page, signed in as ``user`` when given; other options go to the
    context (color_scheme="dark"). A page that warns of an id twice in it (a swap that
    nested an element in its namesake) fails the test."""
    pages = []

    def open_phone(user=None, **options):
        context = new_context(viewport={"width": 360, "height": 640}, **options)
        context.set_default_timeout(10_000)
        if user is not None:
            context.add_cookies([session_cookie(user, app.url)])
        page = context.new_page()
        page.warnings = []
        page.on("console", lambda message: page.warnings.append(message.text))
        pages.append(page)
        return page

    yield open_phone
    twice = [warning for page in pages for warning in page.warnings if "duplicate id" in warning]
    assert not twice, twice


@pytest.fixture
def table(phone, app):
    """Open a 360×640 phone (or a ``width``×``height`` screen) in European Portuguese,
    signed in as ``user`` (or nobody), at ``path``."""

    def open_page(path, user=None, width=360, height=640, **options):
        page = phone(user, **options)
        page.set_viewport_size({"width": width, "height": height})
        page.context.add_cookies(
            [{"name": settings.LANGUAGE_COOKIE_NAME, "value": "pt-pt", "url": app.url}]
        )
        page.goto(f"{app.url}{path}")
        return page

    return open_page


def session_cookie(user, url):
    """The cookie of a session signed in as ``user``, for a browser on ``url``."""
    client = Client()
    client.force_login(user)
    session = client.cookies[settings.SESSION_COOKIE_NAME].value
    return {"name": settings.SESSION_COOKIE_NAME, "value": session, "url": url}


@pytest.fixture
def races():
    """For the tests of writers racing each other: PostgreSQL or nothing."""
    if connection.vendor != "postgresql":
        pytest.skip(
            "needs PostgreSQL: SQLite takes one writer at a time and has no row locks, "
            "so there is no race to show (bin/test runs this on PostgreSQL)"
        )


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    # The cast's passwords cost about a second a test with the production hasher.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _no_fragments_kept():
    # A fragment is kept under its match's id and version, which a rolled-back test's
    # database may give the next test's match again.
    fragments.kept.clear()


@pytest.fixture(autouse=True)
def _fast_polls(settings):
    # Phones at a real table ask every 2 s; browser tests need not wait that long a step.
    settings.SHEET_POLL_MS = 300


@pytest.fixture(autouse=True)
def _english_to_begin_with():
    # A page asked for in Portuguese leaves its language active in this thread (the
    # locale middleware sets it for the request): every test starts from the default.
    translation.activate(settings.LANGUAGE_CODE)
    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def _no_rate_limits(settings):
    # The suite makes many accounts from one address; test_security.py turns the limits on.
    settings.RATE_LIMITS = {}


def make_user(username, name):
    user = User.objects.create_user(username=username, password="sueca-na-mesa-42")
    user.display_name = name
    user.save(update_fields=["display_name"])
    return user


@pytest.fixture
def ana(db):
    return make_user("ana", "Ana")


@pytest.fixture
def rui(db):
    return make_user("rui", "Rui")


@pytest.fixture
def ze(db):
    return make_user("ze", "Zé")


@pytest.fixture
def maria(db):
    return make_user("maria", "Maria")


@pytest.fixture
def olga(db):
    return make_user("olga", "Olga")


SEAT_NAMES = {"a1": "Ana", "a2": "Rui", "b1": "Zé", "b2": "Maria"}


@pytest.fixture
def match(ana, rui, ze, maria):
    """Ana hosts from seat a1 with Rui; Zé and Maria hold side b."""
    match = Match.objects.start(ana, SEAT_NAMES, host_seat="a1", first_dealer="a1")
    match.join(rui, token=match.join_token, position="a2")
    match.join(ze, token=match.join_token, position="b1")
    match.join(maria, token=match.join_token, position="b2")
    return match


@pytest.fixture
def same_connection():
    """Serve requests on the test's own database connection, as Django's test client
    does, for a WSGI app called in the test (schemathesis's): it would otherwise close
    it between requests."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def api_as():
    """An API client signed in as the given person, or anonymous with None."""

    def client(user=None):
        client = APIClient()
        if user is not None:
            client.force_authenticate(user)
        return client

    return client


# A PostgreSQL cluster of a test module's own, and gunicorn on it in production settings,
# for the tests that stop or restart the database under a running server.


@pytest.fixture(scope="module")
def cluster():
    if connection.vendor != "postgresql" or postgresql_bin() is None:
        pytest.skip("needs PostgreSQL's own programs (bin/test runs this on PostgreSQL)")
    cluster = Cluster()
    try:
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--no-input", "-v", "0"],
            cwd=ROOT,
            env=production_env(cluster.url),
            check=True,
            capture_output=True,
            timeout=120,
        )
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(scope="module")
def server(cluster):
    # Guest accounts come quickly here: no rate limit on them.
    server = Gunicorn(cluster.url, workers=2, threads=2, env={"RATE_LIMIT_GUEST": ""})
    try:
        yield server.wait_ready()
    finally:
        server.stop()


# The app as people run it: bin/run itself, on the suite's database, for the browser tests.

APP_ENV = {
    # Phones at a real table ask every 2 s; browser tests need not wait that long a step.
    "SHEET_POLL_MS": "300",
    # The suite makes many accounts from one address (test_security.py tests the limits).
    "RATE_LIMIT_LOGIN": "",
    "RATE_LIMIT_GUEST": "",
    "RATE_LIMIT_GUESS": "",
    "RATE_LIMIT_READS": "",
}


def _suite_database(named):
    if connection.vendor != "postgresql":
        pytest.skip("bin/run serves the suite's database only on PostgreSQL (bin/test runs it)")
    return database_url(connection.settings_dict, named=named)


@contextlib.contextmanager
def serving_the_suite(django_db_blocker, named, *args):
    """``bin/run`` (with ``args``) on the suite's database, its connections ``named``;
    once stopped, until PostgreSQL has closed them (the suite drops its database next)."""
    with django_db_blocker.unblock():
        database = _suite_database(named)
    server = BinRun(database, *args, env=APP_ENV)
    try:
        yield server.wait_ready()
    finally:
        server.stop()
        sessions_ended(django_db_blocker, named)


def sessions_ended(django_db_blocker, named):
    """Once a server on the suite's database has stopped: until PostgreSQL has ended its
    sessions ``named``; then the session this waited through is closed too. Left open,
    either keeps the suite from dropping its database ("being accessed by other users")."""
    with django_db_blocker.unblock():
        until_closed(connection, named)
        connection.close()


@pytest.fixture(scope="session")
def app_server(django_db_setup, django_db_blocker):
    """``bin/run`` serving the suite's database: the production server and settings,
    over plain http, as a person starts it."""
    with serving_the_suite(django_db_blocker, "suite-bin-run") as server:
        yield server


@pytest.fixture(scope="session")
def debug_server(django_db_setup, django_db_blocker):
    """``bin/run --debug``: Django's development server with DEBUG on, on the suite's
    database."""
    with serving_the_suite(django_db_blocker, "suite-bin-run-debug", "--debug") as server:
        yield server


def _serving(server, settings):
    # What a test makes is committed (transactional_db), so the server sees it, and
    # the sessions it makes are signed with the server's key, so the server takes them.
    settings.SECRET_KEY = server.secret_key
    return server


@pytest.fixture
def app(app_server, transactional_db, settings):
    """The app as ``bin/run`` serves it, for this test: ``app.url`` is its address."""
    return _serving(app_server, settings)


@pytest.fixture
def debug_app(debug_server, transactional_db, settings):
    """The app as ``bin/run --debug`` serves it, for this test."""
    return _serving(debug_server, settings)
